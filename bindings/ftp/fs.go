package ftp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"strconv"

	"github.com/jlaffaye/ftp"

	"github.com/soapwire/soapwire/bindings/internal/drop"
	"github.com/soapwire/soapwire/core"
)

// ftpFS is the drop engine's file system on a Client's server.
type ftpFS struct{ c *Client }

var _ drop.FS = ftpFS{}

// mapErr puts what the engine needs in an error's chain: fs.ErrNotExist
// for 550 (the server's "no such file", also its "not permitted": the
// engine tells them apart by whether the file is listed again),
// fs.ErrPermission for the server's other refusals, core.ErrClosed for a
// closed Client.
func mapErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ErrClientClosed):
		return fmt.Errorf("%w: %w", core.ErrClosed, err)
	case onlyReplies(err) && replyCode(err) == 550:
		return fmt.Errorf("%w: %w", fs.ErrNotExist, err)
	case onlyReplies(err) && replyCode(err) != 0:
		return fmt.Errorf("%w: %w", fs.ErrPermission, err)
	}
	return err
}

func (f ftpFS) List(ctx context.Context, dir string) ([]drop.Entry, error) {
	var list []*ftp.Entry
	var dropped int
	var begins []string
	err := f.c.retry(ctx, func() bool { return true }, func(cn *conn) error {
		g := &lineGuard{}
		cn.mu.Lock()
		cn.guard = g
		cn.mu.Unlock()
		defer func() {
			cn.mu.Lock()
			cn.guard = nil
			cn.mu.Unlock()
		}()
		var err error
		list, err = cn.sc.List(dir)
		dropped, begins = g.report()
		return err
	})
	if err != nil {
		return nil, mapErr(err)
	}
	out := make([]drop.Entry, 0, len(list)+dropped)
	for _, e := range list {
		de := drop.Entry{Name: e.Name, Size: int64(min(e.Size, 1<<62)), ModTime: e.Time}
		switch e.Type {
		case ftp.EntryTypeFile:
			de.Kind = drop.File
		case ftp.EntryTypeFolder:
			de.Kind = drop.Dir
		default:
			de.Kind = drop.Other
		}
		out = append(out, de)
	}
	for i := range dropped {
		begin := ""
		if i < len(begins) {
			begin = begins[i]
		}
		out = append(out, drop.Entry{Name: begin, Kind: drop.Other, Problem: "a listing line longer than " + strconv.Itoa(maxListLine) + " bytes (passed over; it begins with the name shown)"})
	}
	return out, nil
}

func (f ftpFS) Stat(ctx context.Context, p string) (drop.Entry, error) {
	var size int64
	err := f.c.do(ctx, func(sc *ftp.ServerConn) error {
		var err error
		size, err = sc.FileSize(p)
		return err
	})
	if err != nil && onlyReplies(err) {
		// SIZE answers 550 (or another refusal) for a missing file.
		return drop.Entry{}, fmt.Errorf("%w: %w", fs.ErrNotExist, err)
	}
	if err != nil {
		return drop.Entry{}, mapErr(err)
	}
	return drop.Entry{Size: size}, nil
}

func (f ftpFS) Rename(ctx context.Context, from, to string) error {
	return mapErr(f.c.once(ctx, func(sc *ftp.ServerConn) error { return sc.Rename(from, to) }))
}

func (f ftpFS) Remove(ctx context.Context, p string) error {
	return mapErr(f.c.once(ctx, func(sc *ftp.ServerConn) error { return sc.Delete(p) }))
}

func (f ftpFS) Mkdir(ctx context.Context, p string) error {
	return mapErr(f.c.do(ctx, func(sc *ftp.ServerConn) error {
		if err := sc.MakeDir(p); err != nil && !onlyReplies(err) {
			return err
		}
		if err := sc.ChangeDir(p); err != nil {
			return err
		}
		return sc.ChangeDir("/")
	}))
}

// Write uploads r to p (STOR). When a connection reused from the pool turns
// out dead before any byte was read from r, the upload is tried once more
// on a fresh connection.
func (f ftpFS) Write(ctx context.Context, p string, r io.Reader) error {
	t, _ := r.(interface{ Touched() bool })
	again := func() bool { return t != nil && !t.Touched() }
	return mapErr(f.c.retry(ctx, again, func(cn *conn) error { return cn.sc.Stor(p, r) }))
}

// Open starts a download (RETR) on a pooled connection, held until Close.
// A reused connection found dead when the command is sent is dropped, and
// the command sent again on a fresh one.
func (f ftpFS) Open(ctx context.Context, p string) (io.ReadCloser, error) {
	c := f.c
	for attempt := 0; ; attempt++ {
		cn, err := c.get(ctx)
		if err != nil {
			return nil, mapErr(err)
		}
		stop, err := cn.start(ctx)
		if err != nil {
			c.put(cn)
			return nil, err
		}
		r, err := cn.sc.Retr(p)
		if err == nil {
			return &download{c: c, cn: cn, r: r, ctx: ctx, stop: stop}, nil
		}
		err = cn.finish(ctx, stop, err)
		stale := cn.broken && cn.reused && ctx.Err() == nil
		c.put(cn)
		if !stale || attempt > 0 {
			return nil, mapErr(err)
		}
		c.dropIdle()
		c.o.log.InfoContext(ctx, "ftp: pooled connection broke; retrying on a fresh one", slog.String("server", c.host), slog.Any("err", err))
	}
}

// download is a RETR in progress on a pooled connection.
type download struct {
	c       *Client
	cn      *conn
	r       *ftp.Response
	ctx     context.Context
	stop    func() bool
	readErr error
	closed  bool
}

func (d *download) Read(b []byte) (int, error) {
	n, err := d.r.Read(b)
	if err != nil && err != io.EOF {
		d.readErr = err
	}
	return n, err
}

// Close ends the transfer: the server's final reply is read (426 when the
// download was stopped early: expected, the connection stays usable) and
// the connection goes back to the pool.
func (d *download) Close() error {
	if d.closed {
		return nil
	}
	d.closed = true
	err := d.r.Close()
	if d.readErr != nil {
		err = errors.Join(d.readErr, err)
	}
	err = d.cn.finish(d.ctx, d.stop, err)
	d.c.put(d.cn)
	return mapErr(err)
}
