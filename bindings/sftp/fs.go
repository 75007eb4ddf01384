package sftp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
	"sync"

	"github.com/pkg/sftp"

	"github.com/soapwire/soapwire/bindings/internal/drop"
	"github.com/soapwire/soapwire/core"
)

// sftpFS is the drop engine's file system on a Client's server.
type sftpFS struct {
	c       *Client
	noPosix bool // tests: act as if the server had no posix-rename
	plain   bool // tests and benchmarks: one request at a time (readahead.go, pipeline.go)

	mu     sync.Mutex
	closes map[string]chan struct{} // downloads closed behind (pipeline.go)
}

var _ drop.FS = (*sftpFS)(nil)

// mapErr puts what the engine needs in an error's chain: pkg/sftp already
// gives fs.ErrNotExist and fs.ErrPermission for the server's "no such
// file" and "permission denied"; its other refusals (SSH_FX_FAILURE, as
// for a rename over an existing file) become fs.ErrPermission; a closed
// Client is core.ErrClosed.
func mapErr(err error) error {
	var se *sftp.StatusError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ErrClientClosed):
		return fmt.Errorf("%w: %w", core.ErrClosed, err)
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, fs.ErrPermission):
		return err
	case errors.As(err, &se):
		return fmt.Errorf("%w: %w", fs.ErrPermission, err)
	}
	return err
}

func entry(info os.FileInfo) drop.Entry {
	e := drop.Entry{Name: info.Name(), Size: info.Size(), ModTime: info.ModTime()}
	switch {
	case info.Mode().IsRegular():
		e.Kind = drop.File
	case info.IsDir():
		e.Kind = drop.Dir
	default:
		e.Kind = drop.Other
	}
	return e
}

func (f *sftpFS) List(ctx context.Context, dir string) ([]drop.Entry, error) {
	var infos []os.FileInfo
	err := f.c.do(ctx, always, func(cn *conn) error {
		var err error
		infos, err = cn.sftp.ReadDir(dir)
		return err
	})
	if err != nil {
		return nil, mapErr(err)
	}
	out := make([]drop.Entry, 0, len(infos))
	for _, i := range infos {
		out = append(out, entry(i))
	}
	return out, nil
}

func (f *sftpFS) Stat(ctx context.Context, p string) (drop.Entry, error) {
	var info os.FileInfo
	err := f.c.do(ctx, always, func(cn *conn) error {
		var err error
		info, err = cn.sftp.Lstat(p)
		return err
	})
	if err != nil {
		return drop.Entry{}, mapErr(err)
	}
	return entry(info), nil
}

// Rename uses posix-rename@openssh.com where the server has it: rename(2)
// on the server, atomic, replacing to. Without it, SFTP's rename (which
// OpenSSH makes atomic with link and unlink, and which refuses an existing
// to): a file published under a name already taken (a message sent again)
// replaces it in two steps, the old file removed first.
func (f *sftpFS) Rename(ctx context.Context, from, to string) error {
	if err := f.closed(ctx, from); err != nil {
		return err
	}
	return mapErr(f.c.do(ctx, never, func(cn *conn) error { return f.rename(cn, from, to) }))
}

func (f *sftpFS) rename(cn *conn, from, to string) error {
	if cn.posix && !f.noPosix {
		return cn.sftp.PosixRename(from, to)
	}
	err := cn.sftp.Rename(from, to)
	if err == nil || !strings.HasPrefix(path.Base(from), ".") {
		return err
	}
	if _, serr := cn.sftp.Lstat(to); serr != nil {
		return err // not in the way: the rename failed for its own reason
	}
	if rerr := cn.sftp.Remove(to); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
		return err
	}
	return cn.sftp.Rename(from, to)
}

func (f *sftpFS) Remove(ctx context.Context, p string) error {
	if err := f.closed(ctx, p); err != nil {
		return err
	}
	return mapErr(f.c.do(ctx, never, func(cn *conn) error { return cn.sftp.Remove(p) }))
}

