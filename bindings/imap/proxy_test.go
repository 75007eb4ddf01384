package imap_test

import (
	"bytes"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// proxy is a TCP proxy between a client and a server on loopback that can
// fail the way networks and servers do: cut a connection in the middle of
// what the server sends, or cut connections the client leaves silent.
type proxy struct {
	ln     net.Listener
	target string

	conns     atomic.Int32 // connections accepted
	idles     atomic.Int32 // IDLE commands the clients sent
	cutAfter  atomic.Pointer[[]byte]
	cutOnce   atomic.Bool
	idleLimit atomic.Int64 // ns; a client connection silent that long is cut
	cuts      atomic.Int32
	strip     atomic.Pointer[[]string] // taken out of what the server sends ("old" or "old\x00new": replaced)

	mu    sync.Mutex
	links []net.Conn
	sent  bytes.Buffer // what the clients sent, the first 64 KiB
}

// clientSent reports whether the clients sent s.
func (p *proxy) clientSent(s string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return bytes.Contains(p.sent.Bytes(), []byte(s))
}

func startProxy(t *testing.T, target string) *proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	p := &proxy{ln: ln, target: target}
	t.Cleanup(func() {
		ln.Close()
		p.mu.Lock()
		for _, c := range p.links {
			c.Close()
		}
		p.mu.Unlock()
	})
	go p.serve()
	return p
}

func (p *proxy) addr() string { return p.ln.Addr().String() }

// cutMidway makes the proxy cut the next connection whose server sends
// marker, after half of what follows marker in that read.
func (p *proxy) cutMidway(marker string) {
	b := []byte(marker)
	p.cutOnce.Store(false)
	p.cutAfter.Store(&b)
}

func (p *proxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		s, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		p.conns.Add(1)
		p.mu.Lock()
		p.links = append(p.links, c, s)
		p.mu.Unlock()
		var last atomic.Int64
		last.Store(time.Now().UnixNano())
		done := make(chan struct{})
		go func() { // client → server
			defer close(done)
			buf := make([]byte, 32<<10)
			for {
				n, err := c.Read(buf)
				if n > 0 {
					last.Store(time.Now().UnixNano())
					p.idles.Add(int32(bytes.Count(buf[:n], []byte(" IDLE\r\n"))))
					p.mu.Lock()
					if p.sent.Len() < 64<<10 {
						p.sent.Write(buf[:n])
					}
					p.mu.Unlock()
					if _, err := s.Write(buf[:n]); err != nil {
						break
					}
				}
				if err != nil {
					break
				}
			}
			s.Close()
			c.Close()
		}()
		go func() { // server → client
			buf := make([]byte, 32<<10)
			for {
				n, err := s.Read(buf)
				if n > 0 {
					out := buf[:n]
					if st := p.strip.Load(); st != nil {
						for _, x := range *st {
							old, repl, _ := strings.Cut(x, "\x00")
							out = bytes.ReplaceAll(out, []byte(old), []byte(repl))
						}
					}
					if m := p.cutAfter.Load(); m != nil && !p.cutOnce.Load() {
						if i := bytes.Index(out, *m); i >= 0 && p.cutOnce.CompareAndSwap(false, true) {
							end := i + len(*m) + (len(out)-i-len(*m))/2
							c.Write(out[:end])
							p.cuts.Add(1)
							c.Close()
							s.Close()
							return
						}
					}
					if _, err := c.Write(out); err != nil {
						break
					}
				}
				if err != nil {
					break
				}
			}
			c.Close()
			s.Close()
		}()
		go func() { // the idle cutter
			t := time.NewTicker(5 * time.Millisecond)
			defer t.Stop()
			for {
				select {
				case <-done:
					return
				case <-t.C:
				}
				if lim := p.idleLimit.Load(); lim > 0 && time.Now().UnixNano()-last.Load() > lim {
					p.cuts.Add(1)
					c.Close()
					s.Close()
					return
				}
			}
		}()
	}
}

var _ = io.EOF

// url is the imap:// address of user's INBOX through the proxy.
func (p *proxy) url(user string) string { return "imap://" + user + "@" + p.addr() + "/INBOX" }
