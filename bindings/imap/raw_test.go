package imap_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
	"github.com/stretchr/testify/require"
)

// rawClient is an independent IMAP client (go-imap's, plaintext) logged in
// to the account of an imap:// address, for a test to put mail in and look
// at folders.
func rawClient(t *testing.T, addr string) *imapclient.Client {
	t.Helper()
	u, err := url.Parse(addr)
	require.NoError(t, err)
	c, err := imapclient.DialInsecure(u.Host, nil)
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	require.NoError(t, c.Login(u.User.Username(), "secret").Wait())
	return c
}

// appendRaw appends mail (LF line ends turned into CRLF) to folder.
func appendRaw(t *testing.T, c *imapclient.Client, folder, mail string) {
	t.Helper()
	data := []byte(strings.ReplaceAll(strings.ReplaceAll(mail, "\r\n", "\n"), "\n", "\r\n"))
	cmd := c.Append(folder, int64(len(data)), nil)
	_, err := cmd.Write(data)
	require.NoError(t, err)
	require.NoError(t, cmd.Close())
	_, err = cmd.Wait()
	require.NoError(t, err)
}

// folderMails returns the mails of folder (flags and text), oldest first.
func folderMails(t *testing.T, c *imapclient.Client, folder string) []rawMail {
	t.Helper()
	_, err := c.Select(folder, nil).Wait()
	require.NoError(t, err)
	defer func() { c.Unselect().Wait() }()
	all := imap.UIDSet{imap.UIDRange{Start: 1, Stop: 0}}
	msgs, err := c.Fetch(all, &imap.FetchOptions{UID: true, Flags: true, BodySection: []*imap.FetchItemBodySection{{Peek: true}}}).Collect()
	require.NoError(t, err)
	var out []rawMail
	for _, m := range msgs {
		rm := rawMail{uid: m.UID, flags: m.Flags}
		for _, b := range m.BodySection {
			rm.text = string(b.Bytes)
		}
		out = append(out, rm)
	}
	return out
}

type rawMail struct {
	uid   imap.UID
	flags []imap.Flag
	text  string
}

func (m rawMail) has(f imap.Flag) bool {
	for _, g := range m.flags {
		if strings.EqualFold(string(g), string(f)) {
			return true
		}
	}
	return false
}

// allUIDs is "1:*".
func allUIDs() imap.UIDSet { return imap.UIDSet{imap.UIDRange{Start: 1, Stop: 0}} }
