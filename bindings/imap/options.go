package imap

import (
	"context"
	"crypto/tls"
	"log/slog"
	"time"

	"github.com/soapwire/soapwire/core"
)

// The options. Each constructor takes its own option type, and an option
// given to a constructor that does not use it does not compile.

// ReceiverOption configures NewReceiver.
type ReceiverOption interface{ applyReceiver(*receiverConfig) }

// AppenderOption configures NewAppender.
type AppenderOption interface{ applyAppender(*appenderConfig) }

// ServerOption configures StartServer.
type ServerOption interface{ applyServer(*serverConfig) }

// Option is an option of every constructor (WithLogger, WithTLS).
type Option interface {
	ReceiverOption
	AppenderOption
	ServerOption
}

// ClientOption is an option of what connects to a server: the Receiver and
// the Appender (WithCredentials, WithOAuth, WithPlaintext,
// WithDialTimeout).
type ClientOption interface {
	ReceiverOption
	AppenderOption
}

// clientConfig is what the Receiver and the Appender share.
type clientConfig struct {
	log         *slog.Logger
	tls         *tls.Config
	user, pass  string
	hasCreds    bool
	token       func(ctx context.Context) (string, error)
	plaintext   bool
	dialTimeout time.Duration
}

func (c *clientConfig) defaults() {
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	if c.dialTimeout <= 0 {
		c.dialTimeout = DefaultDialTimeout
	}
}

// WithLogger logs reconnections, claims returned, parked mails and
// failures. The default discards.
func WithLogger(l *slog.Logger) Option { return loggerOption{l} }

type loggerOption struct{ l *slog.Logger }

func (o loggerOption) applyReceiver(c *receiverConfig) { c.log = o.l }
func (o loggerOption) applyAppender(c *appenderConfig) { c.log = o.l }
func (o loggerOption) applyServer(c *serverConfig)     { c.log = o.l }

// WithTLS is the TLS configuration. A client (Receiver, Appender) verifies
// the server with cfg (ServerName defaults to the address's host): over
// TLS from the start for imaps://, after STARTTLS, which it requires, for
// imap://. The embedded Server offers STARTTLS with cfg (which must hold a
// certificate).
func WithTLS(cfg *tls.Config) Option { return tlsOption{cfg} }

type tlsOption struct{ cfg *tls.Config }

func (o tlsOption) applyReceiver(c *receiverConfig) { c.tls = o.cfg }
func (o tlsOption) applyAppender(c *appenderConfig) { c.tls = o.cfg }
func (o tlsOption) applyServer(c *serverConfig)     { c.tls = o.cfg }

// clientOption is an option of the Receiver and the Appender.
type clientOption func(*clientConfig)

func (f clientOption) applyReceiver(c *receiverConfig) { f(&c.clientConfig) }
func (f clientOption) applyAppender(c *appenderConfig) { f(&c.clientConfig) }

// WithCredentials logs in with user and pass: AUTHENTICATE PLAIN when the
// server offers it, else LOGIN. It replaces the user of the address.
func WithCredentials(user, pass string) ClientOption {
	return clientOption(func(c *clientConfig) { c.user, c.pass, c.hasCreds = user, pass, true })
}

// WithOAuth logs in with an OAuth 2.0 bearer token, as Microsoft 365 and
// Gmail require: AUTHENTICATE OAUTHBEARER (RFC 7628) when the server offers
// it, else XOAUTH2. token is called for each login (each connection), so
// it may return a fresh token; its error fails that login. user is the
// mailbox's user (the address's when empty).
func WithOAuth(user string, token func(ctx context.Context) (string, error)) ClientOption {
	return clientOption(func(c *clientConfig) {
		c.token = token
		if user != "" {
			c.user = user
		}
	})
}

// WithPlaintext lets an imap:// address go without TLS when the server
// does not offer STARTTLS: passwords and mail then cross the network in the
// clear. Only for loopback and tests.
func WithPlaintext() ClientOption {
	return clientOption(func(c *clientConfig) { c.plaintext = true })
}

// DefaultDialTimeout bounds connecting: TCP, TLS, the greeting and the login.
const DefaultDialTimeout = time.Minute

// WithDialTimeout bounds connecting: TCP, TLS or STARTTLS, the greeting, the
// login and selecting the folder (default DefaultDialTimeout; d <= 0 keeps
// it).
func WithDialTimeout(d time.Duration) ClientOption {
	return clientOption(func(c *clientConfig) {
		if d > 0 {
			c.dialTimeout = d
		}
	})
}

// receiverConfig is what NewReceiver takes.
type receiverConfig struct {
	clientConfig
	limits       core.Limits
	addresses    []string
	processing   string
	done         string
	failed       string
	archive      bool
	poll         time.Duration
	idle         time.Duration
	lease        time.Duration
	recoverEvery time.Duration
	maxBytes     int64
	backoff      time.Duration
	maxBackoff   time.Duration
}

func newReceiverConfig(opts []ReceiverOption) receiverConfig {
	c := receiverConfig{
		processing: DefaultProcessingFolder, done: DefaultDoneFolder, failed: DefaultFailedFolder,
		poll: DefaultPollInterval, idle: DefaultIdleInterval, lease: DefaultLease,
		maxBytes: DefaultMaxMessageBytes, backoff: DefaultReconnect, maxBackoff: DefaultMaxReconnect,
	}
	for _, o := range opts {
		o.applyReceiver(&c)
	}
	c.defaults()
	if c.recoverEvery <= 0 {
		c.recoverEvery = max(c.lease/4, 10*time.Millisecond)
	}
	return c
}

