package ftp

import (
	"crypto/tls"
	"log/slog"
	"time"

	"github.com/soapwire/soapwire/core"
)

// The options. Each constructor takes its own option type, and an option
// given to a constructor that does not use it does not compile: the type of
// each With* function says where it applies.

// ClientOption configures NewClient.
type ClientOption interface{ applyClient(*clientConfig) }

// SenderOption configures NewSender.
type SenderOption interface{ applySender(*senderConfig) }

// PollerOption configures NewPoller.
type PollerOption interface{ applyPoller(*pollerConfig) }

// ServerOption configures StartServer.
type ServerOption interface{ applyServer(*serverConfig) }

// Option is an option of every constructor of the package (WithLogger).
type Option interface {
	ClientOption
	SenderOption
	PollerOption
	ServerOption
}

// TLSOption is an option of both ends of an FTPS connection: NewClient and
// StartServer (WithTLS).
type TLSOption interface {
	ClientOption
	ServerOption
}

type clientConfig struct {
	log         *slog.Logger
	tls         *tls.Config
	poolSize    int
	dialTimeout time.Duration
	ioTimeout   time.Duration
	disableEPSV bool
}

type senderConfig struct {
	log *slog.Logger
}

type pollerConfig struct {
	log      *slog.Logger
	layout   Layout
	pollMin  time.Duration
	pollMax  time.Duration
	lease    time.Duration
	settle   time.Duration
	limits   core.Limits
	spoolMem int64
	spoolDir string
}

type serverConfig struct {
	log    *slog.Logger
	tls    *tls.Config
	listen string
}

func discard() *slog.Logger { return slog.New(slog.DiscardHandler) }

func newClientConfig(opts []ClientOption) clientConfig {
	c := clientConfig{poolSize: DefaultPoolSize, dialTimeout: DefaultDialTimeout, ioTimeout: DefaultIOTimeout}
	for _, o := range opts {
		o.applyClient(&c)
	}
	if c.log == nil {
		c.log = discard()
	}
	return c
}

func newSenderConfig(opts []SenderOption) senderConfig {
	var c senderConfig
	for _, o := range opts {
		o.applySender(&c)
	}
	if c.log == nil {
		c.log = discard()
	}
	return c
}

func newPollerConfig(opts []PollerOption) pollerConfig {
	c := pollerConfig{
		layout:   DefaultLayout(),
		pollMin:  DefaultPollInterval,
		pollMax:  DefaultMaxPollInterval,
		lease:    DefaultLease,
		settle:   DefaultSettle,
		spoolMem: DefaultSpoolMemory,
	}
	for _, o := range opts {
		o.applyPoller(&c)
	}
	c.pollMax = max(c.pollMax, c.pollMin)
	if c.log == nil {
		c.log = discard()
	}
	return c
}

func newServerConfig(opts []ServerOption) serverConfig {
	c := serverConfig{listen: DefaultListenAddr}
	for _, o := range opts {
		o.applyServer(&c)
	}
	if c.log == nil {
		c.log = discard()
	}
	return c
}

// Options of one constructor each.
type (
	clientOptionFunc func(*clientConfig)
	pollerOptionFunc func(*pollerConfig)
	serverOptionFunc func(*serverConfig)
)

func (f clientOptionFunc) applyClient(c *clientConfig) { f(c) }
func (f pollerOptionFunc) applyPoller(c *pollerConfig) { f(c) }
func (f serverOptionFunc) applyServer(c *serverConfig) { f(c) }

// WithLogger logs what the component decides: reconnects (Client), files
// skipped, parked or returned to the inbox (Poller), failed cleanups
// (Sender), and the embedded server's errors (StartServer). The default
// discards.
func WithLogger(l *slog.Logger) Option { return loggerOption{l} }

type loggerOption struct{ l *slog.Logger }

func (o loggerOption) applyClient(c *clientConfig) { c.log = o.l }
func (o loggerOption) applySender(c *senderConfig) { c.log = o.l }
func (o loggerOption) applyPoller(c *pollerConfig) { c.log = o.l }
func (o loggerOption) applyServer(c *serverConfig) { c.log = o.l }

// WithTLS turns on FTPS with explicit TLS (RFC 4217: AUTH TLS, then PBSZ 0
// and PROT P, so data connections are encrypted too). For a Client, cfg is
// the client configuration (ServerName defaults to the host of the
// Client's address; a session cache is added when cfg has none, for servers
// that require TLS session reuse on data connections). For StartServer, cfg
// holds the server's certificate.
func WithTLS(cfg *tls.Config) TLSOption { return tlsOption{cfg} }

type tlsOption struct{ cfg *tls.Config }

func (o tlsOption) applyClient(c *clientConfig) { c.tls = o.cfg }
func (o tlsOption) applyServer(c *serverConfig) { c.tls = o.cfg }

// DefaultPoolSize is how many control connections a Client keeps.
const DefaultPoolSize = 4

// WithPoolSize sets how many logged-in control connections a Client keeps
// and uses at once (default DefaultPoolSize). Operations beyond it wait for
// a connection.
func WithPoolSize(n int) ClientOption {
	return clientOptionFunc(func(c *clientConfig) {
		if n > 0 {
			c.poolSize = n
		}
	})
}

// DefaultDialTimeout bounds connecting and the greeting.
const DefaultDialTimeout = 10 * time.Second

