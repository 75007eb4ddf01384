package imap

import (
	"github.com/emersion/go-imap/v2"
)

// appendMail appends data to folder with flags and returns the UID the
// server gave it (0 if it did not say: no UIDPLUS).
func appendMail(s *session, folder string, data []byte, flags []imap.Flag) (imap.UID, error) {
	cmd := s.c.Append(folder, int64(len(data)), &imap.AppendOptions{Flags: flags})
	if _, err := cmd.Write(data); err != nil {
		cmd.Close()
		return 0, err
	}
	if err := cmd.Close(); err != nil {
		return 0, err
	}
	res, err := cmd.Wait()
	if err != nil {
		return 0, err
	}
	return res.UID, nil
}
