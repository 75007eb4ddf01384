package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// progress reports how much of the input a send has read, on stderr: a
// line rewritten in place on a terminal, one line per interval otherwise.
type progress struct {
	w      io.Writer
	tty    bool
	total  int64         // -1 when unknown
	delay  time.Duration // nothing is shown before (a short send shows nothing)
	every  time.Duration
	n      atomic.Int64
	start  time.Time
	stop   chan struct{}
	done   chan struct{}
	shown  bool
	finish sync.Once
}

// isTerminal reports whether v (a writer or a reader) is a terminal: a
// character device other than the null device (which "< /dev/null" and
// "2>/dev/null" give).
func isTerminal(v any) bool {
	f, ok := v.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	if err != nil || st.Mode()&os.ModeCharDevice == 0 {
		return false
	}
	null, err := os.Stat(os.DevNull)
	return err != nil || !os.SameFile(st, null)
}

// startProgress starts reporting on w. forced (--progress) shows it from
// the start; otherwise it appears on a terminal after a second.
func startProgress(w io.Writer, forced bool, total int64) *progress {
	p := &progress{w: w, tty: isTerminal(w), total: total, start: time.Now(),
		stop: make(chan struct{}), done: make(chan struct{})}
	switch {
	case forced && p.tty:
		p.every = 200 * time.Millisecond
	case forced:
		p.every = time.Second
	case p.tty:
		p.every, p.delay = 200*time.Millisecond, time.Second
	default: // not asked for, not a terminal: count, show nothing
		close(p.done)
		return p
	}
	go p.loop()
	return p
}

// reader counts what is read from r.
func (p *progress) reader(r io.Reader) io.Reader { return &countingReader{r: r, n: &p.n} }

func (p *progress) loop() {
	defer close(p.done)
	t := time.NewTicker(p.every)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			if time.Since(p.start) >= p.delay {
				p.line("sending: " + p.amount())
			}
		}
	}
}

// line writes one report.
func (p *progress) line(s string) {
	p.shown = true
	if p.tty {
		fmt.Fprintf(p.w, "\r\033[K%s", s)
	} else {
		fmt.Fprintln(p.w, s)
	}
}

func (p *progress) amount() string {
	n := p.n.Load()
	if p.total > 0 {
		return fmt.Sprintf("%s of %s (%d%%)", byteSize(n), byteSize(p.total), n*100/p.total)
	}
	return byteSize(n)
}

// done stops reporting; when anything was shown (or forced), it ends with
// what was sent, or that the send failed.
func (p *progress) end(ok, forced bool) {
	p.finish.Do(func() {
		close(p.stop)
		<-p.done
		if p.every == 0 {
			return
		}
		if !p.shown && !forced {
			return
		}
		n := p.n.Load()
		msg := fmt.Sprintf("sent %d bytes (%s) in %s", n, byteSize(n), time.Since(p.start).Round(time.Millisecond))
		if !ok {
			msg = fmt.Sprintf("send failed after %d bytes (%s)", n, byteSize(n))
		}
		p.line(msg)
		if p.tty {
			fmt.Fprintln(p.w)
		}
	})
}

// byteSize writes n in binary units.
func byteSize(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 4; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTP"[exp])
}

type countingReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.n.Add(int64(n))
	return n, err
}
