package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	soapftp "github.com/soapwire/soapwire/bindings/ftp"
	soaphttp "github.com/soapwire/soapwire/bindings/http"
	soapimap "github.com/soapwire/soapwire/bindings/imap"
	soapnats "github.com/soapwire/soapwire/bindings/nats"
	soapsftp "github.com/soapwire/soapwire/bindings/sftp"
	soapsmtp "github.com/soapwire/soapwire/bindings/smtp"
)

// The names of the run: the customer's mail address, its mail server's
// name, the shop's sender address, the FTP and SFTP accounts every party
// logs in with (each embedded server serves one user) and the JetStream
// streams.
const (
	buyerMail    = "customer@buyer.example"
	buyerMX      = "mx.buyer.example"
	shopMail     = "fulfilment@shop.example"
	ftpUser      = "exchange"
	ftpPassword  = "exchange-secret"
	sftpUser     = "shipping"
	sftpPassword = "shipping-secret"
	ordersStream = "ORDERS"
	ordersTo     = "nats:orders.placed?stream=" + ordersStream
)

// servers are the embedded servers of a run, each on a free loopback port
// with its files in the run folder.
type servers struct {
	nats    *soapnats.Server  // nats-server with JetStream, storing in nats/
	ftp     *soapftp.Server   // the drop server, serving ftp/
	sftp    *soapsftp.Server  // the carrier's SFTP server, serving sftp/
	mx      string            // the customer's SMTP server (host:port)
	maildir *soapsmtp.Maildir // its spool: mail/customer/
	imap    *soapimap.Server  // the customer's mail provider's IMAP server (in memory)
	httpLn  net.Listener      // the order desk's HTTP port (served once the order desk exists)
}

// startServers starts nats-server (with the streams), the FTP server, the
// carrier's SFTP server, the customer's SMTP server and IMAP server with
// the delivery agent between them, and opens the HTTP port.
func startServers(ctx context.Context, dir string, log *slog.Logger, lc *lifecycle) (*servers, error) {
	var s servers
	var err error
	if s.nats, err = soapnats.StartServer(filepath.Join(dir, "nats"), soapnats.WithLogger(log)); err != nil {
		return nil, fmt.Errorf("start nats-server: %w", err)
	}
	lc.closer("nats-server", s.nats)
	if err := createStreams(ctx, s.nats); err != nil {
		return nil, err
	}

	if s.ftp, err = soapftp.StartServer(filepath.Join(dir, "ftp"), ftpUser, ftpPassword, soapftp.WithLogger(log)); err != nil {
		return nil, fmt.Errorf("start the FTP server: %w", err)
	}
	lc.closer("the FTP server", s.ftp)

	if err := os.MkdirAll(filepath.Join(dir, "sftp"), 0o750); err != nil {
		return nil, err
	}
	if s.sftp, err = soapsftp.StartServer(filepath.Join(dir, "sftp"), sftpUser, soapsftp.WithPassword(sftpPassword), soapsftp.WithLogger(log)); err != nil {
		return nil, fmt.Errorf("start the SFTP server: %w", err)
	}
	lc.closer("the SFTP server", s.sftp)

	if s.maildir, err = soapsmtp.OpenMaildir(filepath.Join(dir, "mail", "customer")); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s.mx = ln.Addr().String()
	mx := soapsmtp.NewServer(s.mx, s.maildir, soapsmtp.WithAddresses(buyerMail), soapsmtp.WithHostname(buyerMX), soapsmtp.WithLogger(log))
	lc.goServe(ctx, "the SMTP server", func(ctx context.Context) error { return mx.Serve(ctx, ln) })

	if s.imap, err = soapimap.StartServer(soapimap.WithLogger(log)); err != nil {
		return nil, fmt.Errorf("start the IMAP server: %w", err)
	}
	lc.closer("the IMAP server", s.imap)
	if err := s.imap.AddUser(buyerIMAPUser, buyerIMAPPassword); err != nil {
		return nil, err
	}
	lc.goServe(ctx, "the delivery agent", func(ctx context.Context) error {
		return deliverToIMAP(ctx, s.maildir.Dir(), s.imap, log)
	})

	if s.httpLn, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
		return nil, err
	}
	lc.onClose(func() { s.httpLn.Close() }) // in case it is never served
	return &s, nil
}

// createStreams creates the stream that stores orders and the one that
// keeps dead letters (a soapnats.Receiver needs one for its dead-letter
// subject).
func createStreams(ctx context.Context, srv *soapnats.Server) error {
	nc, err := srv.Connect(nats.Name("setup"))
	if err != nil {
		return fmt.Errorf("connect to nats-server: %w", err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	for name, subject := range map[string]string{ordersStream: "orders.>", "DEAD": "soapwire.dead.>"} {
		if _, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{Name: name, Subjects: []string{subject}, Storage: jetstream.FileStorage}); err != nil {
			return fmt.Errorf("create stream %s: %w", name, err)
		}
	}
	return nil
}

// serveHTTP serves h on the HTTP port until the run stops.
func (s *servers) serveHTTP(ctx context.Context, h http.Handler, log *slog.Logger, lc *lifecycle) string {
	hs := soaphttp.NewServer(s.httpLn.Addr().String(), h, soaphttp.WithLogger(log))
	lc.goServe(ctx, "the HTTP server", func(ctx context.Context) error {
		done := make(chan error, 1)
		go func() { done <- hs.Serve(s.httpLn) }()
		select {
		case err := <-done:
			return err
		case <-ctx.Done():
		}
		hs.Close()
		if err := <-done; !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	})
	return "http://" + s.httpLn.Addr().String()
}

// connect returns a NATS connection named for a party, closed when the run
// stops.
func (s *servers) connect(name string, lc *lifecycle) (*nats.Conn, error) {
	nc, err := s.nats.Connect(nats.Name(name))
	if err != nil {
		return nil, fmt.Errorf("connect %s to nats-server: %w", name, err)
	}
	lc.onClose(nc.Close)
	return nc, nil
}

// ftpClient returns a pool of FTP connections for a party, closed when the
// run stops.
func (s *servers) ftpClient(log *slog.Logger, lc *lifecycle) *soapftp.Client {
	c := soapftp.NewClient(s.ftp.Addr(), ftpUser, ftpPassword, soapftp.WithLogger(log))
	lc.closer("an FTP client", c)
	return c
}

// sftpClient returns a pool of SFTP connections for a party (the server's
// host key pinned), closed when the run stops.
func (s *servers) sftpClient(log *slog.Logger, lc *lifecycle) *soapsftp.Client {
	c := soapsftp.NewClient(s.sftp.Addr(), sftpUser, soapsftp.WithPassword(sftpPassword), soapsftp.WithHostKey(s.sftp.HostKey()), soapsftp.WithLogger(log))
	lc.closer("an SFTP client", c)
	return c
}