type receiverOption func(*receiverConfig)

func (f receiverOption) applyReceiver(c *receiverConfig) { f(c) }

// WithLimits bounds the envelopes read. The zero Limits is
// core.DefaultLimits.
func WithLimits(l core.Limits) ReceiverOption {
	return receiverOption(func(c *receiverConfig) { c.limits = l })
}

// WithAddresses names the service's own mail addresses: a mail whose X-Loop
// header names one of them was sent by this service and is never answered
// (the loop guard, as bindings/smtp has it).
func WithAddresses(addrs ...string) ReceiverOption {
	return receiverOption(func(c *receiverConfig) { c.addresses = append(c.addresses, addrs...) })
}

// The folders a Receiver keeps beside its inbox, created when missing.
const (
	DefaultProcessingFolder = "soapwire-processing"
	DefaultDoneFolder       = "soapwire-done"
	DefaultFailedFolder     = "soapwire-failed"
)

// WithFolders names the folders the Receiver moves mails to: processing
// (claimed, being handled), done (acknowledged, WithArchive) and failed
// (parked with a note). An empty name keeps the default. Receivers that
// share an inbox must share these folders too.
func WithFolders(processing, done, failed string) ReceiverOption {
	return receiverOption(func(c *receiverConfig) {
		for _, p := range []struct {
			dst *string
			v   string
		}{{&c.processing, processing}, {&c.done, done}, {&c.failed, failed}} {
			if p.v != "" {
				*p.dst = p.v
			}
		}
	})
}

// WithArchive makes Ack move a mail to the done folder instead of
// deleting it (the default, as bindings/smtp's Receiver does).
func WithArchive() ReceiverOption {
	return receiverOption(func(c *receiverConfig) { c.archive = true })
}

// DefaultPollInterval is how often a Receiver looks for mail on a server
// without IDLE.
const DefaultPollInterval = 10 * time.Second

// WithPollInterval is how often the Receiver looks for new mail when the
// server does not offer IDLE (with IDLE it is told at once). Default
// DefaultPollInterval.
func WithPollInterval(d time.Duration) ReceiverOption {
	return receiverOption(func(c *receiverConfig) {
		if d > 0 {
			c.poll = d
		}
	})
}

// DefaultIdleInterval is how long one IDLE command lasts before it is
// re-issued: under the 29 minutes after which RFC 2177 lets a server drop
// an idle client, and under the 30 of RFC 9051.
const DefaultIdleInterval = 25 * time.Minute

// WithIdleInterval is how long the Receiver idles (IDLE) before it ends the
// command, looks for mail and idles again. Default DefaultIdleInterval.
func WithIdleInterval(d time.Duration) ReceiverOption {
	return receiverOption(func(c *receiverConfig) {
		if d > 0 {
			c.idle = d
		}
	})
}

// DefaultLease is how long a claim holds without renewal.
const DefaultLease = 2 * time.Minute

// WithLease is how long a claim holds without renewal (default
// DefaultLease). A Receiver renews its claims every quarter lease (a
// keyword on the mail in the processing folder); a claim older than its
// lease was left by a Receiver that died or lost its server, and any
// Receiver returns it to the inbox. A handler that runs longer than the
// lease stays safe as long as its Receiver can renew.
func WithLease(d time.Duration) ReceiverOption {
	return receiverOption(func(c *receiverConfig) {
		if d > 0 {
			c.lease = d
		}
	})
}

// WithRecoverInterval is how often the Receiver looks in the processing
// folder for claims whose lease ran out (default a quarter lease). It also
// looks when it starts.
func WithRecoverInterval(d time.Duration) ReceiverOption {
	return receiverOption(func(c *receiverConfig) { c.recoverEvery = d })
}

// DefaultMaxMessageBytes bounds the mails a Receiver takes.
const DefaultMaxMessageBytes = 32 << 20

// WithMaxMessageBytes bounds the size of the mails the Receiver takes
// (default DefaultMaxMessageBytes). It is checked against the server's
// RFC822.SIZE before the mail is fetched: a larger mail is parked in the
// failed folder with the reason, unread.
func WithMaxMessageBytes(n int64) ReceiverOption {
	return receiverOption(func(c *receiverConfig) {
		if n > 0 {
			c.maxBytes = n
		}
	})
}

// Defaults of WithReconnect.
const (
	DefaultReconnect    = 100 * time.Millisecond
	DefaultMaxReconnect = 30 * time.Second
)

// WithReconnect sets the pause before reconnecting after a connection was
// lost or refused: first, doubled after each failure up to most (defaults
// DefaultReconnect, DefaultMaxReconnect), with jitter.
func WithReconnect(first, most time.Duration) ReceiverOption {
	return receiverOption(func(c *receiverConfig) {
		if first > 0 {
			c.backoff = first
		}
		if most >= c.backoff {
			c.maxBackoff = most
		}
	})
}

// appenderConfig is what NewAppender takes.
type appenderConfig struct {
	clientConfig
	subject string
}

func newAppenderConfig(opts []AppenderOption) appenderConfig {
	var c appenderConfig
	for _, o := range opts {
		o.applyAppender(&c)
	}
	c.defaults()
	return c
}

type appenderOption func(*appenderConfig)

func (f appenderOption) applyAppender(c *appenderConfig) { f(c) }

// WithSubject is the Subject of the mails the Appender writes when a
// message's Meta has no MetaSubject (default: the action, else "SOAP
// message").
func WithSubject(s string) AppenderOption {
	return appenderOption(func(c *appenderConfig) { c.subject = s })
}
