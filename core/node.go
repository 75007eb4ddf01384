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

// Node is the SOAP processing model (SOAP 1.2 Part 1 §2.6, SOAP 1.1 §4.2):
// ServeSOAP takes a message through the steps of §2.6, each a function of
// its own:
//  1. the roles the node acts in (Targets): next always; one of Roles; ""
//     (no role) and ultimateReceiver when the node is not an intermediary;
//     none never;
//  2. the header blocks targeted at the node, and among them the mandatory
//     ones (mustUnderstand) that it does not understand, having no
//     HeaderFunc for them (targetBlocks);
//  3. if there are any, one MustUnderstand fault naming them all, before
//     anything else runs (notUnderstood);
//  4. the targeted blocks processed, their HeaderFuncs in document order
//     (processHeaders), and at the ultimate receiver the body: Handler
//     (processBody);
//  5. an intermediary relays the message (§2.7): it removes the blocks it
//     processed and the targeted ones it did not (unless 1.2 relay is set),
//     keeps what HeaderFuncs inserted, and forwards it through Next,
//     returning its reply (relay).
//
// The envelope's version was checked when it was read (VersionMismatch).
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
	// Version limits the node to one SOAP version (0: both). A message of
	// the other version is answered with a VersionMismatch fault, before
	// anything runs, in the message's version (so its sender can read
	// it), whose Upgrade header block lists the node's envelope (SOAP 1.2
	// Part 1 §5.4.7 and Appendix A).
	Version Version
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

// ServeSOAP processes m by the steps of SOAP 1.2 Part 1 §2.6 (see Node).
func (n *Node) ServeSOAP(ctx context.Context, m *Message) (*Message, error) {
	env := m.Envelope
	if env == nil {
		return nil, SenderFault("no envelope")
	}
	if n.Version != 0 && env.Version != n.Version {
		return nil, n.versionMismatch(env.Version)
	}
	// the state of each block (targeted, processed), and the HeaderFunc of
	// the first ones (looked up again beyond len(fns))
	var small [16]uint8
	var fns [8]HeaderFunc
	state := small[:0]
	if len(env.Headers) > len(small) {
		state = make([]uint8, 0, len(env.Headers))
	}
	state, missing, role := n.targetBlocks(env, state, fns[:]) // steps 1 and 2
	if len(missing) > 0 {
		return nil, n.notUnderstood(ctx, env.Version, missing, role) // step 3
	}
	ctx, err := n.processHeaders(ctx, m, state, fns[:]) // step 4
	if err != nil {
		return nil, err
	}
	if !n.Intermediary {
		return n.processBody(ctx, m) // step 4, the ultimate receiver
	}
	return n.relay(ctx, m, state) // step 5
}

// versionMismatch is the fault of a node limited to one version that got
// a message of version v.
func (n *Node) versionMismatch(v Version) *Fault {
	return &Fault{Code: CodeVersionMismatch, Version: v, Node: n.URI, Supported: []Version{n.Version},
		Reason: "this node processes SOAP " + n.Version.String() + " envelopes only, not SOAP " + v.String()}
}

// The states of a header block, as the steps find it.
const (
	targeted  = 1 // for this node (step 2)
	processed = 2 // its HeaderFunc ran (step 4)
)

// targetBlocks does steps 1 and 2: it appends to state the state of each
// header block the message has (targeted at the node by the roles it acts
// in, Targets, or not), notes the HeaderFuncs of the first len(fns), and
// returns the mandatory targeted blocks the node does not understand (no
// HeaderFunc), with the role of the first.
func (n *Node) targetBlocks(env *Envelope, state []uint8, fns []HeaderFunc) ([]uint8, []xml.Name, string) {
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
				if len(missing) == 0 {
					role = b.Role
				}
				missing = append(missing, b.Name)
			}
		}
		state = append(state, s)
	}
	return state, missing, role
}

// notUnderstood is step 3: the single MustUnderstand fault naming every
// mandatory block the node does not understand (missing; role is the
// first one's role).
func (n *Node) notUnderstood(ctx context.Context, v Version, missing []xml.Name, role string) *Fault {
	names := make([]string, len(missing))
	for i, q := range missing {
		names[i] = qnameString(q)
	}
	n.log().LogAttrs(ctx, slog.LevelInfo, "soap: mustUnderstand fault", slog.String("blocks", strings.Join(names, ", ")))
	return &Fault{Code: CodeMustUnderstand, Version: v, NotUnderstood: missing, Node: n.URI, Role: role,
		Reason: "mandatory header block not understood: " + strings.Join(names, ", ")}
}

// processHeaders is step 4 for the header blocks: the HeaderFunc of each
// targeted block, in document order, each given the context the one before
// returned; state marks the blocks processed. Blocks a HeaderFunc inserts
// are not processed here. The first error stops it, as a fault naming this
// node and the block's role.
func (n *Node) processHeaders(ctx context.Context, m *Message, state []uint8, fns []HeaderFunc) (context.Context, error) {
	env := m.Envelope
	for i := range state {
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
			f := n.own(FaultOf(err), env.Version, role)
			n.log().LogAttrs(ctx, slog.LevelInfo, "soap: header block refused", slog.String("block", qnameString(name)), slog.String("fault", f.Error()))
			return ctx, f
		}
		state[i] = processed
	}
	return ctx, nil
}

// processBody is step 4 at the ultimate receiver: the body goes to
// Handler. Its error is a fault (FaultOf) in the message's version.
func (n *Node) processBody(ctx context.Context, m *Message) (*Message, error) {
	v := m.Envelope.Version
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

// relay is step 5 at an intermediary (SOAP 1.2 Part 1 §2.7): the blocks
// it processed are removed, and the targeted blocks it did not process
// unless they are 1.2 relay blocks; blocks not targeted at it and blocks
// its HeaderFuncs inserted stay. The message then goes on through Next. A
// forwarding error that is not a fault from further down the path is a
// Receiver fault naming this node.
func (n *Node) relay(ctx context.Context, m *Message, state []uint8) (*Message, error) {
	env := m.Envelope
	v := env.Version
	kept := env.Headers[:0:0]
	for i, b := range env.Headers {
		if i < len(state) && state[i] != 0 && (state[i] == processed || !(b.Relay && v == V12)) {
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
