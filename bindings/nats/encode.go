package nats

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	"github.com/nats-io/nats.go"

	"github.com/soapwire/soapwire/core"
)

// outgoing is what encoding a message takes, reused from one message to
// the next: the buffer the envelope is written into, the NATS message and
// its headers. nats.go copies a message into its own write buffer when it
// is published (and JetStream's publish returns once acknowledged), so an
// outgoing goes back to its pool as soon as the publish returns.
type outgoing struct {
	buf     bytes.Buffer
	cw      capWriter
	msg     nats.Msg
	hdr     nats.Header
	vals    [4][1]string        // the header values: hdr's entries are these slices, so a value is set without touching hdr
	set     uint8               // which of headerNames hdr holds (as vals[i][:]), a bit each
	once    bool                // used for one message (Encode), not pooled
	hdrSize int32               // about what hdr takes on the wire: "NATS/1.0\r\n", a line a value, a blank line
	plain   struct{ io.Writer } // cw or buf without their AvailableBuffer, when once
}

// outgoings pools outgoing values.
type outgoings struct{ pool sync.Pool }

func (p *outgoings) get() *outgoing {
	if o, ok := p.pool.Get().(*outgoing); ok {
		return o
	}
	o := &outgoing{hdr: make(nats.Header, 4)}
	o.buf.Grow(4096)
	return o
}

// put returns o to the pool, dropping what refers to the message sent, and
// a buffer grown large by a large envelope.
func (p *outgoings) put(o *outgoing) {
	if o.buf.Cap() > 256<<10 {
		return
	}
	o.buf.Reset()
	// hdr keeps its entries for the next message (see setHeaders); the
	// values and o.msg are overwritten by the next encode.
	p.pool.Put(o)
}

// encode writes m as a NATS message to subject, into o: the envelope, and
// the SOAP headers (target is the address written as the target service
// when m has no To). A message larger than lim (the server's max payload;
// nil or 0: no check) is refused with ErrTooLarge. The message returned is
// o's: valid until o is put back.
func encode(o *outgoing, m *core.Message, subject, target string, lim *payloadLimit) (*nats.Msg, error) {
	v := m.Version()
	if v == 0 {
		v = core.V11
	}
	o.buf.Reset()
	if err := o.writeHeaders(m, v, target); err != nil {
		return nil, err
	}
	var w io.Writer = &o.buf
	if max := lim.get(); max > 0 {
		o.cw = capWriter{buf: &o.buf, max: max, hdr: int64(o.hdrSize), lim: lim}
		w = &o.cw
	}
	if o.once {
		// Not lending a fresh buffer's space: core's writer would grow it
		// to 4 KiB for a small envelope.
		o.plain.Writer = w
		w = &o.plain
	}
	if _, err := m.Write(w, core.WriteOptions{}); err != nil {
		if errors.Is(err, errOverCap) {
			max := o.cw.max
			return nil, fmt.Errorf("%w: the message to %s is more than %d bytes (headers included), over the server's max_payload of %d bytes: %w", ErrTooLarge, subject, max, max, core.ErrTooLarge)
		}
		return nil, fmt.Errorf("nats: writing the envelope: %w", err)
	}
	o.msg = nats.Msg{Subject: subject, Header: o.hdr, Data: o.buf.Bytes()}
	return &o.msg, nil
}

var errOverCap = errors.New("nats: envelope over the max payload")

// capWriter fails once the headers (hdr bytes) and the envelope written
// come to more than max, the max payload, so an envelope that cannot be
// sent is not buffered whole. Before it fails it reads the connection's
// max payload again (lim): a reconnect may have raised it.
type capWriter struct {
	buf *bytes.Buffer
	max int64
	hdr int64
	lim *payloadLimit
}

func (c *capWriter) Write(p []byte) (int, error) {
	if size := c.hdr + int64(c.buf.Len()+len(p)); size > c.max {
		if c.max = c.lim.read(); c.max > 0 && size > c.max {
			return 0, errOverCap
		}
	}
	return c.buf.Write(p)
}

// AvailableBuffer and Grow lend the buffer's free space, so core's writer
// appends the envelope straight into it (and hands it over by Write, which
// checks the size) instead of copying from a buffer of its own. Grow does
// not grow a buffer that has half of n free (which core's writer makes do
// with), so the space asked for after the envelope's last bytes costs
// nothing.
func (c *capWriter) AvailableBuffer() []byte { return c.buf.AvailableBuffer() }

func (c *capWriter) Grow(n int) {
	if c.buf.Available() < n/2 {
		c.buf.Grow(n)
	}
}

// payloadLimit is the max payload a message is checked against before it
// is sent. For a connection, the value it had when last read is kept
// (nats.Conn.MaxPayload takes the connection's lock, which publishes
// hold): a reconnect to another server may change it, so a message over
// the value kept is measured again against the connection's before it is
// refused (capWriter), and a message nats.go refuses (nats.ErrMaxPayload:
// the value kept was larger) makes the next one read it again (tooLarge).
// Reading a clock for each message instead cost as much as a tenth of the
// binding's own work on a virtual machine (docs/benchmarks.md).
type payloadLimit struct {
	nc    *nats.Conn   // nil: fixed is the limit (Encode)
	fixed int64        // 0: none
	v     atomic.Int64 // nc's max payload when last read; 0: to be read
}

// get returns the max payload to check a message against, 0 for none (a
// nil limit too).
func (p *payloadLimit) get() int64 {
	if p == nil {
		return 0
	}
	if p.nc == nil {
		return p.fixed
	}
	if v := p.v.Load(); v > 0 {
		return v
	}
	return p.read()
}

// read reads the connection's max payload again, keeps and returns it.
func (p *payloadLimit) read() int64 {
	if p.nc == nil {
		return p.fixed
	}
	v := p.nc.MaxPayload()
	p.v.Store(v)
	return v
}

// tooLarge turns nats.go's max payload error into ErrTooLarge, and has the
// next message read the connection's max payload again.
func (p *payloadLimit) tooLarge(err error, subject string) error {
	if errors.Is(err, nats.ErrMaxPayload) {
		p.v.Store(0)
		return fmt.Errorf("%w: to %s: %w (%w)", ErrTooLarge, subject, core.ErrTooLarge, err)
	}
	return err
}
