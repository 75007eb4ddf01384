package drop

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"path"
	"time"

	"github.com/soapwire/soapwire/core"
)

// cleanupTimeout bounds removing a partial upload after a failed Store.
const cleanupTimeout = 5 * time.Second

// Store writes what r holds to dir/name so that no reader ever sees a
// partial file: first to a temporary name starting with a dot
// (.<name>.<hex>.part, which Pollers pass over and remove once stale), then
// renamed. When anything fails, or ctx ends, the temporary file is removed
// (a failure to remove it is logged) and nothing appears under name. It
// returns the file's path.
func Store(ctx context.Context, fsys FS, dir, name string, r io.Reader, log *slog.Logger, scheme string) (string, error) {
	final := path.Join(dir, name)
	tmp := path.Join(dir, tempName(name))
	src := &touchedSource{r: r}
	var err error
	if p, ok := fsys.(Publisher); ok {
		err = p.Publish(ctx, tmp, final, src)
	} else if err = fsys.Write(ctx, tmp, src); err != nil {
		err = UploadError(err)
	} else if err = fsys.Rename(ctx, tmp, final); err != nil {
		err = RenameError(tmp, err)
	}
	if err == nil || !src.touched {
		return final, err
	}
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
	defer cancel()
	if derr := fsys.Remove(dctx, tmp); derr != nil && !notExist(derr) && log != nil {
		log.WarnContext(ctx, scheme+": temporary file not removed; it is removed once stale", slog.String("file", Escape(tmp)), slog.Any("err", derr))
	}
	return final, err
}

// touchedSource notes whether an upload started reading its source.
type touchedSource struct {
	r       io.Reader
	touched bool
}

// Touched reports whether the upload started reading: a Write that failed
// before may be tried again on a fresh connection.
func (s *touchedSource) Touched() bool { return s.touched }

func (s *touchedSource) Read(p []byte) (int, error) {
	s.touched = true
	return s.r.Read(p)
}

func (s *touchedSource) WriteTo(w io.Writer) (int64, error) {
	s.touched = true
	if wt, ok := s.r.(io.WriterTo); ok {
		return wt.WriteTo(w)
	}
	return io.Copy(w, struct{ io.Reader }{s.r})
}

// MessageReader streams a message into an upload: io.Copy uses WriteTo, so
// the envelope is written straight into the connection or file.
func MessageReader(m *core.Message) io.Reader { return messageReader{m} }

type messageReader struct{ m *core.Message }

// A message with attachments is written as a MIME file (mimefile.go):
// its header, then the package.
func (r messageReader) WriteTo(w io.Writer) (int64, error) {
	var n int64
	if h := MIMEHeader(r.m); h != "" {
		k, err := io.WriteString(w, h)
		if n = int64(k); err != nil {
			return n, err
		}
	}
	k, err := r.m.WriteTo(w)
	return n + k, err
}

// Read is never called by io.Copy, which prefers WriteTo; a caller that
// reads gets the envelope through a pipe.
func (r messageReader) Read(b []byte) (int, error) {
	return 0, errors.New("file drop: a message is read with WriteTo")
}