func (f *sftpFS) Mkdir(ctx context.Context, p string) error {
	return mapErr(f.c.do(ctx, always, func(cn *conn) error {
		err := cn.sftp.Mkdir(p)
		if err == nil {
			return nil
		}
		if info, serr := cn.sftp.Stat(p); serr == nil && info.IsDir() {
			return nil
		}
		return err
	}))
}

// Write uploads r to p (created or truncated). When a reused connection
// turns out dead before any byte was read from r, the upload is tried once
// more on a fresh connection.
func (f *sftpFS) Write(ctx context.Context, p string, r io.Reader) error {
	t, _ := r.(interface{ Touched() bool })
	again := func() bool { return t != nil && !t.Touched() }
	return mapErr(f.c.do(ctx, again, func(cn *conn) error {
		file, err := cn.sftp.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_TRUNC)
		if err != nil {
			return err
		}
		_, err = io.Copy(file, r) // a message is written with its WriteTo
		if cerr := file.Close(); err == nil {
			err = cerr
		}
		return err
	}))
}

// Publish uploads r to tmp and renames it to final (drop.Publisher), on
// one connection. Where the server has posix-rename, the CLOSE that ends
// the upload and the rename are sent together (pipeline.go): a server that
// answers in order closes the file, then renames it, as when each answer
// is awaited, one round trip sooner. When the rename is refused (a server
// that does not rename a file still open: it took them out of order, or
// refuses the pair), it is sent once more after the CLOSE's answer. When
// the CLOSE fails but the rename went through, the file is removed from
// final again and the upload's error returned, as if the rename had waited.
func (f *sftpFS) Publish(ctx context.Context, tmp, final string, r io.Reader) error {
	if f.plain {
		// The reference: Write, then Rename once the CLOSE was answered.
		if err := f.Write(ctx, tmp, r); err != nil {
			return drop.UploadError(err)
		}
		if err := f.Rename(ctx, tmp, final); err != nil {
			return drop.RenameError(tmp, err)
		}
		return nil
	}
	t, _ := r.(interface{ Touched() bool })
	again := func() bool { return t != nil && !t.Touched() }
	renaming := false
	err := f.c.do(ctx, again, func(cn *conn) error {
		renaming = false
		file, err := cn.sftp.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC)
		if err != nil {
			return err
		}
		if _, err := io.Copy(file, r); err != nil { // a message is written with its WriteTo
			file.Close()
			return err
		}
		if !cn.posix || f.noPosix {
			if err := file.Close(); err != nil {
				return err
			}
			renaming = true
			return f.rename(cn, tmp, final)
		}
		cerr, rerr := inOrder(cn.pw, file.Close, func() error { return cn.sftp.PosixRename(tmp, final) })
		switch {
		case cerr != nil:
			if rerr == nil { // the rename went ahead of a failed end: undone
				if err := cn.sftp.Remove(final); err != nil {
					return fmt.Errorf("%w (and the file, renamed before the failure was known, is still published as %s: %v)", cerr, path.Base(final), err)
				}
			}
			return cerr
		case rerr != nil && serverAnswer(rerr):
			renaming = true
			return cn.sftp.PosixRename(tmp, final)
		case rerr != nil:
			renaming = true
			return rerr
		}
		return nil
	})
	switch {
	case err == nil:
		return nil
	case renaming:
		return drop.RenameError(tmp, mapErr(err))
	}
	return drop.UploadError(mapErr(err))
}

