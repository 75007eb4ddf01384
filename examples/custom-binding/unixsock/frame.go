package unixsock

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"time"
	"unicode/utf8"

	"github.com/soapwire/soapwire/core"
)

// Frame kinds.
const (
	kindCall    = 'C' // client → Server: an envelope to answer
	kindSend    = 'S' // client → Inbox: an envelope to store
	kindReply   = 'R' // Server → client: the reply or fault envelope
	kindNoReply = 'N' // Server → client: accepted, no reply (one-way)
	kindStored  = 'A' // Inbox → client: stored
	kindRefused = 'E' // either → client: refused; the payload is the reason
)

const (
	magic      = "SW"
	headerLen  = 9
	maxPayload = math.MaxUint32

	// MaxActionLen is the longest action a frame may carry, in bytes.
	MaxActionLen = 4096

	// maxReason bounds the refusal text a client keeps from a peer.
	maxReason = 512
)

// frame is a frame's header and action; its payload follows on the
// connection.
type frame struct {
	kind   byte
	action string
	n      int64 // payload length
}

// readFrame reads a frame's header and action from r and checks them: the
// payload may be at most maxBody bytes. A connection closed before the
// first byte is io.EOF; one closed in the middle io.ErrUnexpectedEOF.
func readFrame(r io.Reader, maxBody int64) (frame, error) {
	var h [headerLen]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return frame{}, err
	}
	if string(h[:2]) != magic {
		return frame{}, fmt.Errorf("%w: not a frame (starts %q)", ErrProtocol, h[:2])
	}
	f := frame{kind: h[2], n: int64(binary.BigEndian.Uint32(h[5:9]))}
	switch f.kind {
	case kindCall, kindSend, kindReply, kindNoReply, kindStored, kindRefused:
	default:
		return frame{}, fmt.Errorf("%w: unknown frame kind %q", ErrProtocol, f.kind)
	}
	alen := int(binary.BigEndian.Uint16(h[3:5]))
	if alen > MaxActionLen {
		return frame{}, fmt.Errorf("%w: action of %d bytes (at most %d)", ErrProtocol, alen, MaxActionLen)
	}
	if f.n > maxBody {
		return frame{}, fmt.Errorf("unixsock: payload of %d bytes is over the limit of %d: %w", f.n, maxBody, core.ErrTooLarge)
	}
	if alen > 0 {
		a := make([]byte, alen)
		if _, err := io.ReadFull(r, a); err != nil {
			return frame{}, unexpected(err)
		}
		if err := checkAction(a); err != nil {
			return frame{}, err
		}
		f.action = string(a)
	}
	return f, nil
}

// unexpected turns a clean EOF inside a frame into io.ErrUnexpectedEOF.
func unexpected(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// checkAction refuses an action that is not UTF-8 text without control
// characters.
func checkAction(a []byte) error {
	if !utf8.Valid(a) {
		return fmt.Errorf("%w: action is not UTF-8", ErrProtocol)
	}
	for _, c := range a {
		if c < 0x20 || c == 0x7f {
			return fmt.Errorf("%w: control character in the action", ErrProtocol)
		}
	}
	return nil
}

// appendHeader appends a frame's header and action to b.
func appendHeader(b []byte, kind byte, action string, n int) ([]byte, error) {
	if len(action) > MaxActionLen {
		return b, fmt.Errorf("%w: action of %d bytes (at most %d)", ErrProtocol, len(action), MaxActionLen)
	}
	if err := checkAction([]byte(action)); err != nil {
		return b, err
	}
	if int64(n) > maxPayload {
		return b, fmt.Errorf("unixsock: payload of %d bytes is over the frame's limit: %w", n, core.ErrTooLarge)
	}
	b = append(b, magic...)
	b = append(b, kind)
	b = binary.BigEndian.AppendUint16(b, uint16(len(action)))
	b = binary.BigEndian.AppendUint32(b, uint32(n))
	return append(b, action...), nil
}

// writeFrame writes a whole frame in one write.
func writeFrame(w io.Writer, kind byte, action string, payload []byte) error {
	b, err := appendHeader(make([]byte, 0, headerLen+len(action)+len(payload)), kind, action, len(payload))
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, payload...))
	return err
}

// deadliner is what a connection offers to bound a read.
type deadliner interface {
	SetReadDeadline(t time.Time) error
}

// payloadReader reads a frame's payload of n bytes from a connection,
// pushing the read deadline on before each read (an idle timeout, so a
// large payload may take as long as it keeps moving), and calls atEnd once
// the last byte has been read.
type payloadReader struct {
	r       io.Reader
	conn    deadliner // nil: no deadlines
	timeout time.Duration
	n       int64
	atEnd   func()
}

func (p *payloadReader) Read(b []byte) (int, error) {
	if p.n <= 0 {
		p.end()
		return 0, io.EOF
	}
	if int64(len(b)) > p.n {
		b = b[:p.n]
	}
	if p.conn != nil {
		_ = p.conn.SetReadDeadline(time.Now().Add(p.timeout))
	}
	n, err := p.r.Read(b)
	p.n -= int64(n)
	if p.n <= 0 {
		p.end()
		return n, nil // the whole payload: the next Read says io.EOF
	}
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF // the peer closed inside the payload
	}
	return n, err
}

func (p *payloadReader) end() {
	if p.atEnd != nil {
		fn := p.atEnd
		p.atEnd = nil
		fn()
	}
}

// rest reads what is left of the payload and drops it; an error says the
// payload did not all arrive.
func (p *payloadReader) rest() error {
	_, err := io.Copy(io.Discard, p)
	return err
}
