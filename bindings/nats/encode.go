package nats

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/soapwire/soapwire/core"
)

// buffers pools the buffers envelopes are written into: nats.go copies a
// message into its own write buffer when it is published, so a buffer goes
// back to the pool as soon as the publish returns.
type buffers struct{ pool sync.Pool }

func (b *buffers) get() *bytes.Buffer {
	if buf, ok := b.pool.Get().(*bytes.Buffer); ok {
		buf.Reset()
		return buf
	}
	return bytes.NewBuffer(make([]byte, 0, 4096))
}

func (b *buffers) put(buf *bytes.Buffer) {
	if buf.Cap() <= 256<<10 {
		b.pool.Put(buf)
	}
}

// encode writes m as a NATS message to subject: the envelope into buf, the
// SOAP headers (target is the address written as the target service when m
// has no To). A message larger than max (the server's max payload; 0: no
// check) is refused with ErrTooLarge.
func encode(buf *bytes.Buffer, m *core.Message, subject, target string, max int64) (*nats.Msg, error) {
	v := m.Version()
	if v == 0 {
		v = core.V11
	}
	h, err := writeHeaders(m, v, target)
	if err != nil {
		return nil, err
	}
	hs := int64(headerSize(h))
	var w io.Writer = buf
	if max > 0 {
		w = &capWriter{buf: buf, max: max - hs}
	}
	if _, err := m.Write(w, core.WriteOptions{}); err != nil {
		if errors.Is(err, errOverCap) {
			return nil, fmt.Errorf("%w: more than %d bytes (headers included) to %s, the server takes at most %d: %w", ErrTooLarge, max, subject, max, core.ErrTooLarge)
		}
		return nil, fmt.Errorf("nats: writing the envelope: %w", err)
	}
	return &nats.Msg{Subject: subject, Header: h, Data: buf.Bytes()}, nil
}

var errOverCap = errors.New("nats: envelope over the max payload")

// capWriter fails once more than max bytes are written, so an envelope that
// cannot be sent is not buffered whole.
type capWriter struct {
	buf *bytes.Buffer
	max int64
}

func (c *capWriter) Write(p []byte) (int, error) {
	if int64(c.buf.Len()+len(p)) > c.max {
		return 0, errOverCap
	}
	return c.buf.Write(p)
}

// payloadLimit caches the connection's max payload (nats.Conn.MaxPayload
// takes the connection's lock, which publishes hold), reading it again
// after a second, since a reconnect to another server may change it. In
// the window nats.go's own check still refuses an oversized message
// (nats.ErrMaxPayload), which the binding reports as ErrTooLarge too.
type payloadLimit struct {
	nc *nats.Conn
	v  atomic.Int64
	at atomic.Int64 // when v was read, in Unix nanoseconds
}

func (p *payloadLimit) get() int64 {
	now := time.Now().UnixNano()
	if v := p.v.Load(); v > 0 && now-p.at.Load() < int64(time.Second) {
		return v
	}
	v := p.nc.MaxPayload()
	p.v.Store(v)
	p.at.Store(now)
	return v
}

// tooLarge turns nats.go's max payload error into ErrTooLarge.
func tooLarge(err error, subject string) error {
	if errors.Is(err, nats.ErrMaxPayload) {
		return fmt.Errorf("%w: to %s: %w (%w)", ErrTooLarge, subject, core.ErrTooLarge, err)
	}
	return err
}
