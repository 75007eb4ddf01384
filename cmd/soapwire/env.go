package main

import (
	"log/slog"
	"net/url"
	"os"
)

// Environment variables the commands read. Passwords are read only from
// the environment, never from flags (which other users can see in ps).
const (
	envSMTP         = "SOAPWIRE_SMTP"          // --smtp: the SMTP server, host:port
	envFrom         = "SOAPWIRE_FROM"          // --from: the mail's From address
	envSMTPUser     = "SOAPWIRE_SMTP_USER"     // --smtp-user
	envSMTPPassword = "SOAPWIRE_SMTP_PASSWORD" // the SMTP AUTH password
	envIMAPUser     = "SOAPWIRE_IMAP_USER"     // --imap-user
	envIMAPPassword = "SOAPWIRE_IMAP_PASSWORD" // the IMAP password
	envFTPUser      = "SOAPWIRE_FTP_USER"      // --ftp-user
	envFTPPassword  = "SOAPWIRE_FTP_PASSWORD"  // the FTP password
	envSFTPUser     = "SOAPWIRE_SFTP_USER"     // --sftp-user
	envSFTPPassword = "SOAPWIRE_SFTP_PASSWORD" // the SFTP password (when no key is given)
	envNATS         = "SOAPWIRE_NATS_URL"      // --nats: the NATS server URL
	envHTTPUser     = "SOAPWIRE_HTTP_USER"     // --http-user
	envHTTPPassword = "SOAPWIRE_HTTP_PASSWORD" // the HTTP Basic password
)

// Defaults when neither a flag nor the environment says.
const (
	defaultNATS    = "nats://127.0.0.1:4222"
	defaultFTPUser = "anonymous"
)

// envOr returns the environment variable's value, or def when unset or empty.
func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// redactURL hides a password in a URL before it is printed.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.User == nil {
		return s
	}
	return u.Redacted()
}

// newLogger logs to w at level, or discards when verbose is off.
func newLogger(w interface{ Write([]byte) (int, error) }, verbose bool) *slog.Logger {
	if !verbose {
		return slog.New(slog.DiscardHandler)
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelInfo}))
}
