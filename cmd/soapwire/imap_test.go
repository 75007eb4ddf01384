package main_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soapimap "github.com/soapwire/soapwire/bindings/imap"
)

// TestServeIMAP: serve reads requests from an IMAP mailbox (its imap
// section, here on the embedded IMAP server) and answers by mail through
// outbox.smtp; send puts the request into the mailbox (--to imap://).
func TestServeIMAP(t *testing.T) {
	srv, err := soapimap.StartServer()
	require.NoError(t, err)
	t.Cleanup(func() { srv.Close() })
	require.NoError(t, srv.AddUser("orders", "s3cret"))
	inbox := srv.URL("orders", "INBOX")
	buyer := startSMTPSink(t, "buyer@example.com")
	s := startServe(t, map[string]any{
		"outbox": map[string]any{"smtp": map[string]any{"server": buyer.addr, "from": "orders@shop.example"}},
		"imap": map[string]any{
			"address": inbox, "password_env": "TEST_IMAP_PASSWORD", "plaintext": true,
			"addresses": []string{"orders@shop.example"}, "handler": map[string]any{"type": "echo"},
		},
		"policy": map[string]any{"mailboxes": []string{"@example.com"}}, // answers may be mailed to the buyers' domain
	}, "TEST_IMAP_PASSWORD=s3cret")
	require.Equal(t, inbox, s.ready["imap"], s.output())
	order := writeFile(t, "order.xml", order)

	res := invocation{args: []string{"send", "--to", inbox, "--imap-plaintext", "--from", "buyer@example.com",
		"--action", "urn:example:po:submit", order}, env: []string{"SOAPWIRE_IMAP_PASSWORD=s3cret"}}.run(t)
	require.Equal(t, 0, res.code, "%s", res)
	id := field(t, res.stdout, "message-id")
	g := buyer.next(t)
	assert.Equal(t, "mailto:buyer@example.com", g.to, "answered at the mail's From")
	assert.Equal(t, id, g.conversation)
	assert.Equal(t, orderBody, g.body)

	t.Run("refusals", func(t *testing.T) {
		res := invocation{args: []string{"send", "--to", inbox, "--from", "buyer@example.com", order},
			env: []string{"SOAPWIRE_IMAP_PASSWORD=s3cret"}}.run(t)
		assert.NotEqual(t, 0, res.code, "no STARTTLS and no --imap-plaintext")
		assert.Contains(t, res.stderr, "STARTTLS")
		res = soapwire(t, "send", "--to", "imaps://u:p@host/INBOX", "--from", "b@example.com", order)
		assert.Equal(t, 2, res.code, "%s", res)
		assert.Contains(t, res.stderr, "password in the address")
	})
}
