package drop

import (
	"bytes"
	"errors"
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

// errSpoolLimit is returned by fill when r holds more than max bytes.
var errSpoolLimit = errors.New("file drop: spool limit")

// fill reads r into a spool: up to memMax bytes in memory, then into a
// temporary file in dir. It stops with errSpoolLimit after max bytes (max
// < 0: no bound). size is what the listing said the file holds: the
// memory is taken at once for it (within memMax), so the first read asks
// for the whole file, not 512 bytes (each read a round trip over SFTP).
func fill(r io.Reader, size, max, memMax int64, dir string) (*spool, error) {
	if max >= 0 {
		r = io.LimitReader(r, max+1)
	}
	var buf bytes.Buffer
	if size > 0 && memMax > 0 {
		buf.Grow(int(min(size, memMax)) + bytes.MinRead)
	}
	n, err := io.Copy(&buf, io.LimitReader(r, memMax+1))
	if err != nil {
		return nil, err
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
		return nil, errSpoolLimit
	}
	return sp, nil
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
