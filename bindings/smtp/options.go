package smtp

import (
	"crypto/tls"
	"log/slog"
	"os"
	"time"

	"github.com/soapwire/soapwire/core"
)

// The options. Each constructor takes its own option type, and an option
// given to a constructor that does not use it does not compile: the type of
// each With* function says where it applies.

// ServerOption configures NewServer and StartServer.
type ServerOption interface{ applyServer(*serverConfig) }

// MaildirOption configures OpenMaildir.
type MaildirOption interface{ applyMaildir(*maildirConfig) }

// ReceiverOption configures NewReceiver.
type ReceiverOption interface{ applyReceiver(*receiverConfig) }

// SenderOption configures NewSender.
type SenderOption interface{ applySender(*senderConfig) }

// ReadMailOption configures ReadMail.
type ReadMailOption interface{ applyReadMail(*readConfig) }

// LogOption is an option of every component that logs: the Server, the
// Receiver and the Sender (WithLogger).
type LogOption interface {
	ServerOption
	ReceiverOption
	SenderOption
}

// SessionOption is an option of both ends of an SMTP session: the Server
// and the Sender (WithHostname, WithTLS, WithMaxSessions, WithIOTimeout).
type SessionOption interface {
	ServerOption
	SenderOption
}

// ReadOption is an option of what reads mails into messages: the Receiver
// and ReadMail (WithLimits).
type ReadOption interface {
	ReceiverOption
	ReadMailOption
}

// AddressOption is an option of what knows the service's own addresses:
// the Server, the Receiver and ReadMail (WithAddresses).
type AddressOption interface {
	ServerOption
	ReceiverOption
	ReadMailOption
}

// sessionConfig is what the Server and the Sender share.
type sessionConfig struct {
	hostname    string
	tls         *tls.Config
	maxSessions int // the Server's sessions, the Sender's connections
	ioTimeout   time.Duration
}

// readConfig is how a mail is read into a message (ReadMail, the Receiver).
type readConfig struct {
	limits    core.Limits
	addresses []string                          // the loop guard's own addresses
	submitter func(value string) (string, bool) // the Receiver's Maildir: verifies submitter records
}

// defaultHostname is the host name, else "localhost".
func defaultHostname() string {
	if h, _ := os.Hostname(); h != "" {
		return h
	}
	return "localhost"
}

func discard() *slog.Logger { return slog.New(slog.DiscardHandler) }

// WithLogger logs refusals, parked mails, retries and failures. The default
// discards.
func WithLogger(l *slog.Logger) LogOption { return loggerOption{l} }

type loggerOption struct{ l *slog.Logger }

func (o loggerOption) applyServer(c *serverConfig)     { c.log = o.l }
func (o loggerOption) applyReceiver(c *receiverConfig) { c.log = o.l }
func (o loggerOption) applySender(c *senderConfig)     { c.log = o.l }

// WithLimits bounds the envelopes read. The zero Limits is
// core.DefaultLimits.
func WithLimits(l core.Limits) ReadOption { return limitsOption{l} }

type limitsOption struct{ l core.Limits }

func (o limitsOption) applyReceiver(c *receiverConfig) { c.limits = o.l }
func (o limitsOption) applyReadMail(c *readConfig)     { c.limits = o.l }

// WithAddresses names the service's own mail addresses. The Server accepts
// mail only for them (any other recipient is refused 550); an entry
// "@example.org" accepts a whole domain. The Receiver and ReadMail treat a
// mail whose X-Loop header names one of them as sent by this service and
// never answer it. Addresses compare case-insensitively.
func WithAddresses(addrs ...string) AddressOption { return addressOption(addrs) }

type addressOption []string

func (a addressOption) applyServer(c *serverConfig) { c.addresses = append(c.addresses, a...) }
func (a addressOption) applyReceiver(c *receiverConfig) {
	c.addresses = append(c.addresses, a...)
}
func (a addressOption) applyReadMail(c *readConfig) { c.addresses = append(c.addresses, a...) }

// sessionOption is an option of the Server and the Sender.
type sessionOption func(*sessionConfig)

func (f sessionOption) applyServer(c *serverConfig) { f(&c.sessionConfig) }
func (f sessionOption) applySender(c *senderConfig) { f(&c.sessionConfig) }

// WithHostname is the name the Server greets with and writes in Received
// headers, and the name the Sender gives in EHLO (default: the host name).
func WithHostname(name string) SessionOption {
	return sessionOption(func(c *sessionConfig) { c.hostname = name })
}

// WithTLS enables STARTTLS. The Server offers it with cfg (which must hold
// a certificate); the Sender requires it, failing with ErrNoTLS when the
// server does not offer it, and verifies the server with cfg (ServerName
// defaults to the host of the server address).
func WithTLS(cfg *tls.Config) SessionOption {
	return sessionOption(func(c *sessionConfig) { c.tls = cfg })
}

// Defaults of WithMaxSessions.
const (
	DefaultMaxSessions = 100 // the Server's sessions: 421 beyond
	DefaultMaxConns    = 32  // the Sender's sessions open at once (and kept idle)
)

// WithMaxSessions bounds the Server's concurrent sessions (a connection
// beyond is answered 421 and closed) and the Sender's open connections (a
// Send beyond waits for one, within its ctx). Defaults DefaultMaxSessions
// and DefaultMaxConns.
func WithMaxSessions(n int) SessionOption {
	return sessionOption(func(c *sessionConfig) { c.maxSessions = n })
}

// DefaultIOTimeout is the longest silence on a session mid-operation.
const DefaultIOTimeout = 2 * time.Minute

// WithIOTimeout bounds how long a session may stay silent in the middle of
// an operation (default DefaultIOTimeout; d <= 0 keeps the default). The
// Server waits that long for each command and for each piece of the data,
// and for each reply to be taken (421 and the session closed beyond); the
// Sender, for each reply of the server, the answer to the data included,
// and for each piece of what it writes. It is renewed by every read and
// write, so large mails are not cut off.
func WithIOTimeout(d time.Duration) SessionOption {
	return sessionOption(func(c *sessionConfig) {
		if d > 0 {
			c.ioTimeout = d
		}
	})
}
