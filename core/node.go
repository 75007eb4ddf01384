package core

import (
	"context"
	"encoding/xml"
	"fmt"
	"log/slog"
	"strings"
)

// HeaderFunc processes one header block targeted at a Node. Registering one
// for a block's name is how a Node understands the block. It may return a
// new context (to hand what it learned to later stages, e.g. an identity) and
// may add blocks to m.Envelope.Headers (an intermediary inserting blocks for
// the next hop). An error stops processing and becomes a fault.
type HeaderFunc func(ctx context.Context, m *Message, b *HeaderBlock) (context.Context, error)

// Node is the SOAP processing model (SOAP 1.2 Part 1 §2.6, SOAP 1.1 §4.2).
// ServeSOAP does, in order:
//  1. (the version was checked when the envelope was read);
//  2. targeting: a block is for this node if its role is next, one of Roles,
//     or "" / ultimateReceiver when the node is not an intermediary; none is
//     never for anyone;
//  3. the mustUnderstand gate: every targeted block marked mustUnderstand
//     with no HeaderFunc makes a MustUnderstand fault, before anything runs;
//  4. the HeaderFuncs of targeted blocks, in document order;
//  5. an intermediary removes the blocks it processed and the targeted ones it
//     did not (unless 1.2 relay is set), keeps what HeaderFuncs inserted, and
//     forwards the message through Next, returning its reply;
//  6. the ultimate receiver calls Handler.
//
// A fault raised by a node that has a URI carries it as Node (1.1
// faultactor); a fault from further down the path comes back as it is.
type Node struct {
	URI          string   // this node's identity: the Node / faultactor of its faults
	Roles        []string // roles played besides next (and ultimateReceiver for a receiver)
	Intermediary bool
	Headers      map[xml.Name]HeaderFunc
	Handler      Handler      // ultimate receiver: the body handler
	Next         RoundTripper // intermediary: where messages go on
	Logger       *slog.Logger // nil discards
}

// Targets reports whether a block with this role is for the node.
func (n *Node) Targets(role string) bool {
	switch role {
	case "", RoleUltimateReceiver:
		return !n.Intermediary
	case RoleNone:
		return false
	case RoleNext, RoleNextV11:
		return true
	}
	for _, r := range n.Roles {
		if r == role {
			return true
		}
	}
	return false
}

// ServeSOAP processes m as described on Node.
func (n *Node) ServeSOAP(ctx context.Context, m *Message) (*Message, error) {
	env := m.Envelope
	if env == nil {
		return nil, SenderFault("no envelope")
	}
	v := env.Version
	// the state of each block, and the HeaderFunc of the first ones found
	// while checking (looked up again beyond len(fns))
	var small [16]uint8
	var fns [8]HeaderFunc
	state := small[:0]
	if len(env.Headers) > len(small) {
		state = make([]uint8, 0, len(env.Headers))
	}
	const targeted, processed = 1, 2
	var missing []xml.Name
	role := ""
	for i := range env.Headers {
		b := &env.Headers[i]
		s := uint8(0)
		if n.Targets(b.Role) {
			s = targeted
			hf := n.Headers[b.Name]
			if i < len(fns) {
				fns[i] = hf
			}
			if b.MustUnderstand && hf == nil {
				missing = append(missing, b.Name)
				if role == "" {
					role = b.Role
				}
			}
		}
		state = append(state, s)
	}
	if len(missing) > 0 {
		names := make([]string, len(missing))
		for i, q := range missing {
			names[i] = qnameString(q)
		}
		f := &Fault{Code: CodeMustUnderstand, Version: v, NotUnderstood: missing, Node: n.URI, Role: role,
			Reason: "mandatory header block not understood: " + strings.Join(names, ", ")}
		n.log().LogAttrs(ctx, slog.LevelInfo, "soap: mustUnderstand fault", slog.String("blocks", strings.Join(names, ", ")))
		return nil, f
	}
	orig := len(env.Headers)
	for i := 0; i < orig; i++ {
		if state[i] != targeted {
			continue
		}
		var hf HeaderFunc
		if i < len(fns) {
			hf = fns[i]
		} else {
			hf = n.Headers[env.Headers[i].Name]
		}
		if hf == nil {
			continue
		}
		name, role := env.Headers[i].Name, env.Headers[i].Role
		var err error
		if ctx, err = hf(ctx, m, &env.Headers[i]); err != nil {
			f := n.own(FaultOf(err), v, role)
			n.log().LogAttrs(ctx, slog.LevelInfo, "soap: header block refused", slog.String("block", qnameString(name)), slog.String("fault", f.Error()))
			return nil, f
		}
		state[i] = processed
	}
	if !n.Intermediary {
		if n.Handler == nil {
			return nil, n.own(ReceiverFault("no body handler"), v, "")
		}
		reply, err := n.Handler.ServeSOAP(ctx, m)
		if err != nil {
			f := FaultOf(err)
			if f.Version == 0 {
				f = f.WithVersion(v)
			}
			return nil, f
		}
		return reply, nil
	}
	kept := env.Headers[:0:0]
	for i, b := range env.Headers {
		if i < orig && state[i] != 0 && (state[i] == processed || !(b.Relay && v == V12)) {
			continue
		}
		kept = append(kept, b)
	}
	env.Headers = kept
	if n.Next == nil {
		return nil, n.own(ReceiverFault("the intermediary has no next hop"), v, "")
	}
	reply, err := n.Next.RoundTrip(ctx, m)
	if err != nil {
		f := FaultOf(err)
		if !f.Remote && f.Node == "" {
			f = n.own(&Fault{Code: CodeReceiver, Reason: "the next hop could not be reached", Cause: err}, v, "")
		}
		n.log().LogAttrs(ctx, slog.LevelInfo, "soap: forwarding failed", slog.String("fault", f.Error()))
		return nil, f
	}
	return reply, nil
}

// own returns a copy of f that names this node, in version v.
func (n *Node) own(f *Fault, v Version, role string) *Fault {
	c := *f
	if c.Node == "" {
		c.Node = n.URI
	}
	if c.Role == "" {
		c.Role = role
	}
	if c.Version == 0 {
		c.Version = v
	}
	return &c
}

func (n *Node) log() *slog.Logger {
	if n.Logger == nil {
		return discard()
	}
	return n.Logger
}

func discard() *slog.Logger { return slog.New(slog.DiscardHandler) }

// Recover is a Middleware that turns a panic in the handler into a Receiver
// fault (the panic value is logged, never sent).
func Recover(log *slog.Logger) Middleware {
	if log == nil {
		log = discard()
	}
	return func(h Handler) Handler {
		return HandlerFunc(func(ctx context.Context, m *Message) (reply *Message, err error) {
			defer func() {
				if p := recover(); p != nil {
					log.ErrorContext(ctx, "soap: handler panicked", slog.Any("panic", p))
					reply, err = nil, &Fault{Code: CodeReceiver, Version: m.Version(), Reason: InternalErrorReason, Cause: fmt.Errorf("panic: %v", p)}
				}
			}()
			return h.ServeSOAP(ctx, m)
		})
	}
}
