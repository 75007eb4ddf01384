package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/nats-io/nats.go"

	"golang.org/x/crypto/ssh"

	soapfile "github.com/soapwire/soapwire/bindings/file"
	soapftp "github.com/soapwire/soapwire/bindings/ftp"
	soaphttp "github.com/soapwire/soapwire/bindings/http"
	soapimap "github.com/soapwire/soapwire/bindings/imap"
	soapnats "github.com/soapwire/soapwire/bindings/nats"
	soapsftp "github.com/soapwire/soapwire/bindings/sftp"
	soapsmtp "github.com/soapwire/soapwire/bindings/smtp"
	"github.com/soapwire/soapwire/document"
)

// smtpSettings says how mail is sent: through the SMTP server at server
// (host:port), from the address from, with AUTH when user is set.
type smtpSettings struct {
	server, from   string
	user, password string
	startTLS       bool
}

// ftpSettings says how to log in to an FTP server.
type ftpSettings struct {
	server         string // host:port
	user, password string
	tls            bool
}

// imapSettings say how to log in to an IMAP server to put mail into a
// mailbox.
type imapSettings struct {
	user, password string
	caFile         string
	plaintext      bool
}

// addIMAP routes imap:// and imaps:// addresses of addr's account to an
// Appender that puts mail from from into the folder they name.
func (o *outbox) addIMAP(addr, from string, s imapSettings, log *slog.Logger) error {
	cfg, err := tlsRoots(s.caFile)
	if err != nil {
		return fmt.Errorf("--imap-ca: %w", err)
	}
	opts := []soapimap.AppenderOption{soapimap.WithLogger(log), soapimap.WithTLS(cfg), soapimap.WithCredentials(s.user, s.password)}
	if s.plaintext {
		opts = append(opts, soapimap.WithPlaintext())
	}
	a, err := soapimap.NewAppender(addr, from, opts...)
	if err != nil {
		return fmt.Errorf("imap appender: %w", err)
	}
	o.Register("imap", a)
	o.Register("imaps", a)
	o.closers = append(o.closers, a.Close)
	return nil
}

// httpSettings are the HTTP Basic credentials sent with every request
// (none when user is empty).
type httpSettings struct {
	user, password string
}

// outbox is a document.Outbox with the connections behind its Senders.
type outbox struct {
	*document.Outbox
	closers []func() error
	flushes []func(context.Context) error
}

func newOutbox() *outbox { return &outbox{Outbox: &document.Outbox{}} }

// addSMTP routes mailto: addresses to an SMTP Sender.
func (o *outbox) addSMTP(s smtpSettings, log *slog.Logger) error {
	opts := []soapsmtp.SenderOption{soapsmtp.WithLogger(log)}
	if s.user != "" {
		opts = append(opts, soapsmtp.WithCredentials(s.user, s.password))
	}
	if s.startTLS {
		opts = append(opts, soapsmtp.WithTLS(&tls.Config{MinVersion: tls.VersionTLS12}))
	}
	snd, err := soapsmtp.NewSender(s.server, s.from, opts...)
	if err != nil {
		return fmt.Errorf("smtp sender: %w", err)
	}
	o.Register("mailto", snd)
	o.closers = append(o.closers, snd.Close)
	return nil
}

// newFTPClient returns a Client for s; the caller closes it (or hands it to
// an outbox with addFTP).
func newFTPClient(s ftpSettings, log *slog.Logger) *soapftp.Client {
	opts := []soapftp.ClientOption{soapftp.WithLogger(log)}
	if s.tls {
		opts = append(opts, soapftp.WithTLS(&tls.Config{MinVersion: tls.VersionTLS12}))
	}
	return soapftp.NewClient(s.server, s.user, s.password, opts...)
}

// addFTP routes ftp:// addresses to a Sender on c (which only sends to
// c's server). The outbox closes c when own is set.
func (o *outbox) addFTP(c *soapftp.Client, own bool, log *slog.Logger) {
	o.Register(soapftp.Scheme, soapftp.NewSender(c, soapftp.WithLogger(log)))
	if own {
		o.closers = append(o.closers, c.Close)
	}
}

