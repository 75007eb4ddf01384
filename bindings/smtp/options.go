package smtp

import (
	"context"
	"crypto/tls"
	"log/slog"
	"os"
	"time"

	"github.com/soapwire/soapwire/core"
)

// Option configures OpenMaildir, NewServer, NewReceiver, NewSender or ReadMail.
// Each option says which of them it applies to; the others ignore it.
type Option func(*options)

type options struct {
	log       *slog.Logger
	limits    core.Limits
	addresses []string
	hostname  string
	tls       *tls.Config

	// Server
	requireTLS      bool
	auth            func(ctx context.Context, user, pass string) bool
	maxMessageBytes int64
	maxRecipients   int
	maxLineLength   int
	maxSessions     int
	sessionTime     time.Duration
	readTimeout     time.Duration
	writeTimeout    time.Duration
	shutdownTimeout time.Duration

	// Maildir
	syncMode SyncMode

	// Receiver
	poll         time.Duration
	recoverEvery time.Duration
	archive      bool

	// Sender
	user, pass  string
	hasCreds    bool
	maxConns    int
	idleTimeout time.Duration
	attempts    int
	backoff     time.Duration
	subject     string
}

// Defaults of the options.
const (
	DefaultMaxMessageBytes = 32 << 20         // Server: 552 beyond
	DefaultMaxRecipients   = 50               // Server: 452 beyond
	DefaultMaxLineLength   = 2000             // Server: 500 beyond (RFC 5321's 1000, doubled as go-smtp does)
	DefaultMaxSessions     = 100              // Server: 421 beyond
	DefaultSessionTime     = 10 * time.Minute // Server: a session's whole life
	DefaultReadTimeout     = 2 * time.Minute  // Server: per command, and for the data
	DefaultWriteTimeout    = time.Minute      // Server: per reply
	DefaultShutdownTimeout = 10 * time.Second // Server: how long Serve waits for mails being received
	DefaultPollInterval    = 100 * time.Millisecond
	DefaultRecoverInterval = 5 * time.Second
	DefaultMaxConns        = 32 // Sender: sessions open at once (and kept idle)
	DefaultIdleTimeout     = 30 * time.Second
	DefaultAttempts        = 4 // Sender: tries for a 4xx or a network error
	DefaultBackoff         = 100 * time.Millisecond
)

func newOptions(opts []Option) options {
	o := options{
		maxMessageBytes: DefaultMaxMessageBytes,
		maxRecipients:   DefaultMaxRecipients,
		maxLineLength:   DefaultMaxLineLength,
		maxSessions:     DefaultMaxSessions,
		sessionTime:     DefaultSessionTime,
		readTimeout:     DefaultReadTimeout,
		writeTimeout:    DefaultWriteTimeout,
		shutdownTimeout: DefaultShutdownTimeout,
		poll:            DefaultPollInterval,
		recoverEvery:    DefaultRecoverInterval,
		maxConns:        DefaultMaxConns,
		idleTimeout:     DefaultIdleTimeout,
		attempts:        DefaultAttempts,
		backoff:         DefaultBackoff,
		syncMode:        DefaultSyncMode,
	}
	for _, fn := range opts {
		fn(&o)
	}
	if o.log == nil {
		o.log = slog.New(slog.DiscardHandler)
	}
	if o.hostname == "" {
		o.hostname, _ = os.Hostname()
		if o.hostname == "" {
			o.hostname = "localhost"
		}
	}
	return o
}

// WithLogger logs refusals, parked mails, retries and failures (all). The
// default discards.
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.log = l } }

// WithLimits bounds the envelopes read (NewReceiver, ReadMail). The zero
// Limits is core.DefaultLimits.
func WithLimits(l core.Limits) Option { return func(o *options) { o.limits = l } }

// WithAddresses names the service's own mail addresses. NewServer accepts
// mail only for them (any other recipient is refused 550); an entry
// "@example.org" accepts a whole domain. NewReceiver and ReadMail treat a
// mail whose X-Loop header names one of them as sent by this service and
// never answer it. Addresses compare case-insensitively.
func WithAddresses(addrs ...string) Option {
	return func(o *options) { o.addresses = append(o.addresses, addrs...) }
}

// WithHostname is the name the server greets with and writes in Received
// headers (NewServer), and the name the Sender gives in EHLO (default: the
// host name).
func WithHostname(name string) Option { return func(o *options) { o.hostname = name } }

// WithTLS enables STARTTLS. NewServer offers it with cfg (which must hold a
// certificate); NewSender requires it, failing with ErrNoTLS when the server
// does not offer it, and verifies the server with cfg (ServerName defaults
// to the host of the server address).
func WithTLS(cfg *tls.Config) Option { return func(o *options) { o.tls = cfg } }

