package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/emersion/go-imap/v2/imapclient"

	soapimap "github.com/soapwire/soapwire/bindings/imap"
)

// The customer's mailbox at its mail provider: an IMAP account on the
// embedded IMAP server.
const (
	buyerIMAPUser     = "customer"
	buyerIMAPPassword = "customer-secret"
)

// deliverToIMAP is the customer's mail provider's local delivery agent,
// what Dovecot's LDA does behind Postfix: it takes each mail the MX wrote
// into the spool Maildir's new/, APPENDs it to the customer's IMAP INBOX
// and, once the server said OK, moves the file into cur/ (delivered; the
// provider's copy). Mail is never lost between the two: a file leaves new/
// only after the APPEND succeeded.
func deliverToIMAP(ctx context.Context, spool string, srv *soapimap.Server, log *slog.Logger) error {
	c, err := imapclient.DialInsecure(srv.Addr(), nil)
	if err != nil {
		return err
	}
	defer c.Close()
	if err := c.Login(buyerIMAPUser, buyerIMAPPassword).Wait(); err != nil {
		return err
	}
	t := time.NewTicker(10 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			c.Logout().Wait()
			return nil
		case <-t.C:
		}
		names, err := os.ReadDir(filepath.Join(spool, "new"))
		if err != nil {
			return err
		}
		for _, e := range names {
			path := filepath.Join(spool, "new", e.Name())
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			cmd := c.Append("INBOX", int64(len(data)), nil)
			if _, err := cmd.Write(data); err != nil {
				return fmt.Errorf("deliver %s: %w", e.Name(), err)
			}
			if err := cmd.Close(); err != nil {
				return fmt.Errorf("deliver %s: %w", e.Name(), err)
			}
			if _, err := cmd.Wait(); err != nil {
				return fmt.Errorf("deliver %s: %w", e.Name(), err)
			}
			if err := os.Rename(path, filepath.Join(spool, "cur", e.Name())); err != nil {
				return err
			}
			log.Info("delivery agent: mail delivered into the customer's IMAP INBOX", slog.String("file", e.Name()))
		}
	}
}
