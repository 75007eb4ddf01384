package document

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/soapwire/soapwire/core"
)

// Outbox routes a message to the Sender registered for the scheme of its To
// address ("mailto" → an SMTP sender, "ftp" → a file-drop sender, …). It is
// a core.Sender, safe for concurrent use. The zero Outbox is empty and ready
// to use.
type Outbox struct {
	mu      sync.RWMutex
	senders map[string]core.Sender
}

var (
	_ core.Sender         = (*Outbox)(nil)
	_ core.AddressChecker = (*Outbox)(nil)
)

// NewOutbox returns an Outbox with the given scheme → Sender routes.
func NewOutbox(routes map[string]core.Sender) *Outbox {
	o := &Outbox{}
	for scheme, s := range routes {
		o.Register(scheme, s)
	}
	return o
}

// Register routes addresses of scheme (without ":", e.g. "mailto";
// case-insensitive) to s. It panics on an empty scheme or a nil Sender
// (programmer errors at setup).
func (o *Outbox) Register(scheme string, s core.Sender) {
	if scheme == "" || s == nil {
		panic("document: Outbox.Register with an empty scheme or a nil Sender")
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.senders == nil {
		o.senders = make(map[string]core.Sender)
	}
	o.senders[strings.ToLower(scheme)] = s
}

// Schemes returns the registered schemes, sorted.
func (o *Outbox) Schemes() []string {
	o.mu.RLock()
	defer o.mu.RUnlock()
	return o.schemesLocked()
}

// Has reports whether a Sender is registered for scheme.
func (o *Outbox) Has(scheme string) bool {
	o.mu.RLock()
	defer o.mu.RUnlock()
	_, ok := o.senders[strings.ToLower(scheme)]
	return ok
}

func (o *Outbox) schemesLocked() []string {
	out := make([]string, 0, len(o.senders))
	for s := range o.senders {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// Sender returns the Sender for addr's scheme, or an error wrapping
// ErrUnknownScheme (or ErrNoAddress for "", anonymous and none).
func (o *Outbox) Sender(addr string) (core.Sender, error) {
	if addr == "" || addr == core.AnonymousAddress || addr == core.NoneAddress {
		return nil, fmt.Errorf("%w: %q", ErrNoAddress, addr)
	}
	scheme, err := Scheme(addr)
	if err != nil {
		return nil, err
	}
	o.mu.RLock()
	defer o.mu.RUnlock()
	s, ok := o.senders[scheme]
	if !ok {
		return nil, fmt.Errorf("%w: %q in %q (have: %s)", ErrUnknownScheme, scheme, addr, strings.Join(o.schemesLocked(), ", "))
	}
	return s, nil
}

// CheckAddress reports whether the Outbox can send to addr: a Sender is
// registered for its scheme (else an error wrapping ErrUnknownScheme, or
// ErrNoAddress for "", anonymous and none) and, when that Sender is a
// core.AddressChecker, it can reach addr. core.Serve and Handler ask it
// about a request's ReplyTo and FaultTo before anything runs.
func (o *Outbox) CheckAddress(addr string) error {
	s, err := o.Sender(addr)
	if err != nil {
		return err
	}
	if c, ok := s.(core.AddressChecker); ok {
		return c.CheckAddress(addr)
	}
	return nil
}

// Send sends m with the Sender for the scheme of m.To. An address without a
// Sender is an error (ErrUnknownScheme) and nothing is sent.
func (o *Outbox) Send(ctx context.Context, m *core.Message) error {
	s, err := o.Sender(m.To)
	if err != nil {
		return err
	}
	return s.Send(ctx, m)
}

// Scheme returns the lower-cased scheme of an absolute address (http,
// mailto, ftp, nats, …): the letters, digits, "+", "-" and "." before the
// first ":", starting with a letter (RFC 3986 §3.1).
func Scheme(addr string) (string, error) {
	for i := 0; i < len(addr); i++ {
		c := addr[i]
		switch {
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		case i > 0 && c == ':':
			return strings.ToLower(addr[:i]), nil
		default:
			return "", fmt.Errorf("%w: %q has no scheme", ErrUnknownScheme, addr)
		}
	}
	return "", fmt.Errorf("%w: %q has no scheme", ErrUnknownScheme, addr)
}
