package nats

import (
	"bytes"
	"fmt"

	"github.com/nats-io/nats.go"

	"github.com/soapwire/soapwire/core"
)

// Meta keys the binding sets.
const (
	MetaSubject    = "nats.subject"    // the subject a message arrived on or was sent to
	MetaReply      = "nats.reply"      // the reply subject of a request (Subscribe)
	MetaQueue      = "nats.queue"      // the queue group that served a request (Subscribe)
	MetaStream     = "nats.stream"     // the JetStream stream that stored a message (sent or received)
	MetaSequence   = "nats.seq"        // its sequence in the stream, in decimal
	MetaDuplicate  = "nats.duplicate"  // "true" when the stream dropped a sent message as a duplicate
	MetaDeliveries = "nats.deliveries" // how many times a received message was delivered, this time included
	MetaConsumer   = "nats.consumer"   // the durable consumer a message was received from
)

// decode reads the envelope of a NATS message and checks its SOAP headers
// against it (see wire.apply). Any refusal is a Sender fault in the
// envelope's version (or, for an envelope that cannot be read, the version
// its Content-Type names); the message is returned beside a header fault,
// so the fault can answer it.
func decode(data []byte, h nats.Header, lim core.Limits, required bool) (*core.Message, *core.Fault) {
	var w wire
	hf := readHeaders(h, &w)
	var m *core.Message
	var err error
	if w.pkg {
		m, err = core.ReadPackage(bytes.NewReader(data), w.ctype, lim)
	} else {
		m, err = core.ReadMessageBytes(data, lim)
	}
	if err != nil {
		return nil, unreadable(err, w.version)
	}
	if hf != nil {
		return m, hf.WithVersion(m.Version())
	}
	if f := w.apply(m, required); f != nil {
		return m, f
	}
	return m, nil
}

// unreadable is the fault answering an envelope that could not be read
// (err), in its version or else the version v its Content-Type names.
func unreadable(err error, v core.Version) *core.Fault {
	f := core.FaultOf(err)
	switch {
	case f.Version != 0:
		return f
	case f.Code == core.CodeVersionMismatch:
		v = core.V12 // so the fault carries an Upgrade header
	case v == 0:
		v = core.V11
	}
	return f.WithVersion(v)
}

// Decode reads a NATS message carrying a SOAP envelope the way Subscribe
// and Receiver do: the envelope (bounded by lim), then the SOAP headers
// checked against it (see the package documentation), filling Action, ID
// and To from the headers where the envelope has none. A refusal is a
// Sender *core.Fault; beside a fault about the headers the message is
// returned too, so the fault can answer it. Use it to read a dead-letter
// stream, or messages from a subscription of your own.
func Decode(msg *nats.Msg, lim core.Limits) (*core.Message, error) {
	m, f := decode(msg.Data, msg.Header, lim, true)
	if f != nil {
		return m, f
	}
	return m, nil
}

// Encode writes m as a NATS message to subject, with the SOAP headers, the
// way Transport and Publisher do. One larger than maxPayload (usually
// nc.MaxPayload(); 0 for no check) is refused with ErrTooLarge.
func Encode(m *core.Message, subject string, maxPayload int64) (*nats.Msg, error) {
	if err := checkSubject(subject, false); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrAddress, err)
	}
	o := &outgoing{hdr: make(nats.Header, 4), once: true}
	return encode(o, m, subject, Scheme+":"+subject, &payloadLimit{fixed: maxPayload})
}
