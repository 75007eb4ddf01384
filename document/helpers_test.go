package document_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/coretest"
	"github.com/soapwire/soapwire/document"
)

// recorder is a core.Sender that keeps what it was given (serialized and
// read back, as a wire would) and can fail on demand.
type recorder struct {
	mu   sync.Mutex
	sent []*core.Message
	err  error
	meta map[string]string
}

func (r *recorder) Send(_ context.Context, m *core.Message) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil {
		return r.err
	}
	var buf bytes.Buffer
	if _, err := m.WriteTo(&buf); err != nil {
		return err
	}
	got, err := core.ReadMessage(&buf, core.Limits{})
	if err != nil {
		return err
	}
	for k, v := range r.meta {
		m.SetMeta(k, v)
	}
	r.sent = append(r.sent, got)
	return nil
}

func (r *recorder) messages() []*core.Message {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*core.Message(nil), r.sent...)
}

func (r *recorder) fail(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.err = err
}

// logBuffer is a *slog.Logger whose lines a test can read.
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

func (l *logBuffer) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

func (l *logBuffer) contains(s string) bool { return strings.Contains(l.String(), s) }

// newPipe returns a Pipe closed at the end of the test.
func newPipe(t *testing.T, opts ...coretest.PipeOption) *coretest.Pipe {
	t.Helper()
	p := coretest.NewPipe(opts...)
	t.Cleanup(func() { _ = p.Close() })
	return p
}

// serve runs core.Serve over r with h until the end of the test.
func serve(t *testing.T, r core.Receiver, h core.Handler, replies core.Sender, opts ...core.ServeOption) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- core.Serve(ctx, r, h, replies, opts...) }()
	t.Cleanup(func() {
		cancel()
		require.NoError(t, <-done)
	})
}

// receive takes the next message from p within a bound that only turns a
// hang into a failure, and acks it.
func receive(t *testing.T, p *coretest.Pipe) *core.Message {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	d, err := p.Receive(ctx)
	require.NoError(t, err)
	require.NoError(t, d.Ack(ctx))
	return d.Message()
}

// bodyString buffers a message's body.
func bodyString(t *testing.T, m *core.Message) string {
	t.Helper()
	var buf bytes.Buffer
	_, err := m.Body().WriteTo(&buf)
	require.NoError(t, err)
	return buf.String()
}

// eventually polls cond until it holds (a bound against hangs, not a timing
// assertion).
func eventually(t *testing.T, cond func() bool, msg string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("never happened: %s", msg)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// buyers lets a Handler mail its answers to the test buyers' domain.
var buyers = document.WithReplyPolicy(core.ReplyPolicy{Mailboxes: []string{"@b.example"}})
