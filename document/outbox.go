package document

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"sync"

	"github.com/soapwire/soapwire/core"
)

// ErrUnknownScheme is returned when no Sender is registered for an address's
// scheme; nothing was sent.
var ErrUnknownScheme = errors.New("document: no sender for this address scheme")

// ErrNoAddress is returned when a message has no To address.
var ErrNoAddress = errors.New("document: message has no To address")

// Outbox routes a message to the Sender registered for the scheme of its To
// address. It is a core.Sender. The zero Outbox is empty and ready to use.
type Outbox struct {
	mu      sync.RWMutex
	senders map[string]core.Sender
}

var _ core.Sender = (*Outbox)(nil)

// NewOutbox returns an Outbox with the given scheme → Sender routes.
func NewOutbox(routes map[string]core.Sender) *Outbox {
	o := &Outbox{}
	for scheme, s := range routes {
		o.Register(scheme, s)
	}
	return o
}

// Register routes addresses of scheme (without ":", e.g. "mailto") to s.
func (o *Outbox) Register(scheme string, s core.Sender) {
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
	out := make([]string, 0, len(o.senders))
	for s := range o.senders {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// Sender returns the Sender for addr's scheme.
func (o *Outbox) Sender(addr string) (core.Sender, error) {
	scheme, err := Scheme(addr)
	if err != nil {
		return nil, err
	}
	o.mu.RLock()
	defer o.mu.RUnlock()
	s, ok := o.senders[scheme]
	if !ok {
		return nil, fmt.Errorf("%w: %q (have %s)", ErrUnknownScheme, scheme, strings.Join(o.schemesLocked(), ", "))
	}
	return s, nil
}

func (o *Outbox) schemesLocked() []string {
	out := make([]string, 0, len(o.senders))
	for s := range o.senders {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// Send sends m with the Sender for the scheme of m.To.
func (o *Outbox) Send(ctx context.Context, m *core.Message) error {
	if m.To == "" {
		return ErrNoAddress
	}
	s, err := o.Sender(m.To)
	if err != nil {
		return err
	}
	return s.Send(ctx, m)
}

// Scheme returns the lower-cased scheme of an address (http, mailto, ftp,
// nats, …).
func Scheme(addr string) (string, error) {
	u, err := url.Parse(addr)
	if err != nil {
		return "", fmt.Errorf("document: address %q: %w", addr, err)
	}
	if u.Scheme == "" {
		return "", fmt.Errorf("document: address %q has no scheme", addr)
	}
	return strings.ToLower(u.Scheme), nil
}
