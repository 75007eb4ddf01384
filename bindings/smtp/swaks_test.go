package smtp_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soapsmtp "github.com/soapwire/soapwire/bindings/smtp"
	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/coretest"
)

// requireSwaks returns the path of swaks, skipping the test when it is
// missing unless SOAPWIRE_REQUIRE_PEERS=1.
func requireSwaks(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("swaks")
	if err != nil {
		coretest.RequirePeer(t, "swaks", fmt.Errorf("%w (apt install swaks)", err))
	}
	return path
}

// TestSwaksDeliversSOAPMail: Debian's swaks, an independent SMTP client,
// delivers SOAP mail to the embedded server (as the body, and as a base64
// attachment; in clear and with AUTH LOGIN and PLAIN), and the handler
// served by core.Serve gets each message.
func TestSwaksDeliversSOAPMail(t *testing.T) {
	swaks := requireSwaks(t)
	envFile := filepath.Join(t.TempDir(), "order.xml")
	require.NoError(t, os.WriteFile(envFile, []byte(envelope12), 0o600))
	check := func(_ context.Context, u, p string) bool { return u == "alice" && p == "pw" }
	tests := []struct {
		name   string
		opts   []soapsmtp.ServerOption
		args   []string
		action string
	}{
		{"Body", nil, []string{
			"--header", `Content-Type: application/soap+xml; charset=utf-8; action="urn:swaks:ping"`,
			"--body", "@" + envFile,
		}, "urn:swaks:ping"},
		{"Attachment", nil, []string{
			"--body", "The order is attached.",
			"--attach-type", "application/soap+xml", "--attach", "@" + envFile,
		}, ""},
		{"AuthLogin", []soapsmtp.ServerOption{soapsmtp.WithAuth(check)}, []string{
			"--auth", "LOGIN", "--auth-user", "alice", "--auth-password", "pw",
			"--header", "Content-Type: application/soap+xml", "--body", "@" + envFile,
		}, ""},
		{"AuthPlain", []soapsmtp.ServerOption{soapsmtp.WithAuth(check)}, []string{
			"--auth", "PLAIN", "--auth-user", "alice", "--auth-password", "pw",
			"--header", "Content-Type: application/soap+xml", "--header", "SOAPAction: urn:swaks:plain", "--body", "@" + envFile,
		}, "urn:swaks:plain"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := startServer(t, t.TempDir(), tt.opts...)
			type received struct {
				m    *core.Message
				text string
			}
			got := make(chan received, 1)
			h := core.HandlerFunc(func(_ context.Context, m *core.Message) (*core.Message, error) {
				var v struct {
					Text string `xml:",chardata"`
				}
				if err := m.Body().Decode(&v); err != nil {
					return nil, err
				}
				got <- received{m, v.Text}
				return nil, nil
			})
			ctx, cancel := context.WithCancel(t.Context())
			done := make(chan error, 1)
			go func() { done <- core.Serve(ctx, newReceiver(t, ts.mb), h, nil) }()
			t.Cleanup(func() { cancel(); <-done })

			host, port, err := net.SplitHostPort(ts.addr)
			require.NoError(t, err)
			args := append([]string{"--server", host, "--port", port, "--helo", "client.example.org",
				"--from", "client@example.org", "--to", ts.box, "--timeout", "20"}, tt.args...)
			out, err := exec.CommandContext(ctxT(t), swaks, args...).CombinedOutput()
			require.NoError(t, err, "swaks:\n%s", out)

			select {
			case r := <-got:
				m := r.m
				assert.Equal(t, core.V12, m.Version())
				assert.Equal(t, "hello", r.text)
				assert.Equal(t, tt.action, m.Action)
				assert.Regexp(t, `^mid:`, m.ID, "the ID comes from swaks's Message-Id")
				assert.Equal(t, "mailto:client@example.org", m.ReplyTo)
				assert.Equal(t, "mailto:"+ts.box, m.To)
			case <-time.After(15 * time.Second):
				t.Fatalf("the handler got nothing; swaks said:\n%s", out)
			}
		})
	}
}
