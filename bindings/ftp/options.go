package ftp

import (
	"crypto/tls"
	"log/slog"
	"time"

	"github.com/soapwire/soapwire/core"
)

// Defaults of the options.
const (
	DefaultPoolSize     = 4                      // control connections a Client keeps
	DefaultDialTimeout  = 10 * time.Second       // connect and greeting
	DefaultIOTimeout    = 60 * time.Second       // longest silence on a connection mid-operation
	DefaultPollInterval = 200 * time.Millisecond // first wait after an empty inbox
	DefaultMaxInterval  = time.Second            // longest wait when the inbox stays empty
	DefaultLease        = 2 * time.Minute        // how long a claim is held without renewal
	DefaultSettle       = 2 * time.Second        // how long a file that looks unfinished must stay unchanged
	DefaultSpoolMemory  = 1 << 20                // bytes of a download held in memory before spilling to disk
)

// Option configures NewClient, NewSender, NewPoller or StartServer. Each
// option says which of them it applies to; the others ignore it.
type Option func(*options)

type options struct {
	log         *slog.Logger
	tls         *tls.Config
	poolSize    int
	dialTimeout time.Duration
	ioTimeout   time.Duration
	disableEPSV bool
	layout      Layout
	pollMin     time.Duration
	pollMax     time.Duration
	lease       time.Duration
	settle      time.Duration
	limits      core.Limits
	spoolMem    int64
	spoolDir    string
	listen      string
}

func newOptions(opts []Option) options {
	o := options{
		poolSize:    DefaultPoolSize,
		dialTimeout: DefaultDialTimeout,
		ioTimeout:   DefaultIOTimeout,
		layout:      DefaultLayout(),
		pollMin:     DefaultPollInterval,
		pollMax:     DefaultMaxInterval,
		lease:       DefaultLease,
		settle:      DefaultSettle,
		spoolMem:    DefaultSpoolMemory,
		listen:      "127.0.0.1:0",
	}
	for _, fn := range opts {
		fn(&o)
	}
	if o.log == nil {
		o.log = slog.New(slog.DiscardHandler)
	}
	return o
}

// WithLogger logs what the component decides: reconnects (Client), files
// skipped, parked or returned to the inbox (Poller), failed cleanups
// (Sender), and the embedded server's errors (StartServer). The default
// discards.
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.log = l } }

// WithTLS turns on FTPS with explicit TLS (RFC 4217: AUTH TLS, then PBSZ 0
// and PROT P, so data connections are encrypted too). For NewClient, cfg is
// the client configuration (ServerName defaults to the host of the
// Client's address; a session cache is added when cfg has none, for servers
// that require TLS session reuse on data connections). For StartServer, cfg
// holds the server's certificate.
func WithTLS(cfg *tls.Config) Option { return func(o *options) { o.tls = cfg } }

// WithPoolSize sets how many logged-in control connections a Client keeps
// and uses at once (NewClient; default DefaultPoolSize). Operations beyond
// it wait for a connection.
func WithPoolSize(n int) Option {
	return func(o *options) {
		if n > 0 {
			o.poolSize = n
		}
	}
}

// WithDialTimeout bounds connecting, the server's greeting and the login
// (NewClient; default DefaultDialTimeout).
func WithDialTimeout(d time.Duration) Option {
	return func(o *options) {
		if d > 0 {
			o.dialTimeout = d
		}
	}
}

// WithIOTimeout bounds how long a connection may stay silent in the middle
// of an operation (NewClient; default DefaultIOTimeout). It is an idle
// timeout, renewed by every read and write, so large files are not cut
// off; a ctx deadline bounds the whole operation.
func WithIOTimeout(d time.Duration) Option {
	return func(o *options) {
		if d > 0 {
			o.ioTimeout = d
		}
	}
}

// WithEPSV chooses whether data connections use extended passive mode
// (EPSV, RFC 2428) before falling back to PASV (NewClient; default true).
// Turn it off for servers behind middleboxes that break EPSV.
func WithEPSV(on bool) Option { return func(o *options) { o.disableEPSV = !on } }

// WithLayout sets the folder names of a drop endpoint (NewPoller; default
// DefaultLayout).
func WithLayout(l Layout) Option { return func(o *options) { o.layout = l } }

// WithPollInterval sets how often an empty inbox is listed (NewPoller):
// first after every, then doubling after each empty listing up to limit
// (defaults DefaultPollInterval and DefaultMaxInterval). A listing that
// finds files is followed by the next one at once.
func WithPollInterval(every, limit time.Duration) Option {
	return func(o *options) {
		if every > 0 {
			o.pollMin = every
		}
		o.pollMax = max(limit, o.pollMin)
	}
}

// WithSettle sets how long a file that looks unfinished must keep its size
// before the Poller takes it as it is (NewPoller; default DefaultSettle). A
// file looks unfinished when it does not end with an Envelope end tag:
// empty, cut short, or not an envelope. Such a file may be an upload still
// running under its final name (a partner's tool that does not upload
// under a temporary name and rename), so the Poller returns it to the inbox
// and waits until it stops changing; then it reads it as it is and parks
// it when it is not a message. Whole files are taken at once, whatever
// this says. An upload that stalls for longer than d is taken cut short
// (and parked): give partners who upload under the final name over slow
// links a longer d.
func WithSettle(d time.Duration) Option {
	return func(o *options) {
		if d > 0 {
			o.settle = d
		}
	}
}

// WithLease sets how long a claim stays valid without renewal (NewPoller;
// default DefaultLease). A Poller renews the claims it holds every quarter
// lease; a claim older than the lease (its Poller crashed or lost its
// server) is returned to the inbox by any Poller of the endpoint. The lease
// must be longer than the clock difference between the hosts polling one
// endpoint.
func WithLease(d time.Duration) Option {
	return func(o *options) {
		if d > 0 {
			o.lease = d
		}
	}
}

// WithLimits bounds what is read from a file (NewPoller; the zero Limits is
// core.DefaultLimits). A file larger than MaxBytes is parked in the failed
// folder without being downloaded.
func WithLimits(l core.Limits) Option { return func(o *options) { o.limits = l } }

// WithSpool sets where downloads wait for their handler (NewPoller): up to
// memory bytes in memory (default DefaultSpoolMemory), the rest in a
// temporary file in dir (default os.TempDir()), removed when the delivery is
// settled.
func WithSpool(memory int64, dir string) Option {
	return func(o *options) {
		if memory >= 0 {
			o.spoolMem = memory
		}
		o.spoolDir = dir
	}
}

// WithListenAddr sets the address StartServer listens on (default
// 127.0.0.1:0, a free loopback port). Its passive data connections listen
// on the same IP (on every interface only for 0.0.0.0 or ::).
func WithListenAddr(addr string) Option { return func(o *options) { o.listen = addr } }
