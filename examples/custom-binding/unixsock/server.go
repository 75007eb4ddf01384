package unixsock

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net"
	"time"

	"github.com/soapwire/soapwire/core"
)

// Server answers calls on a Unix socket with a core.Handler: the handler's
// reply goes back as a reply frame, its error as a fault (a plain error as a
// Receiver fault that does not reveal its text), and (nil, nil) as
// "accepted, no reply".
type Server struct {
	h core.Handler
	o serverConfig
}

// NewServer returns a Server for h.
func NewServer(h core.Handler, opts ...ServerOption) *Server {
	o := newServerConfig(opts)
	return &Server{h: core.Recover(o.log)(h), o: o}
}

// Serve accepts calls on ln until ctx is done, then closes ln, cancels the
// handlers' contexts and returns nil once they have returned. Each request
// is read lazily, so the handler streams its body from the connection; the
// handler's ctx is cancelled when the caller hangs up.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	return acceptLoop(ctx, ln, &s.o.listenConfig, s.serveConn)
}

func (s *Server) serveConn(ctx context.Context, conn net.Conn) {
	_ = conn.SetReadDeadline(time.Now().Add(s.o.ioTimeout))
	f, err := readFrame(conn, maxBytes(s.o.limits))
	if err != nil {
		s.o.refuse(ctx, conn, "server", err, "")
		return
	}
	if f.kind != kindCall {
		s.o.refuse(ctx, conn, "server", fmt.Errorf("%w: frame of kind %q", ErrProtocol, f.kind),
			"this socket answers calls (kind C); send one-way messages to an Inbox")
		return
	}
	hctx, cancel := context.WithCancel(ctx)
	defer cancel()
	body := &payloadReader{r: conn, conn: conn, timeout: s.o.ioTimeout, n: f.n, atEnd: func() {
		// The whole request is in: from now on the caller sends nothing,
		// so a read that returns means it hung up.
		go func() {
			_ = conn.SetReadDeadline(time.Time{})
			var b [1]byte
			_, _ = conn.Read(b[:])
			cancel()
		}()
	}}
	reply, m := s.handle(hctx, f, body)
	var out []byte
	if reply != nil {
		var err error
		if out, err = encode(reply, m); err != nil {
			s.o.log.ErrorContext(ctx, "unixsock: the reply cannot be written", slog.Any("err", err))
			reply = faultReply(m, core.FaultOf(err))
			if out, err = encode(reply, m); err != nil {
				return
			}
		}
	}
	if err := body.rest(); err != nil {
		s.o.refuse(ctx, conn, "server", err, "")
		return
	}
	if reply == nil {
		s.o.answer(ctx, conn, kindNoReply, "", nil)
		return
	}
	s.o.answer(ctx, conn, kindReply, reply.Action, out)
}

// handle reads the request and calls the handler; it returns the answer
// (nil: accepted, no reply) and the request (nil if it could not be read).
func (s *Server) handle(ctx context.Context, f frame, body *payloadReader) (*core.Message, *core.Message) {
	m, err := core.ReadMessage(body, s.o.limits)
	var reply *core.Message
	if err == nil {
		if err = m.TakeAction(f.action, "the frame's action"); err == nil {
			// the reply waits for the verdict on the whole request
			// (core.Message.Verdict): a broken rest is answered with
			// its fault, not with the handler's reply
			reply, err = m.Verdict(s.h.ServeSOAP(ctx, m))
		}
	}
	if err != nil {
		fault := core.FaultOf(err)
		s.o.log.InfoContext(ctx, "unixsock: answered with a fault", slog.String("code", fault.Code.String()),
			slog.String("reason", fault.Reason), slog.Any("err", err))
		return faultReply(m, fault), m
	}
	return reply, m
}

// faultReply is the fault message answering m (nil: a request that could
// not be read, answered in the version the reader saw, else 1.2).
func faultReply(m *core.Message, f *core.Fault) *core.Message {
	var r *core.Message
	if m != nil {
		r = m.FaultReply(f)
	} else {
		v := f.Version
		if v == 0 {
			v = core.V12
		}
		r = core.NewMessage(v, core.FaultBody(f))
	}
	r.Action = core.FaultAction
	return r
}

// encode writes reply, in the request's version when it has none.
func encode(reply, req *core.Message) ([]byte, error) {
	if reply.Envelope == nil {
		return nil, fmt.Errorf("unixsock: a reply without an envelope")
	}
	if reply.Envelope.Version == 0 && req != nil {
		reply.Envelope.Version = req.Version()
	}
	var b bytes.Buffer
	if _, err := reply.WriteTo(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
