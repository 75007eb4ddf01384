package unixsock

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"strings"

	"github.com/soapwire/soapwire/core"
)

// Transport calls a Server (RoundTrip) and sends to an Inbox (Send) over
// Unix sockets, one connection per message. It is safe for concurrent use;
// the zero Transport is not usable, call NewTransport.
type Transport struct {
	addr string
	o    transportConfig
}

var (
	_ core.RoundTripper = (*Transport)(nil)
	_ core.Sender       = (*Transport)(nil)
)

// NewTransport returns a Transport whose calls go to the Server at addr
// ("unix:/path"); Send goes to m.To when it is a unix: address, else to
// addr. addr may be "" for a Transport that only sends. WithLimits bounds
// replies.
func NewTransport(addr string, opts ...TransportOption) *Transport {
	return &Transport{addr: addr, o: newTransportConfig(opts)}
}

// RoundTrip sends m to the Server and returns its reply. A fault reply is
// returned as its *core.Fault (Remote set), "accepted, no reply" as (nil,
// nil); a reply in the other SOAP version than m, answer or fault, is an
// error wrapping a VersionMismatch *core.Fault this side found
// (core.CheckReplyVersion), as soapwire's own transports answer it. ctx bounds the whole exchange: when it is done the connection is
// closed and its error is in the chain of the one returned.
func (t *Transport) RoundTrip(ctx context.Context, m *core.Message) (*core.Message, error) {
	addr := t.addr
	if addr == "" {
		addr = m.To
	}
	ans, payload, err := t.exchange(ctx, addr, kindCall, m)
	if err != nil {
		return nil, fmt.Errorf("unixsock: round trip: %w", err)
	}
	switch ans.kind {
	case kindNoReply:
		return nil, nil
	case kindReply:
		reply, err := core.ReadMessageBytes(payload, t.o.limits)
		if err != nil {
			return nil, fmt.Errorf("unixsock: round trip: reply: %w", err)
		}
		if reply.Action == "" {
			reply.Action = ans.action
		}
		// a reply in the other SOAP version answers no request of ours
		// (a VersionMismatch fault is the server's answer, handed on)
		if err := core.CheckReplyVersion(m.Version(), reply); err != nil {
			return nil, fmt.Errorf("unixsock: round trip: reply: %w", err)
		}
		if f := reply.Fault(); f != nil {
			return nil, f
		}
		return reply, nil
	}
	return nil, fmt.Errorf("unixsock: round trip: %w: answer of kind %q to a call", ErrProtocol, ans.kind)
}

// CheckAddress reports whether the Transport can send to addr: a unix:
// address (core.AddressChecker; core.Serve asks before a request whose
// ReplyTo or FaultTo is addr is handled).
func (t *Transport) CheckAddress(addr string) error {
	if !strings.HasPrefix(addr, Scheme+":") || len(addr) == len(Scheme)+1 {
		return fmt.Errorf("unixsock: %w: %q is not a %s: address", ErrAddress, addr, Scheme)
	}
	return nil
}

// Send hands m to the Inbox at m.To (or the Transport's address) and returns
// once the Inbox has stored it.
func (t *Transport) Send(ctx context.Context, m *core.Message) error {
	addr := m.To
	if !strings.HasPrefix(addr, Scheme+":") {
		addr = t.addr
	}
	if addr == "" {
		return fmt.Errorf("unixsock: send: %w: To is %q and the Transport has no address", ErrAddress, m.To)
	}
	ans, _, err := t.exchange(ctx, addr, kindSend, m)
	if err != nil {
		return fmt.Errorf("unixsock: send to %s: %w", addr, err)
	}
	if ans.kind != kindStored {
		return fmt.Errorf("unixsock: send to %s: %w: answer of kind %q to a send", addr, ErrProtocol, ans.kind)
	}
	return nil
}

// exchange writes m in a frame of the given kind to the socket at addr and
// reads the answer frame and its payload. A refusal is an error wrapping
// ErrRefused.
func (t *Transport) exchange(ctx context.Context, addr string, kind byte, m *core.Message) (frame, []byte, error) {
	if err := ctx.Err(); err != nil {
		return frame{}, nil, err
	}
	path, err := ParseAddress(addr)
	if err != nil {
		return frame{}, nil, err
	}
	// The length goes first, so the envelope is written to memory first.
	var env bytes.Buffer
	if _, err := m.WriteTo(&env); err != nil {
		return frame{}, nil, fmt.Errorf("write the envelope: %w", err)
	}
	head, err := appendHeader(nil, kind, m.Action, env.Len())
	if err != nil {
		return frame{}, nil, err
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return frame{}, nil, err
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { _ = conn.Close() })
	defer stop()

	bufs := net.Buffers{head, env.Bytes()}
	_, werr := bufs.WriteTo(conn)
	// Read the answer even when the write failed: a server that refused
	// the frame early has answered before it stopped reading.
	ans, err := readFrame(conn, maxBytes(t.o.limits))
	if err == nil {
		var payload []byte
		payload, err = io.ReadAll(io.LimitReader(conn, ans.n))
		if err == nil && int64(len(payload)) < ans.n {
			err = io.ErrUnexpectedEOF
		}
		if err == nil {
			if ans.kind == kindRefused {
				return frame{}, nil, fmt.Errorf("%w: %s", ErrRefused, reason(payload))
			}
			return ans, payload, nil
		}
	}
	switch {
	case ctx.Err() != nil:
		return frame{}, nil, ctx.Err()
	case werr != nil:
		return frame{}, nil, werr
	}
	return frame{}, nil, fmt.Errorf("read the answer: %w", unexpected(err))
}

// reason returns a peer's refusal text fit to print: valid UTF-8, at most
// maxReason bytes, quoted when it holds control characters.
func reason(b []byte) string {
	if len(b) > maxReason {
		b = b[:maxReason]
	}
	s := strings.ToValidUTF8(string(b), "\uFFFD")
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return fmt.Sprintf("%q", s)
		}
	}
	return s
}
