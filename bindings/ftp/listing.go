package ftp

import (
	"bytes"
	"net"
	"sync"
)

// maxListLine bounds a line of a listing (LIST, MLSD): far above any entry
// the Poller takes (names of at most MaxNameLen bytes), far below
// jlaffaye/ftp's 64 KiB scanner limit, past which one line would make
// the whole listing fail and the inbox stuck for good.
const maxListLine = 8 << 10

// lineGuard passes a listing's complete lines of at most maxListLine bytes
// and drops longer ones, noting how each began.
type lineGuard struct {
	mu      sync.Mutex
	line    []byte // the current line, while it fits
	over    bool   // the current line is too long: dropping to its end
	out     []byte // complete lines not yet read
	dropped []string
	count   int
}

// maxDropNoted bounds the dropped lines a listing remembers.
const maxDropNoted = 16

func (g *lineGuard) feed(b []byte) {
	for _, c := range b {
		if g.over {
			if c == '\n' {
				g.over = false
			}
			continue
		}
		g.line = append(g.line, c)
		if c == '\n' {
			g.out = append(g.out, g.line...)
			g.line = g.line[:0]
			continue
		}
		if len(g.line) > maxListLine {
			g.count++
			if len(g.dropped) < maxDropNoted {
				g.dropped = append(g.dropped, lineName(g.line))
			}
			g.line, g.over = g.line[:0], true
		}
	}
}

// flush passes a last line without an end of line (at EOF).
func (g *lineGuard) flush() {
	if !g.over && len(g.line) > 0 {
		g.out = append(g.out, g.line...)
	}
	g.line, g.over = g.line[:0], false
}

// report returns the count of dropped lines and how some began.
func (g *lineGuard) report() (int, []string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.count, g.dropped
}

// guardedConn is a listing's data connection seen through its lineGuard.
type guardedConn struct {
	net.Conn
	g   *lineGuard
	buf [32 << 10]byte
}

func (c *guardedConn) Read(p []byte) (int, error) {
	g := c.g
	for {
		g.mu.Lock()
		if len(g.out) > 0 {
			n := copy(p, g.out)
			g.out = g.out[n:]
			g.mu.Unlock()
			return n, nil
		}
		g.mu.Unlock()
		n, err := c.Conn.Read(c.buf[:])
		g.mu.Lock()
		g.feed(c.buf[:n])
		if err != nil {
			g.flush()
			if len(g.out) > 0 {
				n := copy(p, g.out)
				g.out = g.out[n:]
				g.mu.Unlock()
				return n, nil
			}
		}
		g.mu.Unlock()
		if err != nil {
			return 0, err
		}
	}
}

// lineName returns how the name in a listing line begins: after an MLSD
// line's facts ("type=file;size=1; name"), else the line's start (a LIST
// line's name comes last, after a time that changes).
func lineName(line []byte) string {
	if i := bytes.Index(line[:min(len(line), 512)], []byte("; ")); i >= 0 {
		line = line[i+2:]
	}
	return string(line[:min(len(line), 120)])
}
