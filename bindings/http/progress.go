package http

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"
)

// progressStep is how much of a streamed request or reply earns a call
// another WithTimeout: the size up to which an envelope is sent with a
// Content-Length and a reply is read whole.
const progressStep = 64 << 10

// progress bounds a call whose ctx has no deadline (WithTimeout). Until the
// reply's headers, the call has d of wall time, renewed by each
// progressStep of a streamed request the connection takes. Then the
// reply's body has d of waiting, counted only while a read of it waits (a
// caller busy between reads spends none), renewed by each progressStep it
// brings. When it runs out, the call's context is cancelled with an error
// holding context.DeadlineExceeded.
type progress struct {
	d      time.Duration
	ctx    context.Context
	cancel context.CancelCauseFunc
	cause  error
	timer  *time.Timer

	mu      sync.Mutex
	reply   bool          // the reply's headers are in
	left    time.Duration // the reply's waiting time left before its next step
	counted int64         // bytes since the last renewal
}

// bound returns ctx bounded by the Transport's WithTimeout, or ctx itself
// and nil when ctx has a deadline or the bound is off.
func (t *Transport) bound(ctx context.Context) (context.Context, *progress) {
	if t.o.timeout <= 0 {
		return ctx, nil
	}
	if _, ok := ctx.Deadline(); ok {
		return ctx, nil
	}
	p := &progress{d: t.o.timeout}
	p.ctx, p.cancel = context.WithCancelCause(ctx)
	p.cause = fmt.Errorf("no progress in %s (the Transport's WithTimeout): %w", t.o.timeout, context.DeadlineExceeded)
	p.timer = time.AfterFunc(p.d, func() { p.cancel(p.cause) })
	return p.ctx, p
}

// sent counts n bytes of a streamed request taken by the connection.
func (p *progress) sent(n int) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.reply {
		return
	}
	if p.counted += int64(n); p.counted >= progressStep {
		p.counted = 0
		p.timer.Reset(p.d)
	}
}

// headers marks the reply's headers in: from now on, only the waiting of
// reads of its body counts.
func (p *progress) headers() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.timer.Stop()
	p.reply, p.left, p.counted = true, p.d, 0
}

// done releases the bound: the call ended (an error, or the reply's body
// closed).
func (p *progress) done() {
	if p == nil {
		return
	}
	p.timer.Stop()
	p.cancel(nil)
}

// err is the error to return for err from an operation of the call: the
// bound's own when it ran out.
func (p *progress) err(err error) error {
	if p != nil && err != nil && context.Cause(p.ctx) == p.cause {
		return p.cause
	}
	return err
}

// watchedBody is a reply body under its call's progress bound.
type watchedBody struct {
	rc io.ReadCloser
	p  *progress
}

func (b *watchedBody) Read(buf []byte) (int, error) {
	p := b.p
	p.mu.Lock()
	left := p.left
	p.mu.Unlock()
	if left <= 0 {
		p.cancel(p.cause)
		return 0, p.cause
	}
	start := time.Now()
	p.timer.Reset(left)
	n, err := b.rc.Read(buf)
	p.timer.Stop()
	p.mu.Lock()
	p.left -= time.Since(start)
	if p.counted += int64(n); p.counted >= progressStep {
		p.counted, p.left = 0, p.d
	}
	p.mu.Unlock()
	return n, p.err(err)
}

func (b *watchedBody) Close() error {
	err := b.rc.Close()
	b.p.done()
	return err
}
