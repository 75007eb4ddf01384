package core

import (
	"errors"
	"io"
)

// ErrMalformed is in the chain of the cause core.Serve Nacks a delivery
// with when its message turned out malformed (see Message.Verdict): the
// bytes are wrong, so redelivering them cannot help. A Receiver parks
// (dead-letters) such a delivery with its fault at once instead of
// redelivering it; core.FaultOf(cause) is the fault. Serve also Nacks with
// it a message whose reply address was refused (ErrReplyRefused): its
// bytes ask for what the service will not do; and one whose handler
// returned a fault with ErrMalformed in its chain (the handler found the
// message wrong in a way only it can tell: document.Correlator, a reply in
// the other SOAP version than its request).
var ErrMalformed = errors.New("core: the message is malformed")

// Verdict is what a binding answers to request m once m's handler returned
// (reply, err): the handler's answer, once the rest of m's envelope has
// been read and found well-formed and in order, or else the Sender fault
// (1.1 Client) that names what is wrong with it. A handler that decodes
// the operation element and replies has not judged the whole envelope: an
// envelope cut off after it, a second Body, an element or a Header after
// the Body, content after the Envelope would otherwise be answered as if
// it were sound (SOAP 1.2 Part 1 §2.6 asks a node that streams to give the
// result of one that read the whole envelope first).
//
// The rest is read as the body is, through the tokenizer under m's Limits,
// and dropped: nothing is buffered. Verdict returns:
//   - the Body's fault, when reading m's body met one (malformed, over a
//     bound, the transport failing), whatever the handler answered: the
//     message was wrong, whatever the handler made of it;
//   - otherwise (reply, err) unchanged.
//
// A reply that reads m's body while it is written (m's own body echoed, or
// a StreamBody, whose func may copy it) cannot be judged before it is
// written: Verdict returns it with the check moved to its end, so writing
// it reads m to its end and fails with m's fault, before the reply's
// closing tags, when m's rest is wrong. A binding that buffers its reply
// then answers that fault instead; one that streams it (HTTP beyond its
// buffer) aborts it, so the peer never sees a complete-looking reply.
//
// Call it once per request, right after the handler, and before anything
// of the reply is committed; core.Serve does. A message built in memory
// (not read) is returned as it is.
func (m *Message) Verdict(reply *Message, err error) (*Message, error) {
	b := m.Body()
	if b.src == nil || b.src.in == nil {
		return reply, err
	}
	if err == nil && reply != nil && reply.Envelope != nil {
		if rs := reply.Envelope.Body.src; rs != nil {
			switch {
			case rs.in == b.src.in:
				// m's body echoed: copying it reads it to the end of the
				// input, and a broken rest fails the copy
				return reply, nil
			case rs.stream != nil:
				reply.Envelope.Body = judgedStream(rs, b)
				return reply, nil
			}
		}
	}
	if derr := b.Discard(); derr != nil {
		return nil, m.bodyFault(derr)
	}
	return reply, err
}

// bodyFault is the fault of err, an error reading m's body, in m's version.
func (m *Message) bodyFault(err error) *Fault {
	f := FaultOf(err)
	if f.Version == 0 {
		f = f.WithVersion(m.Version())
	}
	return f
}

// judgedStream is the stream body s, that must read req to its end, and
// judge it, after its func wrote the last of its children.
func judgedStream(s *bodySource, req Body) Body {
	fn := s.stream
	return Body{&bodySource{name: s.name, named: s.named, stream: func(w io.Writer) error {
		if err := fn(w); err != nil {
			return err
		}
		return req.Discard()
	}}}
}

// malformed returns the fault of a message read from a transport whose
// envelope turned out malformed (or over a bound) while it was read (what
// Body.Err says, in m's version), else nil. Serve asks it after Verdict to
// tell a wrong message (park it) from a handler's fault (answer it).
func (m *Message) malformed() *Fault {
	if err := m.Body().Err(); err != nil {
		return m.bodyFault(err)
	}
	return nil
}