// WithRequireTLS makes NewServer refuse MAIL (530 5.7.0) on a session that
// did not STARTTLS. It needs WithTLS.
func WithRequireTLS() Option { return func(o *options) { o.requireTLS = true } }

// WithAuth makes NewServer offer AUTH PLAIN and LOGIN and require it before
// MAIL (530 5.7.0 otherwise). check reports whether the credentials are
// right (535 5.7.8 otherwise); ctx is Serve's. With WithTLS, AUTH is offered
// only after STARTTLS; without it, AUTH is offered in clear text.
func WithAuth(check func(ctx context.Context, user, pass string) bool) Option {
	return func(o *options) { o.auth = check }
}

// WithMaxMessageBytes bounds a mail's size on NewServer (advertised as
// SIZE; 552 beyond). Default DefaultMaxMessageBytes.
func WithMaxMessageBytes(n int64) Option { return func(o *options) { o.maxMessageBytes = n } }

// WithMaxRecipients bounds the recipients of one mail on NewServer (452
// beyond). Default DefaultMaxRecipients.
func WithMaxRecipients(n int) Option { return func(o *options) { o.maxRecipients = n } }

// WithMaxLineLength bounds a command or data line on NewServer (500 and the
// connection closed beyond). Default DefaultMaxLineLength.
func WithMaxLineLength(n int) Option { return func(o *options) { o.maxLineLength = n } }

// WithMaxSessions bounds NewServer's concurrent sessions (a connection
// beyond is answered 421 and closed) and NewSender's open connections (a
// Send beyond waits for one, within its ctx). Defaults DefaultMaxSessions
// and DefaultMaxConns.
func WithMaxSessions(n int) Option {
	return func(o *options) { o.maxSessions, o.maxConns = n, n }
}

// WithSessionTime bounds the whole life of a session on NewServer: when it
// is over, the session is answered 421 and closed. Default
// DefaultSessionTime.
func WithSessionTime(d time.Duration) Option { return func(o *options) { o.sessionTime = d } }

// WithTimeouts sets NewServer's read timeout (per command, and for the
// data) and write timeout (per reply). Defaults DefaultReadTimeout and
// DefaultWriteTimeout.
func WithTimeouts(read, write time.Duration) Option {
	return func(o *options) { o.readTimeout, o.writeTimeout = read, write }
}

// WithShutdownTimeout is how long Serve, once its ctx is done, waits for
// mails still being received before it cuts their sessions. Default
// DefaultShutdownTimeout.
func WithShutdownTimeout(d time.Duration) Option {
	return func(o *options) { o.shutdownTimeout = d }
}

// WithSyncMode chooses how OpenMaildir's Maildir makes new mails durable:
// SyncJournal (DefaultSyncMode), SyncFiles or SyncFilesystem. In every mode
// a mail's bytes are on disk (in its file, or in the journal) and it is in
// new/ before a delivery returns (before the Server answers 250), so a
// crash after 250 loses nothing; mails delivered at the same time share
// the syncs.
func WithSyncMode(m SyncMode) Option { return func(o *options) { o.syncMode = m } }

// WithPollInterval is how often NewReceiver looks for mail that another
// process delivered (mail delivered by a Server on the same *Maildir is
// noticed at once). Default DefaultPollInterval.
func WithPollInterval(d time.Duration) Option { return func(o *options) { o.poll = d } }

// WithRecoverInterval is how often NewReceiver looks for mails claimed by a
// process that died, to return them to new/. It also looks when it starts.
// Default DefaultRecoverInterval.
func WithRecoverInterval(d time.Duration) Option { return func(o *options) { o.recoverEvery = d } }

// WithArchive makes NewReceiver's Ack move a mail to the done/ folder
// instead of deleting it.
func WithArchive() Option { return func(o *options) { o.archive = true } }

// WithCredentials makes NewSender authenticate with AUTH PLAIN, or AUTH
// LOGIN when the server offers only that.
func WithCredentials(user, pass string) Option {
	return func(o *options) { o.user, o.pass, o.hasCreds = user, pass, true }
}

// WithIdleTimeout is how long NewSender keeps an unused session open for
// reuse. Default DefaultIdleTimeout.
func WithIdleTimeout(d time.Duration) Option { return func(o *options) { o.idleTimeout = d } }

// WithRetry sets how many times NewSender tries a mail that meets a
// temporary (4xx) refusal or a network error, and the first pause between
// tries (doubled each time, with jitter). Defaults DefaultAttempts and
// DefaultBackoff.
func WithRetry(attempts int, backoff time.Duration) Option {
	return func(o *options) { o.attempts, o.backoff = max(attempts, 1), backoff }
}

// WithSubject is the Subject of the mails NewSender writes when a message's
// Meta has no MetaSubject (default: the action, else "SOAP message").
func WithSubject(s string) Option { return func(o *options) { o.subject = s } }
