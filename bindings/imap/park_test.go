package imap_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soapimap "github.com/soapwire/soapwire/bindings/imap"
	mailfmt "github.com/soapwire/soapwire/bindings/internal/mail"
	"github.com/soapwire/soapwire/core"
)

// note finds the note beside a parked mail and reads its fault.
func note(t *testing.T, notes []rawMail, about string) *core.Fault {
	t.Helper()
	for _, n := range notes {
		if !n.has(soapimap.NoteKeyword) || about != "" && !strings.Contains(n.text, "In-Reply-To: "+about) {
			continue
		}
		assert.Contains(t, n.text, "Auto-Submitted: auto-generated", "nothing answers a note")
		assert.Contains(t, n.text, "X-Soapwire-Parked-UID: ")
		m, err := mailfmt.Read(strings.NewReader(n.text), &mailfmt.ReadConfig{})
		require.NoError(t, err, "the note holds a fault envelope")
		f := m.Fault()
		require.NotNil(t, f)
		return f
	}
	t.Fatalf("no note about %q", about)
	return nil
}

// TestParkedWithReason: a mail that is too large (by RFC822.SIZE, before
// it is fetched), one that is not SOAP, and one a handler Nacks are moved
// to the failed folder, never deleted, each beside a note with its fault
// and reason; Receive goes on to the next mail.
func TestParkedWithReason(t *testing.T) {
	srv := startServer(t)
	addr := srv.newUser(t)
	c := rawClient(t, addr)
	appendRaw(t, c, "INBOX", "From: a@example.org\nMessage-ID: <big@example.org>\nContent-Type: text/xml\n\n<s:Envelope xmlns:s=\"http://schemas.xmlsoap.org/soap/envelope/\"><s:Body><x>"+strings.Repeat("y", 5000)+"</x></s:Body></s:Envelope>\n")
	appendRaw(t, c, "INBOX", "From: a@example.org\nMessage-ID: <plain@example.org>\nContent-Type: text/plain\n\nPlease process my order.\n")
	appendRaw(t, c, "INBOX", "From: a@example.org\nMessage-ID: <b64@example.org>\nContent-Type: text/xml\nContent-Transfer-Encoding: base64\n\n!!!! not base64\n")
	a := newAppender(t, addr)
	nacked := ping(core.V11, addr, "nack me")
	require.NoError(t, a.Send(t.Context(), nacked))
	good := ping(core.V12, addr, "good")
	require.NoError(t, a.Send(t.Context(), good))

	r := newReceiver(t, addr, soapimap.WithMaxMessageBytes(4096), soapimap.WithAddresses("orders@example.org"))
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	d, err := r.Receive(ctx)
	require.NoError(t, err)
	require.Equal(t, nacked.ID, d.Message().ID, "the three bad mails were parked on the way")
	require.NoError(t, d.Nack(ctx, core.SenderFault("order refused: unknown article")))
	d, err = r.Receive(ctx)
	require.NoError(t, err)
	require.Equal(t, good.ID, d.Message().ID)
	require.NoError(t, d.Ack(ctx))

	failed := folderMails(t, c, soapimap.DefaultFailedFolder)
	assert.Len(t, failed, 8, "four parked mails and their notes")
	f := note(t, failed, "<big@example.org>")
	assert.Equal(t, core.CodeSender, f.Code)
	assert.Contains(t, f.Reason, "mail of ")
	assert.Contains(t, f.Reason, "over the limit of 4096")
	f = note(t, failed, "<plain@example.org>")
	assert.Contains(t, f.Reason, "not a SOAP mail")
	note(t, failed, "<b64@example.org>")
	f = note(t, failed, mailfmt.MessageIDHeader(nacked.ID))
	assert.Equal(t, "order refused: unknown article", f.Reason)
	assert.Equal(t, core.V11, f.Version, "the note in the mail's version")
	for _, m := range failed {
		if !m.has(soapimap.NoteKeyword) {
			assert.NotContains(t, m.text, "X-Soapwire-Parked-UID", "a parked mail is kept as it came")
		}
	}
	assert.Contains(t, strings.Join(texts(failed), "\n"), "From: <orders@example.org>", "notes are from the service")
	assert.Empty(t, folderMails(t, c, "INBOX"))
	assert.Empty(t, folderMails(t, c, soapimap.DefaultProcessingFolder))
}

// TestNackCanceledReturnsToInbox: a Nack for context.Canceled (a shutdown)
// gives the mail back to the inbox, and Close gives back what is unsettled
// (its Ack then ErrReleased).
func TestNackCanceledReturnsToInbox(t *testing.T) {
	srv := startServer(t)
	addr := srv.newUser(t)
	a := newAppender(t, addr)
	ids := sendN(t, a, addr, 2)
	r := newReceiver(t, addr)
	ctx := t.Context()
	d1, err := r.Receive(ctx)
	require.NoError(t, err)
	require.NoError(t, d1.Nack(ctx, context.Canceled))
	d2, err := r.Receive(ctx)
	require.NoError(t, err)
	require.NoError(t, r.Close())
	assert.ErrorIs(t, d2.Ack(ctx), soapimap.ErrReleased)
	got := receiveAll(t, newReceiver(t, addr), ids)
	assert.Len(t, got, 2)
	assert.Empty(t, folderMails(t, rawClient(t, addr), soapimap.DefaultFailedFolder))
}

// TestAckArchive: WithArchive keeps acknowledged mails in the done folder.
func TestAckArchive(t *testing.T) {
	srv := startServer(t)
	addr := srv.newUser(t)
	ids := sendN(t, newAppender(t, addr), addr, 3)
	receiveAll(t, newReceiver(t, addr, soapimap.WithArchive(), soapimap.WithFolders("", "Archive/SOAP", "")), ids)
	c := rawClient(t, addr)
	assert.Len(t, folderMails(t, c, "Archive/SOAP"), 3)
	assert.Empty(t, folderMails(t, c, soapimap.DefaultProcessingFolder))
}

// TestLeaseLost: a delivery whose mail another Receiver took back (its
// lease ran out) reports ErrLeaseLost on Ack.
func TestLeaseLost(t *testing.T) {
	srv := startServer(t)
	addr := srv.newUser(t)
	sendN(t, newAppender(t, addr), addr, 1)
	r := newReceiver(t, addr)
	d, err := r.Receive(t.Context())
	require.NoError(t, err)
	c := rawClient(t, addr)
	_, err = c.Select(soapimap.DefaultProcessingFolder, nil).Wait()
	require.NoError(t, err)
	moved, err := c.Move(allUIDs(), "INBOX").Wait()
	require.NoError(t, err)
	require.NotNil(t, moved.DestUIDs)
	err = d.Ack(t.Context())
	require.ErrorIs(t, err, soapimap.ErrLeaseLost)
	assert.False(t, errors.Is(err, core.ErrSettled))
}

func texts(ms []rawMail) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.text)
	}
	return out
}