// RenameOpen claims a file and opens it (drop.RenameOpener) on one
// connection: where the server has posix-rename, the OPEN is sent right
// after the rename, without waiting for its answer (pipeline.go). An OPEN
// that finds nothing although the rename succeeded (a server that took
// them out of order) is sent once more. to is a name only this claim uses,
// so an OPEN can only find the file the rename put there.
func (f *sftpFS) RenameOpen(ctx, openCtx context.Context, from, to string) (io.ReadCloser, error, error) {
	if f.plain || f.noPosix {
		if err := f.Rename(ctx, from, to); err != nil {
			return nil, err, nil
		}
		rc, err := f.Open(openCtx, to)
		return rc, nil, err
	}
	c := f.c
	cn, err := c.get(ctx)
	if err != nil {
		return nil, mapErr(err), nil
	}
	if !cn.posix {
		c.put(cn)
		if err := f.Rename(ctx, from, to); err != nil {
			return nil, err, nil
		}
		rc, err := f.Open(openCtx, to)
		return rc, nil, err
	}
	cn.tc.begin()
	// The rename is not cut short by openCtx (the claim's answer must not
	// be lost): only ctx bounds the pair; openCtx the read that follows.
	stop := context.AfterFunc(ctx, func() { cn.broken.Store(true); cn.close() })
	var file *sftp.File
	rerr, oerr := inOrder(cn.pw, func() error { return cn.sftp.PosixRename(from, to) }, func() error {
		var err error
		file, err = cn.sftp.Open(to)
		return err
	})
	if rerr == nil && errors.Is(oerr, fs.ErrNotExist) {
		file, oerr = cn.sftp.Open(to)
	}
	interrupted := !stop()
	fail := func(err error) error {
		if file != nil {
			file.Close()
		}
		cn.tc.end()
		if interrupted || !serverAnswer(err) {
			cn.broken.Store(true)
		}
		c.put(cn)
		if interrupted {
			return fmt.Errorf("%w (%w)", ctx.Err(), err)
		}
		return mapErr(err)
	}
	switch {
	case interrupted && rerr == nil && oerr == nil:
		return nil, nil, fail(ctx.Err())
	case rerr != nil:
		return nil, fail(rerr), nil
	case oerr != nil:
		return nil, nil, fail(oerr)
	}
	stop = context.AfterFunc(openCtx, func() { cn.broken.Store(true); cn.close() })
	return &download{c: c, fs: f, cn: cn, f: file, path: to, r: remoteReader{f: file, ahead: true}, ctx: openCtx, stop: stop}, nil, nil
}

// Open starts a download on a pooled connection, held until Close; ctx
// (and the I/O timeout) bound it, by closing the connection.
func (f *sftpFS) Open(ctx context.Context, p string) (io.ReadCloser, error) {
	c := f.c
	for attempt := 0; ; attempt++ {
		cn, err := c.get(ctx)
		if err != nil {
			return nil, mapErr(err)
		}
		cn.tc.begin()
		stop := context.AfterFunc(ctx, func() { cn.broken.Store(true); cn.close() })
		file, err := cn.sftp.Open(p)
		if err == nil {
			return &download{c: c, fs: f, cn: cn, f: file, path: p, r: remoteReader{f: file, ahead: !f.plain}, ctx: ctx, stop: stop}, nil
		}
		interrupted := !stop()
		cn.tc.end()
		if interrupted || !serverAnswer(err) {
			cn.broken.Store(true)
		}
		stale := cn.broken.Load() && cn.reused && ctx.Err() == nil
		c.put(cn)
		if interrupted {
			return nil, fmt.Errorf("%w (%w)", ctx.Err(), err)
		}
		if !stale || attempt > 0 {
			return nil, mapErr(err)
		}
		c.dropIdle()
	}
}

// download is a file being read on a pooled connection.
type download struct {
	c      *Client
	fs     *sftpFS
	path   string
	cn     *conn
	f      *sftp.File
	r      remoteReader
	ctx    context.Context
	stop   func() bool
	err    error
	closed bool
}

var _ drop.SizeExpecter = (*download)(nil)

// ExpectSize lets the first read ask for the file and its end at once.
func (d *download) ExpectSize(n int64) { d.r.ExpectSize(n) }

func (d *download) Read(b []byte) (int, error) {
	n, err := d.r.Read(b)
	if err != nil && err != io.EOF {
		d.err = err
	}
	return n, err
}

func (d *download) Close() error {
	if d.closed {
		return nil
	}
	d.closed = true
	if !d.fs.plain && d.err == nil && d.stop() {
		d.closeBehind()
		return nil
	}
	err := d.f.Close()
	interrupted := !d.stop()
	d.cn.tc.end()
	if interrupted || (d.err != nil && !serverAnswer(d.err)) || (err != nil && !serverAnswer(err)) {
		d.cn.broken.Store(true)
	}
	d.cn.used = timeNow()
	d.c.put(d.cn)
	if interrupted {
		return d.ctx.Err()
	}
	return mapErr(err)
}
