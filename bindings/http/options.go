package http

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/soapwire/soapwire/core"
)

// HandlerOption configures NewHandler.
type HandlerOption interface{ applyHandler(*handlerConfig) }

// TransportOption configures NewTransport.
type TransportOption interface{ applyTransport(*transportConfig) }

// ServerOption configures NewServer.
type ServerOption interface{ applyServer(*serverConfig) }

// ReadOption is an option of the constructors that read envelopes:
// NewHandler (requests) and NewTransport (replies).
type ReadOption interface {
	HandlerOption
	TransportOption
}

// LogOption is an option of the constructors that log: NewHandler and
// NewServer.
type LogOption interface {
	HandlerOption
	ServerOption
}

type handlerConfig struct {
	limits    core.Limits
	log       *slog.Logger
	auth      *basicAuth // built from check and realm; nil: no authentication
	check     func(ctx context.Context, user, pass string) bool
	realm     string
	get       GetFunc
	describer Describer
	publicURL string
	// optionalCT: a POST without a Content-Type is read (the envelope
	// decides the version) instead of refused with 415
	optionalCT bool
	// the request body's pace: bodyTimeout < 0 switches it off; minRate
	// < 0: none (a bound on silence)
	bodyTimeout time.Duration
	minRate     int
	// logInterval: refusal lines of a kind at most once per it (0:
	// DefaultLogInterval; < 0: every line). Set by tests only.
	logInterval time.Duration
}

type transportConfig struct {
	limits  core.Limits
	timeout time.Duration // <= 0: no bound
	client  *http.Client
	user    string
	pass    string
	hasUser bool
	// resolver resolves the names of checked answers (answerdial.go);
	// nil: the system's. Set by tests only.
	resolver *net.Resolver
}

type serverConfig struct {
	log *slog.Logger
}

func newHandlerConfig(opts []HandlerOption) handlerConfig {
	c := handlerConfig{realm: DefaultRealm, bodyTimeout: DefaultBodyTimeout, minRate: DefaultMinBodyRate}
	for _, o := range opts {
		o.applyHandler(&c)
	}
	c.log = orDiscard(c.log)
	if c.check != nil {
		c.auth = &basicAuth{realm: c.realm, check: c.check}
	}
	return c
}

func newTransportConfig(opts []TransportOption) transportConfig {
	c := transportConfig{timeout: DefaultTimeout}
	for _, o := range opts {
		o.applyTransport(&c)
	}
	return c
}

func newServerConfig(opts []ServerOption) serverConfig {
	c := serverConfig{}
	for _, o := range opts {
		o.applyServer(&c)
	}
	c.log = orDiscard(c.log)
	return c
}

func orDiscard(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.New(slog.DiscardHandler)
	}
	return l
}

type handlerOptionFunc func(*handlerConfig)

func (f handlerOptionFunc) applyHandler(c *handlerConfig) { f(c) }

type transportOptionFunc func(*transportConfig)

func (f transportOptionFunc) applyTransport(c *transportConfig) { f(c) }

type limitsOption struct{ l core.Limits }

func (o limitsOption) applyHandler(c *handlerConfig)     { c.limits = o.l }
func (o limitsOption) applyTransport(c *transportConfig) { c.limits = o.l }

// WithLimits bounds what is read: a handler's request envelopes or a
// transport's reply envelopes. The zero Limits is core.DefaultLimits.
func WithLimits(l core.Limits) ReadOption { return limitsOption{l} }

type loggerOption struct{ l *slog.Logger }

func (o loggerOption) applyHandler(c *handlerConfig) { c.log = o.l }
func (o loggerOption) applyServer(c *serverConfig)   { c.log = o.l }

// WithLogger logs a handler's refusals, panics and write failures, and a
// server's net/http errors. The default discards.
func WithLogger(l *slog.Logger) LogOption { return loggerOption{l} }

// WithAuth makes the handler require HTTP Basic authentication on every
// request: check is called with the decoded user name and password and
// reports whether they are right. Missing, malformed or rejected
// credentials are answered 401 with WWW-Authenticate: Basic realm= the
// realm (DefaultRealm, or WithRealm's). The authenticated user is available
// to handlers through UserFromContext and in the Meta key "http.user".
// StaticCredentials is a ready-made check.
func WithAuth(check func(ctx context.Context, user, pass string) bool) HandlerOption {
	return handlerOptionFunc(func(c *handlerConfig) { c.check = check })
}

// DefaultRealm is the realm of WithAuth's challenge unless WithRealm sets
// another.
const DefaultRealm = "soapwire"

// WithRealm sets the realm of WithAuth's challenge (default DefaultRealm;
// "" keeps it). Without WithAuth it changes nothing.
func WithRealm(realm string) HandlerOption {
	return handlerOptionFunc(func(c *handlerConfig) {
		if realm != "" {
			c.realm = realm
		}
	})
}

// GetFunc answers a GET request (the SOAP 1.2 SOAP Response MEP): it returns
// an envelope whose body holds the representation of the resource at r's
// URL. A nil message with a nil error is answered 404. A message of the zero
// Version is written in SOAP 1.2 unless the request's Accept header prefers
// text/xml.
type GetFunc func(ctx context.Context, r *http.Request) (*core.Message, error)

