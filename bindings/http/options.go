package http

import (
	"context"
	"log/slog"
	"net/http"
	"strings"

	"github.com/soapwire/soapwire/core"
)

// Option configures NewHandler, NewServer or NewTransport. Each option says
// which of them it applies to; the others ignore it.
type Option func(*options)

type options struct {
	limits    core.Limits
	log       *slog.Logger
	auth      *basicAuth
	get       GetFunc
	describer Describer
	publicURL string
	client    *http.Client
	user      string
	pass      string
	hasUser   bool
}

func newOptions(opts []Option) options {
	o := options{}
	for _, fn := range opts {
		fn(&o)
	}
	if o.log == nil {
		o.log = slog.New(slog.DiscardHandler)
	}
	return o
}

// WithLimits bounds what is read: the request envelope (NewHandler) or the
// reply envelope (NewTransport). The zero Limits is core.DefaultLimits.
func WithLimits(l core.Limits) Option { return func(o *options) { o.limits = l } }

// WithLogger logs refusals, handler panics and write failures (NewHandler)
// and net/http's own errors (NewServer). The default discards.
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.log = l } }

// WithBasicAuth makes NewHandler require HTTP Basic authentication on every
// request: check is called with the decoded user name and password and
// reports whether they are right. Missing, malformed or rejected credentials
// are answered 401 with WWW-Authenticate: Basic realm="realm". The
// authenticated user is available to handlers through UserFromContext and
// in the Meta key "http.user". StaticCredentials is a ready-made check.
func WithBasicAuth(realm string, check func(ctx context.Context, user, pass string) bool) Option {
	return func(o *options) { o.auth = &basicAuth{realm: realm, check: check} }
}

// GetFunc answers a GET request (the SOAP 1.2 SOAP Response MEP): it returns
// an envelope whose body holds the representation of the resource at r's
// URL. A nil message with a nil error is answered 404. A message of the zero
// Version is written in SOAP 1.2 unless the request's Accept header prefers
// text/xml.
type GetFunc func(ctx context.Context, r *http.Request) (*core.Message, error)

// WithGet makes NewHandler answer GET requests with fn (besides "?wsdl").
func WithGet(fn GetFunc) Option { return func(o *options) { o.get = fn } }

// WithDescriber makes NewHandler answer "GET ?wsdl" with d's WSDL. It is only
// needed when the handler given to NewHandler is not itself a Describer (it
// wraps one, in a Node or a middleware chain).
func WithDescriber(d Describer) Option { return func(o *options) { o.describer = d } }

// WithPublicURL sets the base of the service address written into `?wsdl`
// (NewHandler): the address becomes base followed by the request's path,
// instead of the scheme and Host the request arrived with. Use it behind a
// reverse proxy that terminates TLS or rewrites the host, e.g.
// WithPublicURL("https://soap.example.org"); when the proxy strips a path
// prefix, include it: "https://example.org/soap". The request's own headers
// (X-Forwarded-*) are never trusted for this.
func WithPublicURL(base string) Option {
	return func(o *options) { o.publicURL = strings.TrimSuffix(base, "/") }
}

// WithClient makes NewTransport send through c instead of its own client
// (whose connection pool keeps up to 64 idle connections to the host).
func WithClient(c *http.Client) Option { return func(o *options) { o.client = c } }

// WithCredentials makes NewTransport send HTTP Basic credentials.
func WithCredentials(user, pass string) Option {
	return func(o *options) { o.user, o.pass, o.hasUser = user, pass, true }
}
