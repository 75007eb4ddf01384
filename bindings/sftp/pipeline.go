package sftp

import (
	"context"
	"io"
	"sync"
)

// Pipelining: two requests that depend on each other sent one right after
// the other, without waiting for the first's answer. OpenSSH's sftp-server
// answers one connection's requests one at a time in the order they came
// (and the SFTP drafts ask a server to process requests that concern the
// same file in that order), so the second sees what the first did, one
// round trip sooner. Where a server does not (or refuses the pair, as a
// Windows server may refuse to rename an open file), the callers fall back
// to the plain order, one answer before the next request: no outcome
// depends on the server keeping the order, only the speed.
//
// The plain order is the reference the pipelined paths are tested against
// (sftpFS.plain; pipeline_test.go).

// packetWriter is an SFTP session's input. pkg/sftp writes each request
// under its connection lock, a request without data in one Write (CLOSE,
// posix-rename, REMOVE); packetWriter tells a caller when the next Write is
// done, so that it can send a second request knowing the first is ahead of
// it on the wire.
type packetWriter struct {
	w       io.WriteCloser
	mu      sync.Mutex
	waiting []chan struct{}
}

func (p *packetWriter) Write(b []byte) (int, error) {
	n, err := p.w.Write(b)
	p.mu.Lock()
	for _, c := range p.waiting {
		close(c)
	}
	p.waiting = p.waiting[:0]
	p.mu.Unlock()
	return n, err
}

func (p *packetWriter) Close() error { return p.w.Close() }

// next returns a channel closed once the next Write returns.
func (p *packetWriter) next() <-chan struct{} {
	c := make(chan struct{})
	p.mu.Lock()
	p.waiting = append(p.waiting, c)
	p.mu.Unlock()
	return c
}

// inOrder runs first and then second on one connection, second's request
// sent as soon as first's is written (or first has returned without
// writing); it returns both errors. first must send exactly one request
// without data, and nothing else may use the connection meanwhile (it is
// taken from the pool).
func inOrder(pw *packetWriter, first, second func() error) (error, error) {
	sent := pw.next()
	done := make(chan error, 1)
	go func() { done <- first() }()
	select {
	case <-sent:
		err2 := second()
		return <-done, err2
	case err1 := <-done:
		return err1, second()
	}
}

// closeBehind ends a download without waiting for the CLOSE's answer: the
// connection goes back to the pool once the CLOSE was written, its next
// request sent behind it (the plain order waits for the answer; sftpFS.plain). What was
// read is not changed by the answer to closing a file opened for reading,
// so it is not waited for; a CLOSE that fails on a broken connection marks
// it broken. The file's next rename or removal on this sftpFS (the Ack,
// a return to the inbox) waits for the answer first: a server that does
// not remove or rename a file still open (Windows) sees it closed.
func (d *download) closeBehind() {
	done := d.fs.closing(d.path)
	cn, f := d.cn, d.f
	sent := cn.pw.next()
	go func() {
		if err := f.Close(); err != nil && !serverAnswer(err) {
			cn.broken.Store(true)
		}
		cn.tc.end()
		d.fs.mu.Lock()
		if d.fs.closes[d.path] == done {
			delete(d.fs.closes, d.path)
		}
		d.fs.mu.Unlock()
		close(done)
	}()
	// The CLOSE leaves before the connection's next user writes: that one
	// may wait for its own request to be written (inOrder).
	select {
	case <-sent:
	case <-done:
	}
	cn.used = timeNow()
	d.c.put(cn)
}

// closing notes that p's download is being closed; the returned channel
// is closed once the CLOSE was answered.
func (f *sftpFS) closing(p string) chan struct{} {
	done := make(chan struct{})
	f.mu.Lock()
	if f.closes == nil {
		f.closes = make(map[string]chan struct{})
	}
	f.closes[p] = done
	f.mu.Unlock()
	return done
}

// closed waits until the download of p, if one is being closed behind,
// was closed, or ctx ends.
func (f *sftpFS) closed(ctx context.Context, p string) error {
	f.mu.Lock()
	done := f.closes[p]
	f.mu.Unlock()
	if done == nil {
		return nil
	}
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