// sftpSettings say how to log in to an SFTP server: as user, with the key
// in keyFile (OpenSSH format, no passphrase) and/or password, checking the
// server's host key against knownHosts (default ~/.ssh/known_hosts).
type sftpSettings struct {
	server, user, keyFile, password, knownHosts string
}

// newSFTPClient returns a Client for s; the caller closes it (or hands it
// to an outbox with addSFTP).
func newSFTPClient(s sftpSettings, log *slog.Logger) (*soapsftp.Client, error) {
	opts := []soapsftp.ClientOption{soapsftp.WithLogger(log)}
	if s.keyFile != "" {
		pem, err := os.ReadFile(s.keyFile)
		if err != nil {
			return nil, err
		}
		key, err := ssh.ParsePrivateKey(pem)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.keyFile, err)
		}
		opts = append(opts, soapsftp.WithKey(key))
	}
	if s.password != "" {
		opts = append(opts, soapsftp.WithPassword(s.password))
	}
	if s.knownHosts != "" {
		opts = append(opts, soapsftp.WithKnownHosts(s.knownHosts))
	}
	return soapsftp.NewClient(s.server, s.user, opts...), nil
}

// addSFTP routes sftp:// addresses to a Sender on c (which only sends to
// c's server and account). The outbox closes c when own is set.
func (o *outbox) addSFTP(c *soapsftp.Client, own bool, log *slog.Logger) {
	o.Register(soapsftp.Scheme, soapsftp.NewSender(c, soapsftp.WithLogger(log)))
	if own {
		o.closers = append(o.closers, c.Close)
	}
}

// addFile routes file:// addresses below root to a local-folder Sender.
func (o *outbox) addFile(root string, log *slog.Logger) error {
	s, err := soapfile.NewSender(root, soapfile.WithLogger(log))
	if err != nil {
		return err
	}
	o.Register(soapfile.Scheme, s)
	o.closers = append(o.closers, s.Close)
	return nil
}

// connectError is a failure to connect while setting up: exit code 1,
// not a usage error.
type connectError struct{ err error }

func (e *connectError) Error() string { return e.err.Error() }
func (e *connectError) Unwrap() error { return e.err }

// connectNATS connects to the NATS server at url.
func connectNATS(url string) (*nats.Conn, error) {
	nc, err := nats.Connect(url, nats.Name("soapwire"), nats.Timeout(10*time.Second))
	if err != nil {
		return nil, fmt.Errorf("nats: connect to %s: %w", redactURL(url), err)
	}
	return nc, nil
}

// addNATS routes nats: addresses to a Transport on nc; Flush waits until
// the server has what was published. The outbox closes nc when own is set.
func (o *outbox) addNATS(nc *nats.Conn, own bool, log *slog.Logger) {
	o.Register(soapnats.Scheme, soapnats.NewTransport(nc, "", soapnats.WithLogger(log)))
	o.flushes = append(o.flushes, nc.FlushWithContext)
	if own {
		o.closers = append(o.closers, func() error {
			err := nc.FlushTimeout(5 * time.Second)
			nc.Close()
			return err
		})
	}
}

// addHTTP routes http:// and https:// addresses to a Transport.
func (o *outbox) addHTTP(s httpSettings) {
	var opts []soaphttp.TransportOption
	if s.user != "" {
		opts = append(opts, soaphttp.WithCredentials(s.user, s.password))
	}
	t := soaphttp.NewTransport("", opts...)
	o.Register("http", t)
	o.Register("https", t)
	o.closers = append(o.closers, func() error { t.CloseIdleConnections(); return nil })
}

// Flush waits until what was sent left this process (NATS publishes are
// buffered by the connection).
func (o *outbox) Flush(ctx context.Context) error {
	var errs []error
	for _, f := range o.flushes {
		errs = append(errs, f(ctx))
	}
	return errors.Join(errs...)
}

// Close closes the connections the outbox owns.
func (o *outbox) Close() error {
	var errs []error
	for i := len(o.closers) - 1; i >= 0; i-- {
		errs = append(errs, o.closers[i]())
	}
	return errors.Join(errs...)
}
