package smtp

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"net/mail"
	"os"
	"path/filepath"
	"strings"

	mailfmt "github.com/soapwire/soapwire/bindings/internal/mail"
)

// The authenticated submitter. A Server whose session authenticated (SMTP
// AUTH) as a user that is a mail address writes, above the mail it
// stores,
//
//	Soapwire-Submitter: orders@partner.example; mac=<base64url>
//
// where mac is an HMAC-SHA256 of the user under a key only the Maildir
// holds (SubmitterKeyFile, made by OpenMaildir, mode 0600). The Receiver
// of that Maildir sets core.MetaSubmitter to the user when the mac is
// right, so core.ReplyPolicy may answer the submitter by mail. A peer
// cannot forge the header (it never sees the key, and the Server writes
// its own above anything a mail carries), and a mail delivered by an MTA
// carries no valid one.

// SubmitterKeyFile is the file in a Maildir's folder that holds the key of
// its submitter records (32 random bytes, mode 0600). Servers and
// Receivers of one Maildir, in one process or several, share it.
const SubmitterKeyFile = "soapwire-submitter.key"

const submitterKeyLen = 32

// loadSubmitterKey reads the Maildir's key, making it when there is none
// (atomically: a key written whole under a temporary name, then linked, so
// that two processes opening the Maildir at once end with the same key).
func loadSubmitterKey(dir string) ([]byte, error) {
	path := filepath.Join(dir, SubmitterKeyFile)
	for range 2 {
		b, err := os.ReadFile(path)
		if err == nil {
			if len(b) != submitterKeyLen {
				return nil, fmt.Errorf("smtp: %s holds %d bytes, not a key of %d", path, len(b), submitterKeyLen)
			}
			return b, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("smtp: submitter key: %w", err)
		}
		if err := makeSubmitterKey(dir, path); err != nil {
			return nil, err
		}
	}
	return nil, fmt.Errorf("smtp: submitter key %s vanished while it was made", path)
}

func makeSubmitterKey(dir, path string) error {
	key := make([]byte, submitterKeyLen)
	rand.Read(key)
	f, err := os.CreateTemp(dir, ".soapwire-key-*")
	if err != nil {
		return fmt.Errorf("smtp: submitter key: %w", err)
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	_, err = f.Write(key)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("smtp: submitter key: %w", err)
	}
	if err := os.Link(tmp, path); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("smtp: submitter key: %w", err)
	}
	return syncDir(dir)
}

// submitterMAC is the record's mac of user.
func submitterMAC(key []byte, user string) string {
	h := hmac.New(sha256.New, key)
	h.Write([]byte("soapwire-submitter\x00"))
	h.Write([]byte(user))
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil))
}

// plainAddress reports whether user is one bare mail address a header can
// carry as it is: printable ASCII, no ";" or quotes, at most 254 bytes.
func plainAddress(user string) bool {
	if user == "" || len(user) > 254 || strings.ContainsAny(user, "; \"\\<>()") {
		return false
	}
	for i := 0; i < len(user); i++ {
		if c := user[i]; c <= ' ' || c >= 0x7f {
			return false
		}
	}
	a, err := mail.ParseAddress(user)
	return err == nil && a.Name == "" && a.Address == user
}

// submitterHeader returns the header line recording user, or "" when user
// is no plain mail address (it could not be answered by mail anyway).
func (m *Maildir) submitterHeader(user string) string {
	if m.key == nil || !plainAddress(user) {
		return ""
	}
	return mailfmt.SubmitterHeader + ": " + user + "; mac=" + submitterMAC(m.key, user) + "\r\n"
}

// verifySubmitter returns the user a submitter header records, if its mac
// is this Maildir's.
func (m *Maildir) verifySubmitter(v string) (string, bool) {
	if m.key == nil {
		return "", false
	}
	user, mac, ok := strings.Cut(strings.TrimSpace(v), "; mac=")
	if !ok || !plainAddress(user) {
		return "", false
	}
	want := submitterMAC(m.key, user)
	if !hmac.Equal([]byte(mac), []byte(want)) {
		return "", false
	}
	return user, true
}
