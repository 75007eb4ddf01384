package core

import (
	"context"
	"encoding/xml"
	"sync"
)

// Handler is the one shape of business logic, processing stages and
// wiring. A nil reply with a nil error means accepted, no reply (one-way).
// An error is a fault: a *Fault as it is, any other error a Receiver fault
// that does not reveal the error's text (see FaultOf).
type Handler interface {
	ServeSOAP(ctx context.Context, m *Message) (*Message, error)
}

// HandlerFunc adapts a function to Handler.
type HandlerFunc func(ctx context.Context, m *Message) (*Message, error)

// ServeSOAP calls f.
func (f HandlerFunc) ServeSOAP(ctx context.Context, m *Message) (*Message, error) { return f(ctx, m) }

// Middleware wraps a Handler.
type Middleware func(Handler) Handler

// Chain wraps h in mw, the first outermost: Chain(h, a, b) is a(b(h)).
func Chain(h Handler, mw ...Middleware) Handler {
	for i := len(mw) - 1; i >= 0; i-- {
		h = mw[i](h)
	}
	return h
}

// Route selects messages for a Mux: a zero field matches anything.
type Route struct {
	Name   xml.Name // the body's first child
	Action string
}

// Mux routes on the body's first child's name, then on the action: it tries
// (name, action), (name, any action), then (any name, action). A message no
// route matches is a Sender fault naming what was asked. The zero Mux is
// empty and ready to use.
type Mux struct {
	mu     sync.RWMutex
	routes map[Route]Handler
}

// Handle registers h for r. It panics on a duplicate or an all-zero route
// (a programmer error at setup).
func (mx *Mux) Handle(r Route, h Handler) {
	if r == (Route{}) {
		panic("core: Mux.Handle with an empty route")
	}
	mx.mu.Lock()
	defer mx.mu.Unlock()
	if mx.routes == nil {
		mx.routes = make(map[Route]Handler)
	}
	if _, dup := mx.routes[r]; dup {
		panic("core: Mux.Handle: duplicate route " + qnameString(r.Name) + " " + r.Action)
	}
	mx.routes[r] = h
}

// HandleFunc registers a function for r.
func (mx *Mux) HandleFunc(r Route, f func(ctx context.Context, m *Message) (*Message, error)) {
	mx.Handle(r, HandlerFunc(f))
}

// Handler returns the handler for m, or nil.
func (mx *Mux) Handler(m *Message) Handler {
	name := m.Body().Name()
	mx.mu.RLock()
	defer mx.mu.RUnlock()
	for _, r := range [...]Route{{name, m.Action}, {name, ""}, {xml.Name{}, m.Action}} {
		if r == (Route{}) {
			continue
		}
		if h, ok := mx.routes[r]; ok {
			return h
		}
	}
	return nil
}

// ServeSOAP dispatches m.
func (mx *Mux) ServeSOAP(ctx context.Context, m *Message) (*Message, error) {
	h := mx.Handler(m)
	if h == nil {
		name := m.Body().Name()
		if m.Action != "" {
			return nil, &Fault{Code: CodeSender, Version: m.Version(), Reason: "no handler for body element " + qnameString(name) + " with action " + m.Action}
		}
		return nil, &Fault{Code: CodeSender, Version: m.Version(), Reason: "no handler for body element " + qnameString(name)}
	}
	return h.ServeSOAP(ctx, m)
}
