package imap_test

import (
	"net/url"
	"testing"
	"time"

	"github.com/emersion/go-imap/v2/imapclient"
	"github.com/stretchr/testify/require"
)

// TestIdleSeesMailAppendedBeforeIdle: a mail appended after a session's
// last command and before its IDLE is reported under IDLE at once
// (go-imap's in-memory server alone waits for the next change).
func TestIdleSeesMailAppendedBeforeIdle(t *testing.T) {
	srv := startServer(t)
	addr := srv.newUser(t)
	u, err := url.Parse(addr)
	require.NoError(t, err)
	exists := make(chan uint32, 8)
	c, err := imapclient.DialInsecure(u.Host, &imapclient.Options{UnilateralDataHandler: &imapclient.UnilateralDataHandler{
		Mailbox: func(d *imapclient.UnilateralDataMailbox) {
			if d.NumMessages != nil {
				exists <- *d.NumMessages
			}
		},
	}})
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	require.NoError(t, c.Login(u.User.Username(), "secret").Wait())
	_, err = c.Select("INBOX", nil).Wait()
	require.NoError(t, err)

	appendRaw(t, rawClient(t, addr), "INBOX", "Subject: x\n\nhello\n")
	idle, err := c.Idle()
	require.NoError(t, err)
	select {
	case n := <-exists:
		require.Equal(t, uint32(1), n)
	case <-time.After(10 * time.Second):
		t.Fatal("IDLE did not report the mail appended before it")
	}
	require.NoError(t, idle.Close())
	require.NoError(t, idle.Wait())
}
