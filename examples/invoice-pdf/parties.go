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

// party is a mail address with its own embedded SMTP server delivering
// into its own Maildir, as a mail domain with its own MX would have.
type party struct {
	name    string // "customer", "supplier"
	address string // ap@customer.example
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
		stop: func() error { cancel(); return errors.Join(<-done, mb.Close()) },
	}, nil
}

// mailto is the party's address as a WS-Addressing address.
func (p *party) mailto() string { return "mailto:" + p.address }

// waitFor waits until a file whose name ends in suffix, and is none of
// except, is in folder, and returns its name.
func waitFor(ctx context.Context, folder, suffix string, except ...string) (string, error) {
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		entries, err := os.ReadDir(folder)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return "", err
		}
		for _, e := range entries {
			if strings.HasSuffix(e.Name(), suffix) && !strings.HasPrefix(e.Name(), ".") && !slices.Contains(except, e.Name()) {
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

// listLeft prints how many files each folder of the Maildirs and of the
// archive holds.
func listLeft(w io.Writer, dir string) error {
	fmt.Fprintln(w, "\n== What is left ==")
	for _, l := range []struct {
		root    string
		folders []string
	}{
		{filepath.Join("customer", "Maildir"), []string{soapsmtp.FolderNew, soapsmtp.FolderWork, soapsmtp.FolderDone, soapsmtp.FolderFailed}},
		{filepath.Join("supplier", "Maildir"), []string{soapsmtp.FolderNew, soapsmtp.FolderWork, soapsmtp.FolderFailed}},
		{"archive", []string{"inbox", "work", "done", "failed", "pdf"}},
	} {
		fmt.Fprintf(w, "%s/\n", l.root)
		for _, folder := range l.folders {
			entries, err := os.ReadDir(filepath.Join(dir, l.root, folder))
			if err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
			var files, faults int
			for _, e := range entries {
				switch {
				case strings.HasPrefix(e.Name(), "."):
				case strings.HasSuffix(e.Name(), soapsmtp.FaultSuffix):
					faults++
				default:
					files++
				}
			}
			line := fmt.Sprintf("  %-8s %d %s", folder+"/", files, plural(files, "file"))
			if faults > 0 {
				line += fmt.Sprintf(", %d %s", faults, plural(faults, "fault file"))
			}
			fmt.Fprintln(w, line)
		}
	}
	return nil
}

func plural(n int, s string) string {
	if n == 1 {
		return s
	}
	return s + "s"
}
