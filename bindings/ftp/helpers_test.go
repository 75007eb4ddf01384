package ftp_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jlaffaye/ftp"
	"github.com/stretchr/testify/require"

	soapftp "github.com/soapwire/soapwire/bindings/ftp"
	"github.com/soapwire/soapwire/core"
)

const (
	testUser = "alice"
	testPass = "secret"
	testNS   = "urn:soapwire:ftp-test"
)

// env is an embedded server with a Client logged in to it.
type env struct {
	srv    *soapftp.Server
	client *soapftp.Client
	log    *logBuffer
	trace  *slog.Logger // everything, at debug level: printed when the test fails
}

// startServer starts an embedded server on a fresh folder.
func startServer(t testing.TB, opts ...soapftp.ServerOption) *soapftp.Server {
	t.Helper()
	srv, err := soapftp.StartServer(t.TempDir(), testUser, testPass, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { srv.Close() })
	return srv
}

// newEnv starts a server and a Client for it. What the server, the Client
// and the env's Pollers log is printed if the test fails (traceOnFailure).
func newEnv(t testing.TB, opts ...soapftp.ClientOption) *env {
	t.Helper()
	trace := traceOnFailure(t)
	srv := startServer(t, soapftp.WithLogger(trace.With("by", "server")))
	lb := &logBuffer{}
	c := soapftp.NewClient(srv.Addr(), testUser, testPass, append([]soapftp.ClientOption{soapftp.WithLogger(lb.logger(trace.With("by", "client")))}, opts...)...)
	t.Cleanup(func() { c.Close() })
	return &env{srv: srv, client: c, log: lb, trace: trace}
}

// poller returns a Poller on root with a short poll interval, its folders made.
func (e *env) poller(t testing.TB, root string, opts ...soapftp.PollerOption) *soapftp.Poller {
	t.Helper()
	base := []soapftp.PollerOption{soapftp.WithPollInterval(5 * time.Millisecond), soapftp.WithMaxPollInterval(50 * time.Millisecond), soapftp.WithLogger(e.log.logger(e.trace.With("by", "poller "+root)))}
	p, err := soapftp.NewPoller(e.client, root, append(base, opts...)...)
	require.NoError(t, err)
	require.NoError(t, p.MakeLayout(ctx(t)))
	t.Cleanup(func() { p.Close() })
	return p
}

// path is the on-disk path of a file on the embedded server.
func (e *env) path(elem ...string) string {
	return filepath.Join(append([]string{e.srv.Root()}, elem...)...)
}

// files lists the names in a folder on disk.
func (e *env) files(t testing.TB, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(e.path(dir))
	require.NoError(t, err)
	var out []string
	for _, d := range ents {
		out = append(out, d.Name())
	}
	return out
}

// drop writes a file into a folder on disk atomically (as a finished upload).
func (e *env) drop(t testing.TB, dir, name string, data []byte) {
	t.Helper()
	tmp := e.path(dir, ".drop-"+name)
	require.NoError(t, os.WriteFile(tmp, data, 0o644))
	require.NoError(t, os.Rename(tmp, e.path(dir, name)))
}

// rawConn is a plain jlaffaye/ftp connection, logged in.
func rawConn(t testing.TB, addr string) *ftp.ServerConn {
	t.Helper()
	c, err := ftp.Dial(addr, ftp.DialWithTimeout(5*time.Second))
	require.NoError(t, err)
	t.Cleanup(func() { c.Quit() })
	require.NoError(t, c.Login(testUser, testPass))
	return c
}

func ctx(t testing.TB) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return c
}

// ping returns a message with a Ping body holding text.
func ping(v core.Version, text string) *core.Message {
	var b bytes.Buffer
	fmt.Fprintf(&b, `<t:Ping xmlns:t="%s">`, testNS)
	b.WriteString(text)
	b.WriteString(`</t:Ping>`)
	m := core.NewMessage(v, core.RawBody(b.Bytes()))
	m.ID = core.NewMessageID()
	m.Action = testNS + "/Ping"
	return m
}

// envelope returns the bytes of m as a file would hold them.
func envelope(t testing.TB, m *core.Message) []byte {
	t.Helper()
	var b bytes.Buffer
	_, err := m.WriteTo(&b)
	require.NoError(t, err)
	return b.Bytes()
}

// text decodes the Ping/Pong text of a message body.
func text(t testing.TB, m *core.Message) string {
	t.Helper()
	var v struct {
		Text string `xml:",chardata"`
	}
	require.NoError(t, m.Body().Decode(&v))
	return v.Text
}

// logBuffer collects log lines for assertions.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// logger logs into the buffer at info level, and into also (if any) at
// its own level.
func (l *logBuffer) logger(also ...*slog.Logger) *slog.Logger {
	hs := []slog.Handler{slog.NewTextHandler(l, &slog.HandlerOptions{Level: slog.LevelInfo})}
	for _, a := range also {
		hs = append(hs, a.Handler())
	}
	return slog.New(slog.NewMultiHandler(hs...))
}

// traceOnFailure returns a logger, at debug level, whose lines are printed
// through t.Log at the end of the test when it failed, and dropped when it
// passed. Lines logged after that (a goroutine still winding down) are
// dropped too.
func traceOnFailure(t testing.TB) *slog.Logger {
	tb := &traceBuffer{start: time.Now()}
	t.Cleanup(func() { // registered first: runs after every other cleanup
		tb.mu.Lock()
		defer tb.mu.Unlock()
		tb.done = true
		if t.Failed() {
			t.Logf("trace (ms since the start of the test):\n%s", tb.buf.String())
		}
	})
	return slog.New(slog.NewTextHandler(tb, &slog.HandlerOptions{
		Level: slog.LevelDebug,
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey && len(groups) == 0 {
				return slog.String("ms", fmt.Sprintf("%.1f", float64(time.Since(tb.start).Microseconds())/1000))
			}
			return a
		},
	}))
}

// traceBuffer holds traceOnFailure's lines.
type traceBuffer struct {
	start time.Time
	mu    sync.Mutex
	buf   bytes.Buffer
	done  bool
}

func (b *traceBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.done {
		b.buf.Write(p)
	}
	return len(p), nil
}

// contains waits until the log holds s.
func (l *logBuffer) contains(t testing.TB, s string) {
	t.Helper()
	require.Eventually(t, func() bool { return strings.Contains(l.String(), s) }, 10*time.Second, 5*time.Millisecond, "log line %q; log:\n%s", s, l)
}
