package http

import (
	"fmt"
	"net"
	"time"
)

// ContentTypeOf is what the handler reads from a Content-Type header, as
// a string, by the fast path and by the MIME parser: fast is "" when the
// fast path does not know the value.
func ContentTypeOf(h string) (fast, parsed string) {
	show := func(ct contentType, ok bool) string {
		return fmt.Sprintf("%+v %v", ct, ok)
	}
	if ct, ok := commonContentType(h); ok {
		fast = show(ct, true)
	}
	return fast, show(parseMediaType(h))
}

// TransportTimeout is t's WithTimeout bound (<= 0: none).
func TransportTimeout(t *Transport) time.Duration { return t.o.timeout }

// WithResolver makes the Transport resolve the host names of the answers
// it checks where they connect with r.
func WithResolver(r *net.Resolver) TransportOption {
	return transportOptionFunc(func(c *transportConfig) { c.resolver = r })
}

// WithLogInterval sets the least time between two refusal lines of a kind
// (negative: every line is written).
func WithLogInterval(d time.Duration) HandlerOption {
	return handlerOptionFunc(func(c *handlerConfig) { c.logInterval = d })
}
