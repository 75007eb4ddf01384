package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	soapsmtp "github.com/soapwire/soapwire/bindings/smtp"
)

// party is one side of the exchange: a mail address with its own embedded
// SMTP server delivering into its own Maildir, as a mail domain with its
// own MX would have.
type party struct {
	name    string // "shop", "customer"
	address string // orders@shop.example
	dir     string // the Maildir's folder
	mb      *soapsmtp.Maildir
	addr    string // the SMTP server's host:port
	stop    func() error
}

// startParty opens the Maildir dir and starts an SMTP server on a free
// loopback port that accepts mail for address only and answers 250 once a
// mail is stored there.
func startParty(ctx context.Context, name, address, dir string, log *slog.Logger) (*party, error) {
	mb, err := soapsmtp.OpenMaildir(dir)
	if err != nil {
		return nil, err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	srv := soapsmtp.NewServer(l.Addr().String(), mb,
		soapsmtp.WithAddresses(address),              // any other recipient: 550
		soapsmtp.WithHostname("mx."+name+".example"), // the name in the greeting and Received
		soapsmtp.WithLogger(log))
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, l) }()
	return &party{
		name: name, address: address, dir: dir, mb: mb, addr: l.Addr().String(),
		stop: func() error { cancel(); return <-done },
	}, nil
}

// mailto is the party's address as a WS-Addressing address.
func (p *party) mailto() string { return "mailto:" + p.address }

// waitForParked waits until a mail is parked in the Maildir's failed
// folder, and returns the name of its fault file.
func waitForParked(ctx context.Context, dir string, except ...string) (string, error) {
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		entries, err := os.ReadDir(filepath.Join(dir, soapsmtp.FolderFailed))
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return "", err
		}
		for _, e := range entries {
			if strings.HasSuffix(e.Name(), soapsmtp.FaultSuffix) && !slices.Contains(except, e.Name()) {
				return e.Name(), nil
			}
		}
		select {
		case <-ctx.Done():
			return "", context.Cause(ctx)
		case <-tick.C:
		}
	}
}

// listMaildir prints how many files each folder of a Maildir holds (tmp/
// aside: the Receiver keeps the files of acknowledged mails there, hidden,
// for reuse).
func listMaildir(w io.Writer, root, dir string) error {
	rel, err := filepath.Rel(root, dir)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%s/\n", rel)
	for _, folder := range []string{soapsmtp.FolderNew, soapsmtp.FolderWork, soapsmtp.FolderDone, soapsmtp.FolderFailed} {
		entries, err := os.ReadDir(filepath.Join(dir, folder))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		var mails, faults int
		for _, e := range entries {
			if strings.HasSuffix(e.Name(), soapsmtp.FaultSuffix) {
				faults++
			} else {
				mails++
			}
		}
		line := fmt.Sprintf("  %-8s %d %s", folder+"/", mails, plural(mails, "mail"))
		if faults > 0 {
			line += fmt.Sprintf(", %d %s", faults, plural(faults, "fault file"))
		}
		fmt.Fprintln(w, line)
	}
	return nil
}

func plural(n int, s string) string {
	if n == 1 {
		return s
	}
	return s + "s"
}
