package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	soapimap "github.com/soapwire/soapwire/bindings/imap"
)

// clientOptions are the login, TLS and logging options of an IMAP
// section.
func (m *imapConfig) clientOptions() ([]soapimap.ClientOption, *tls.Config, error) {
	var opts []soapimap.ClientOption
	switch {
	case m.TokenFile != "":
		file := m.TokenFile
		opts = append(opts, soapimap.WithOAuth(m.User, func(context.Context) (string, error) {
			b, err := os.ReadFile(file)
			if err != nil {
				return "", err
			}
			return strings.TrimSpace(string(b)), nil
		}))
	default:
		opts = append(opts, soapimap.WithCredentials(m.User, os.Getenv(m.PasswordEnv)))
	}
	if m.Plaintext {
		opts = append(opts, soapimap.WithPlaintext())
	}
	cfg, err := tlsRoots(m.CAFile)
	return opts, cfg, err
}

// tlsRoots returns a TLS configuration trusting the certificates of a PEM
// file, or the system's when file is "".
func tlsRoots(file string) (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if file == "" {
		return cfg, nil
	}
	pem, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("%s: no PEM certificate", file)
	}
	cfg.RootCAs = pool
	return cfg, nil
}

func (s *server) startIMAP(ctx context.Context, wg *sync.WaitGroup, fail func(string, error)) (string, func(context.Context), error) {
	c := s.cfg.IMAP
	if c == nil {
		return "", nil, nil
	}
	log := s.log.With(slog.String("binding", "imap"))
	copts, cfg, err := c.clientOptions()
	if err != nil {
		return "", nil, fmt.Errorf("imap.ca_file: %w", err)
	}
	opts := []soapimap.ReceiverOption{soapimap.WithLogger(log), soapimap.WithTLS(cfg), soapimap.WithLimits(s.cfg.limits())}
	for _, o := range copts {
		opts = append(opts, o)
	}
	if len(c.Addresses) > 0 {
		opts = append(opts, soapimap.WithAddresses(c.Addresses...))
	}
	if c.Archive {
		opts = append(opts, soapimap.WithArchive())
	}
	if n := s.cfg.limits().MaxBytes; n > 0 {
		// Room for the envelope in base64 (4/3) and the mail's headers.
		opts = append(opts, soapimap.WithMaxMessageBytes(n+n/3+64<<10))
	}
	dctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	r, err := soapimap.NewReceiver(dctx, c.Address, opts...)
	if err != nil {
		return "", nil, fmt.Errorf("imap: %w", err)
	}
	s.serveLoop(ctx, wg, "imap", r, s.handler(c.Handler, "imap"), c.Concurrency, fail)
	return "imap " + c.Address, func(context.Context) {}, nil
}