// WithGet makes the handler answer GET requests with fn (besides "?wsdl").
func WithGet(fn GetFunc) HandlerOption {
	return handlerOptionFunc(func(c *handlerConfig) { c.get = fn })
}

// WithDescriber makes the handler answer "GET ?wsdl" with d's WSDL. It is
// only needed when the handler given to NewHandler is not itself a
// Describer (it wraps one, in a Node or a middleware chain).
func WithDescriber(d Describer) HandlerOption {
	return handlerOptionFunc(func(c *handlerConfig) { c.describer = d })
}

// WithPublicURL sets the base of the service address written into `?wsdl`:
// the address becomes base followed by the request's path, instead of the
// scheme and Host the request arrived with. Use it behind a reverse proxy
// that terminates TLS or rewrites the host, e.g.
// WithPublicURL("https://soap.example.org"); when the proxy strips a path
// prefix, include it: "https://example.org/soap". The request's own headers
// (X-Forwarded-*) are never trusted for this.
func WithPublicURL(base string) HandlerOption {
	return handlerOptionFunc(func(c *handlerConfig) { c.publicURL = strings.TrimSuffix(base, "/") })
}

// WithContentTypeOptional makes the handler read a POST that has no
// Content-Type (the envelope's namespace decides the version) instead of
// refusing it with 415, as it does by default. The refusal is a defence
// against cross-site request forgery: a POST without a Content-Type is the
// one way a web page can send an envelope as it is to another origin
// without the browser asking that origin first (a CORS preflight), so a
// hostile page visited by someone inside the network could otherwise drive
// an intranet service. Use it only for clients that cannot send a
// Content-Type, on a service no browser can reach.
func WithContentTypeOptional() HandlerOption {
	return handlerOptionFunc(func(c *handlerConfig) { c.optionalCT = true })
}

// DefaultBodyTimeout is how long a request body has, once its headers are
// read, to bring its first MinBodyRate × BodyTimeout bytes, and then each
// next as many (WithBodyTimeout, WithMinBodyRate).
const DefaultBodyTimeout = 20 * time.Second

// WithBodyTimeout bounds how long the handler waits for a request body
// (default DefaultBodyTimeout): the body has d from the end of its headers
// to bring its first WithMinBodyRate × d bytes (or to end), and d more for
// each further as many. A body that stops, or arrives slower than the rate,
// is therefore cut at most d after the last such stretch it completed (d
// after its headers when it sent too little from the start), and answered
// 408 with a Sender fault. The bound is the connection's read deadline
// (http.ResponseController), moved forward as the body arrives; it never
// goes past the server's ReadTimeout, counted from when the handler starts,
// which stays the bound on the whole body. 0 keeps the default; a negative
// d switches the bound off (a ResponseWriter that cannot set deadlines,
// such as httptest's recorder, has none either).
func WithBodyTimeout(d time.Duration) HandlerOption {
	return handlerOptionFunc(func(c *handlerConfig) {
		if d != 0 {
			c.bodyTimeout = d
		}
	})
}

// DefaultMinBodyRate is the slowest a request body may arrive, in bytes per
// second over each WithBodyTimeout: 500 bytes/s, 10,000 bytes in each 20 s.
const DefaultMinBodyRate = 500

// WithMinBodyRate sets the slowest a request body may arrive, in bytes per
// second (default DefaultMinBodyRate), measured over each WithBodyTimeout
// (see there). 0 keeps the default; a negative rate removes it, leaving a
// bound on silence: any byte earns the body another WithBodyTimeout.
func WithMinBodyRate(bytesPerSecond int) HandlerOption {
	return handlerOptionFunc(func(c *handlerConfig) {
		if bytesPerSecond != 0 {
			c.minRate = bytesPerSecond
		}
	})
}

// WithClient makes the transport send through hc instead of its own client
// (whose connection pool keeps up to 64 idle connections to the host).
func WithClient(hc *http.Client) TransportOption {
	return transportOptionFunc(func(c *transportConfig) { c.client = hc })
}

// DefaultTimeout bounds a call whose ctx has no deadline by its progress
// (WithTimeout).
const DefaultTimeout = 60 * time.Second

// WithTimeout bounds a call whose ctx has no deadline (default
// DefaultTimeout), so a server that stops answering never hangs a caller.
// The bound is on progress, so a large document streams as long as it
// moves: the call fails when d passes without the reply's headers (counted
// from the start, or from the last 64 KiB a streamed request handed to the
// connection), and then when the reply's body waits d for its next 64 KiB
// (or its end); only the time a read of the body waits counts, not the
// caller's own between reads. The error has context.DeadlineExceeded in its
// chain, and the connection is closed. A ctx with a deadline is the bound
// instead. 0 keeps the default; a negative d switches the bound off.
func WithTimeout(d time.Duration) TransportOption {
	return transportOptionFunc(func(c *transportConfig) {
		if d != 0 {
			c.timeout = d
		}
	})
}

// WithCredentials makes the transport send HTTP Basic credentials.
func WithCredentials(user, pass string) TransportOption {
	return transportOptionFunc(func(c *transportConfig) { c.user, c.pass, c.hasUser = user, pass, true })
}