// WithDialTimeout bounds connecting, the server's greeting and the login
// (default DefaultDialTimeout).
func WithDialTimeout(d time.Duration) ClientOption {
	return clientOptionFunc(func(c *clientConfig) {
		if d > 0 {
			c.dialTimeout = d
		}
	})
}

// DefaultIOTimeout is the longest silence on a connection mid-operation.
const DefaultIOTimeout = 60 * time.Second

// WithIOTimeout bounds how long a connection may stay silent in the middle
// of an operation (default DefaultIOTimeout). It is an idle timeout,
// renewed by every read and write, so large files are not cut off; a ctx
// deadline bounds the whole operation.
func WithIOTimeout(d time.Duration) ClientOption {
	return clientOptionFunc(func(c *clientConfig) {
		if d > 0 {
			c.ioTimeout = d
		}
	})
}

// WithEPSV chooses whether data connections use extended passive mode
// (EPSV, RFC 2428) before falling back to PASV (default true). Turn it off
// for servers behind middleboxes that break EPSV.
func WithEPSV(on bool) ClientOption {
	return clientOptionFunc(func(c *clientConfig) { c.disableEPSV = !on })
}

// WithLayout sets the folder names of a drop endpoint (default
// DefaultLayout).
func WithLayout(l Layout) PollerOption {
	return pollerOptionFunc(func(c *pollerConfig) { c.layout = l })
}

// DefaultPollInterval is the first wait after an empty inbox.
const DefaultPollInterval = 200 * time.Millisecond

// WithPollInterval sets how long the Poller waits after a listing that
// found the inbox empty before it lists again (default
// DefaultPollInterval); the wait doubles after each further empty listing,
// up to WithMaxPollInterval. A listing that finds files is followed by the
// next one at once.
func WithPollInterval(d time.Duration) PollerOption {
	return pollerOptionFunc(func(c *pollerConfig) {
		if d > 0 {
			c.pollMin = d
		}
	})
}

// DefaultMaxPollInterval is the longest wait when the inbox stays empty.
const DefaultMaxPollInterval = time.Second

// WithMaxPollInterval caps the Poller's doubling wait while the inbox
// stays empty (default DefaultMaxPollInterval; a cap below
// WithPollInterval is WithPollInterval: the wait does not grow).
func WithMaxPollInterval(d time.Duration) PollerOption {
	return pollerOptionFunc(func(c *pollerConfig) {
		if d > 0 {
			c.pollMax = d
		}
	})
}

// DefaultSettle is how long a file that looks unfinished must stay
// unchanged.
const DefaultSettle = 2 * time.Second

// WithSettle sets how long a file that looks unfinished must keep its size
// before the Poller takes it as it is (default DefaultSettle). A file looks
// unfinished when it does not end with an Envelope end tag (a MIME file,
// a message with attachments: with its package's closing delimiter):
// empty, cut short, or not an envelope. Such a file may be an upload still running
// under its final name (a partner's tool that does not upload under a
// temporary name and rename), so the Poller returns it to the inbox and
// waits until it stops changing; then it reads it as it is and parks it
// when it is not a message. Whole files are taken at once, whatever this
// says. An upload that stalls for longer than d is taken cut short (and
// parked): give partners who upload under the final name over slow links a
// longer d.
func WithSettle(d time.Duration) PollerOption {
	return pollerOptionFunc(func(c *pollerConfig) {
		if d > 0 {
			c.settle = d
		}
	})
}

// DefaultLease is how long a claim is held without renewal.
const DefaultLease = 2 * time.Minute

// WithLease sets how long a claim stays valid without renewal (default
// DefaultLease). A Poller renews the claims it holds every quarter lease; a
// claim older than the lease (its Poller crashed or lost its server) is
// returned to the inbox by any Poller of the endpoint. The lease must be
// longer than the clock difference between the hosts polling one endpoint.
func WithLease(d time.Duration) PollerOption {
	return pollerOptionFunc(func(c *pollerConfig) {
		if d > 0 {
			c.lease = d
		}
	})
}

// WithLimits bounds what is read from a file (the zero Limits is
// core.DefaultLimits). A plain envelope larger than MaxBytes, or a MIME
// file (a message with attachments) larger than MaxPackageBytes and its
// header, is parked in the failed folder: without being downloaded when
// it is listed larger than both, with the download cut off when its first
// bytes tell its form.
func WithLimits(l core.Limits) PollerOption {
	return pollerOptionFunc(func(c *pollerConfig) { c.limits = l })
}

// DefaultSpoolMemory is how much of a download is held in memory before
// the rest spills to disk.
const DefaultSpoolMemory = 1 << 20

// WithSpool sets where downloads wait for their handler: up to memory bytes
// in memory (default DefaultSpoolMemory), the rest in a temporary file in
// dir (default os.TempDir()), removed when the delivery is settled.
func WithSpool(memory int64, dir string) PollerOption {
	return pollerOptionFunc(func(c *pollerConfig) {
		if memory >= 0 {
			c.spoolMem = memory
		}
		c.spoolDir = dir
	})
}

// DefaultListenAddr is where StartServer listens: a free loopback port.
const DefaultListenAddr = "127.0.0.1:0"

// WithListenAddr sets the address ("host:port"; port 0 picks a free one)
// StartServer listens on (default DefaultListenAddr). Its passive data
// connections listen on the same IP (on every interface only for 0.0.0.0
// or ::).
func WithListenAddr(addr string) ServerOption {
	return serverOptionFunc(func(c *serverConfig) { c.listen = addr })
}
