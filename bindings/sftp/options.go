package sftp

import (
	"log/slog"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/soapwire/soapwire/bindings/internal/drop"
	"github.com/soapwire/soapwire/core"
)

// The options. Each constructor takes its own option type, and an option
// given to a constructor that does not use it does not compile.

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

// AuthOption is an option of both ends of a login: NewClient (log in with
// it) and StartServer (accept it) (WithPassword).
type AuthOption interface {
	ClientOption
	ServerOption
}

type clientConfig struct {
	log         *slog.Logger
	password    *string
	signers     []ssh.Signer
	knownHosts  string
	hostKeys    []ssh.PublicKey
	poolSize    int
	dialTimeout time.Duration
	ioTimeout   time.Duration
	keepAlive   time.Duration
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
	log        *slog.Logger
	listen     string
	password   *string
	authorized []ssh.PublicKey
	hostKey    ssh.Signer
}

func discard() *slog.Logger { return slog.New(slog.DiscardHandler) }

func newClientConfig(opts []ClientOption) clientConfig {
	c := clientConfig{poolSize: DefaultPoolSize, dialTimeout: DefaultDialTimeout, ioTimeout: DefaultIOTimeout, keepAlive: DefaultKeepAlive}
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

type (
	clientOptionFunc func(*clientConfig)
	pollerOptionFunc func(*pollerConfig)
	serverOptionFunc func(*serverConfig)
)

func (f clientOptionFunc) applyClient(c *clientConfig) { f(c) }
func (f pollerOptionFunc) applyPoller(c *pollerConfig) { f(c) }
func (f serverOptionFunc) applyServer(c *serverConfig) { f(c) }

// WithLogger logs what the component decides: reconnects and host key
// refusals (Client), files skipped, quarantined, parked or returned to the
// inbox (Poller), failed cleanups (Sender), and the embedded server's
// refusals (StartServer). The default discards.
func WithLogger(l *slog.Logger) Option { return loggerOption{l} }

type loggerOption struct{ l *slog.Logger }

func (o loggerOption) applyClient(c *clientConfig) { c.log = o.l }
func (o loggerOption) applySender(c *senderConfig) { c.log = o.l }
func (o loggerOption) applyPoller(c *pollerConfig) { c.log = o.l }
func (o loggerOption) applyServer(c *serverConfig) { c.log = o.l }

// WithPassword is the password of the Client's user (password
// authentication), or for StartServer the password its user logs in with.
func WithPassword(password string) AuthOption { return passwordOption{password} }

type passwordOption struct{ p string }

func (o passwordOption) applyClient(c *clientConfig) { c.password = &o.p }
func (o passwordOption) applyServer(c *serverConfig) { c.password = &o.p }

// WithKey adds a private key the Client logs in with (public key
// authentication; tried before a password).
func WithKey(signer ssh.Signer) ClientOption {
	return clientOptionFunc(func(c *clientConfig) { c.signers = append(c.signers, signer) })
}

// WithKnownHosts verifies the server's host key against an OpenSSH
// known_hosts file (default ~/.ssh/known_hosts): a host not in it is
// refused (ErrUnknownHost), a host whose key differs too (ErrHostKey). The
// file is read when the Client connects.
func WithKnownHosts(path string) ClientOption {
	return clientOptionFunc(func(c *clientConfig) { c.knownHosts = path })
}

// WithHostKey pins the server's host key: only this key (of those given,
// one) is accepted, and the known_hosts file is not read.
func WithHostKey(key ssh.PublicKey) ClientOption {
	return clientOptionFunc(func(c *clientConfig) { c.hostKeys = append(c.hostKeys, key) })
}

// DefaultPoolSize is how many SSH connections a Client keeps.
const DefaultPoolSize = 4

// WithPoolSize sets how many SSH connections a Client keeps and uses at
// once (default DefaultPoolSize). Operations beyond it wait for one.
func WithPoolSize(n int) ClientOption {
	return clientOptionFunc(func(c *clientConfig) {
		if n > 0 {
			c.poolSize = n
		}
	})
}

// DefaultDialTimeout bounds connecting, the SSH handshake and the login.
const DefaultDialTimeout = 10 * time.Second

// WithDialTimeout bounds connecting, the SSH handshake, the login and the
// start of the SFTP session (default DefaultDialTimeout).
func WithDialTimeout(d time.Duration) ClientOption {
	return clientOptionFunc(func(c *clientConfig) {
		if d > 0 {
			c.dialTimeout = d
		}
	})
}

// DefaultIOTimeout is the longest silence on a connection mid-operation.
const DefaultIOTimeout = 60 * time.Second

// WithIOTimeout bounds how long the server may stay silent in the middle of
// an operation (default DefaultIOTimeout): renewed by every byte it sends,
// so large files are not cut off; a ctx deadline bounds the whole
// operation. A download silent this long is cut off and its file returned
// to the inbox.
func WithIOTimeout(d time.Duration) ClientOption {
	return clientOptionFunc(func(c *clientConfig) {
		if d > 0 {
			c.ioTimeout = d
		}
	})
}

// DefaultKeepAlive is how often an SSH connection proves it is alive.
const DefaultKeepAlive = 15 * time.Second

// WithKeepAlive sets how often each connection sends a keepalive request
// (keepalive@openssh.com, default DefaultKeepAlive): it keeps firewalls and
// NAT from dropping idle connections, and a connection whose server does
// not answer within the dial timeout is dropped.
func WithKeepAlive(d time.Duration) ClientOption {
	return clientOptionFunc(func(c *clientConfig) {
		if d > 0 {
			c.keepAlive = d
		}
	})
}

// Layout names the folders of a drop endpoint: Inbox ("inbox"), Work
// ("work"), Outbox ("outbox"; "" for none), Failed ("failed"), Done ("":
// delete) and Quarantine ("quarantine"; "" leaves odd files in the inbox).
// See docs/bindings/file-drops.md.
type Layout = drop.Layout

// DefaultLayout returns inbox, work, outbox, failed and quarantine, and no
// done folder.
func DefaultLayout() Layout { return drop.DefaultLayout() }

// WithLayout sets the folder names of a drop endpoint (default
// DefaultLayout).
func WithLayout(l Layout) PollerOption {
	return pollerOptionFunc(func(c *pollerConfig) { c.layout = l })
}

// DefaultPollInterval is the first wait after an empty inbox.
const DefaultPollInterval = drop.DefaultPollInterval

// WithPollInterval sets how long the Poller waits after a listing that
// found the inbox empty (default DefaultPollInterval); the wait doubles
// after each further empty listing, up to WithMaxPollInterval.
func WithPollInterval(d time.Duration) PollerOption {
	return pollerOptionFunc(func(c *pollerConfig) {
		if d > 0 {
			c.pollMin = d
		}
	})
}

// DefaultMaxPollInterval is the longest wait when the inbox stays empty.
const DefaultMaxPollInterval = drop.DefaultMaxPollInterval

// WithMaxPollInterval caps the Poller's doubling wait while the inbox
// stays empty (default DefaultMaxPollInterval).
func WithMaxPollInterval(d time.Duration) PollerOption {
	return pollerOptionFunc(func(c *pollerConfig) {
		if d > 0 {
			c.pollMax = d
		}
	})
}

// DefaultSettle is how long a file that looks unfinished must stay
// unchanged.
const DefaultSettle = drop.DefaultSettle

// WithSettle sets how long a file that looks unfinished must keep its size
// and modification time before the Poller takes it as it is (default
// DefaultSettle).
func WithSettle(d time.Duration) PollerOption {
	return pollerOptionFunc(func(c *pollerConfig) {
		if d > 0 {
			c.settle = d
		}
	})
}

// DefaultLease is how long a claim is held without renewal.
const DefaultLease = drop.DefaultLease

// WithLease sets how long a claim stays valid without renewal (default
// DefaultLease).
func WithLease(d time.Duration) PollerOption {
	return pollerOptionFunc(func(c *pollerConfig) {
		if d > 0 {
			c.lease = d
		}
	})
}

// WithLimits bounds what is read from a file (the zero Limits is
// core.DefaultLimits): a plain envelope within MaxBytes, a MIME file (a
// message with attachments) within MaxPackageBytes and its header.
func WithLimits(l core.Limits) PollerOption {
	return pollerOptionFunc(func(c *pollerConfig) { c.limits = l })
}

// DefaultSpoolMemory is how much of a download is held in memory before
// the rest spills to disk.
const DefaultSpoolMemory = drop.DefaultSpoolMemory

// WithSpool sets where downloads wait for their handler: up to memory bytes
// in memory (default DefaultSpoolMemory), the rest in a temporary file in
// dir (default os.TempDir()).
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
// StartServer listens on (default DefaultListenAddr).
func WithListenAddr(addr string) ServerOption {
	return serverOptionFunc(func(c *serverConfig) { c.listen = addr })
}

// WithAuthorizedKey lets StartServer's user log in with the private key of
// pub (public key authentication).
func WithAuthorizedKey(pub ssh.PublicKey) ServerOption {
	return serverOptionFunc(func(c *serverConfig) { c.authorized = append(c.authorized, pub) })
}

// WithServerKey sets the embedded server's host key (default: a fresh
// Ed25519 key; Server.HostKey returns it for clients to pin).
func WithServerKey(signer ssh.Signer) ServerOption {
	return serverOptionFunc(func(c *serverConfig) { c.hostKey = signer })
}
