package drop

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
)

// spool holds a downloaded file until its delivery is settled: in memory up
// to a bound, the rest in a temporary file. The control connection goes
// back to the pool as soon as the transfer ends, so a slow handler never
// holds one, and a reply can always be sent while requests are in flight.
type spool struct {
	mem  []byte
	f    *os.File
	size int64
}

// spoolLimitError is returned by fill when r holds more than its bound.
type spoolLimitError struct{ max int64 }

func (e *spoolLimitError) Error() string {
	return fmt.Sprintf("file drop: spool limit: more than %d bytes", e.max)
}

// errSpoolLimit matches every spoolLimitError (errors.Is).
var errSpoolLimit = errors.New("file drop: spool limit")

func (e *spoolLimitError) Is(target error) bool { return target == errSpoolLimit }

// fill reads r into a spool: up to memMax bytes in memory, then into a
// temporary file in dir. Its first bytes decide its bound (a plain
// envelope's or a MIME file's, see mimefile.go): beyond it, it stops with
// a *spoolLimitError (a bound < 0: none). size is what the listing said the
// file holds: the memory is taken at once for it (within memMax), so the
// first read asks for the whole file, not 512 bytes (each read a round
// trip over SFTP).
func fill(r io.Reader, size int64, bounds fileBounds, memMax int64, dir string) (*spool, error) {
	var buf bytes.Buffer
	if size > 0 && memMax > 0 {
		buf.Grow(int(min(size, memMax)) + bytes.MinRead)
	}
	// The head decides the bound. It is read into the buffer's own room
	// (the first read asks for the whole file), more while it is too
	// short to tell.
	first := buf.AvailableBuffer()
	if cap(first) >= headLen {
		first = first[:cap(first)]
	} else {
		first = make([]byte, headLen)
	}
	n0, err := io.ReadAtLeast(r, first, 1)
	for err == nil && n0 < headLen && !bytes.ContainsAny(first[:n0], "<:") {
		var k int
		k, err = r.Read(first[n0:])
		n0 += k
	}
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		err = nil
	}
	if err != nil {
		return nil, err
	}
	max := bounds.of(first[:n0])
	if max >= 0 && int64(n0) > max {
		return nil, &spoolLimitError{max: max}
	}
	if max >= 0 {
		r = io.LimitReader(r, max+1-int64(n0))
	}
	buf.Write(first[:n0]) // in place when first is the buffer's room
	n := int64(n0)
	if n <= memMax {
		k, err := io.Copy(&buf, io.LimitReader(r, memMax+1-n))
		if err != nil {
			return nil, err
		}
		n += k
	}
	sp := &spool{mem: buf.Bytes(), size: n}
	if n > memMax {
		f, err := os.CreateTemp(dir, "soapwire-drop-*.spool")
		if err != nil {
			return nil, err
		}
		os.Remove(f.Name()) // unlinked: gone with the last close, even after a crash
		sp.f = f
		if _, err := f.Write(sp.mem); err != nil {
			sp.close()
			return nil, err
		}
		sp.mem = nil
		m, err := io.Copy(f, r)
		sp.size += m
		if err != nil {
			sp.close()
			return nil, err
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			sp.close()
			return nil, err
		}
	}
	if max >= 0 && sp.size > max {
		sp.close()
		return nil, &spoolLimitError{max: max}
	}
	return sp, nil
}

// head returns the first bytes of the spooled file (up to n).
func (s *spool) head(n int) []byte {
	if s.f == nil {
		return s.mem[:min(len(s.mem), n)]
	}
	b := make([]byte, min(int64(n), s.size))
	k, _ := s.f.ReadAt(b, 0)
	return b[:k]
}

// reader returns the spooled bytes from the start (once).
func (s *spool) reader() io.Reader {
	if s.f != nil {
		return s.f
	}
	return bytes.NewReader(s.mem)
}

func (s *spool) close() {
	if s == nil {
		return
	}
	if s.f != nil {
		s.f.Close()
		s.f = nil
	}
	s.mem = nil
}
