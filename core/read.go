package core

import (
	"errors"
	"io"

	"github.com/soapwire/soapwire/core/internal/xmltok"
)

// ErrTooLarge is in the chain of the fault ReadEnvelope returns when the
// envelope is larger than Limits.MaxBytes (a binding answers 413 or the like).
var ErrTooLarge = xmltok.ErrTooLarge

// ErrNotEnvelope is in the chain of the fault ReadEnvelope returns when the
// input is not a SOAP envelope at all: empty, not XML, or XML whose root
// element is not named Envelope (a binding may answer it without a SOAP
// fault, as HTTP's 400). An Envelope in a namespace other than SOAP 1.1's
// or 1.2's is a VersionMismatch fault instead, and an input that exceeds a
// limit before its root element carries ErrTooLarge or ErrLimit.
var ErrNotEnvelope = errors.New("not a SOAP Envelope")

// notEnvelope is the cause of a fault for input that is not an envelope:
// its text is the cause's (the fault's reason already says it), and it is
// ErrNotEnvelope to errors.Is.
type notEnvelope struct{ err error }

func (e *notEnvelope) Error() string {
	if e.err == nil {
		return ErrNotEnvelope.Error()
	}
	return e.err.Error()
}

func (e *notEnvelope) Unwrap() error { return e.err }

func (e *notEnvelope) Is(target error) bool { return target == ErrNotEnvelope }

// notAnEnvelope marks err, found before the root element, with
// ErrNotEnvelope, unless it is an exceeded limit.
func notAnEnvelope(err error) error {
	var f *Fault
	if !errors.As(err, &f) || errors.Is(err, ErrTooLarge) || errors.Is(err, ErrLimit) {
		return err
	}
	f.Cause = &notEnvelope{f.Cause}
	return f
}

// ErrLimit is in the chain of the fault for any other exceeded limit (depth,
// attributes, namespace declarations, name length, header bytes).
var ErrLimit = xmltok.ErrLimit

// ReadEnvelope reads an envelope's header blocks and the start of its body
// from r; the rest of the body is read when consumed (see Body). Errors are
// *Fault: Sender (1.1 Client) for a malformed or non-conforming envelope,
// VersionMismatch for an envelope in an unknown namespace.
func ReadEnvelope(r io.Reader, lim Limits) (*Envelope, error) {
	st, err := readEnvelope(r, lim)
	if err != nil {
		return nil, err
	}
	return &st.env, nil
}

// readState is what reading one message needs, in one allocation: the
// message, its envelope and the body's stream. It is allocated once the
// Envelope's first child is known: an envelope with a Header gets a
// readStateH, with room for the first header blocks, one without (the
// common case on bindings that carry addressing outside the envelope) a
// smaller readState alone. The parser lives with the tokenizer (see
// newParser).
type readState struct {
	p   *parser // while the tokenizer is held
	msg Message
	env Envelope
	src bodySource
	in  inbound
}

// readStateH is a readState with room for the first header blocks.
type readStateH struct {
	readState
	blocks [2]HeaderBlock
}

// readEnvelope reads an envelope from r into a readState of its own.
func readEnvelope(r io.Reader, lim Limits) (*readState, error) {
	lim = lim.resolved()
	return readEnvelopeFrom(xmltok.NewReader(r, lim.tokenizer()), lim)
}

// readEnvelopeBytes reads the envelope in data into a readState of its own.
func readEnvelopeBytes(data []byte, lim Limits) (*readState, error) {
	lim = lim.resolved()
	return readEnvelopeFrom(xmltok.NewReaderBytes(data, lim.tokenizer()), lim)
}

// readEnvelopeFrom reads an envelope from r (lim resolved).
func readEnvelopeFrom(r *xmltok.Reader, lim Limits) (*readState, error) {
	p := newParser(r, lim)
	st, err := p.envelope()
	if err != nil {
		switch {
		case st == nil: // p was never handed to a readState: still ours
			p.release()
		case st.p != nil:
			st.p.release()
		}
		return nil, err
	}
	return st, nil
}
