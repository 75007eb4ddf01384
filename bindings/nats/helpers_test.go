package nats_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	soapnats "github.com/soapwire/soapwire/bindings/nats"
	"github.com/soapwire/soapwire/core"
)

const (
	testNS      = "urn:soapwire:nats:test"
	testTimeout = 10 * time.Second
)

// startServer runs an embedded server for the test.
func startServer(t testing.TB, opts ...soapnats.ServerOption) *soapnats.Server {
	t.Helper()
	s, err := soapnats.StartServer(t.TempDir(), opts...)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, s.Close()) })
	return s
}

// connect opens a connection to s, closed when the test ends.
func connect(t testing.TB, s *soapnats.Server, opts ...nats.Option) *nats.Conn {
	t.Helper()
	nc, err := s.Connect(opts...)
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	return nc
}

// subscribe serves h on subject until the test ends.
func subscribe(t testing.TB, nc *nats.Conn, subject string, h core.Handler, opts ...soapnats.SubscribeOption) *soapnats.Subscription {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	sub, err := soapnats.Subscribe(ctx, nc, subject, h, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { cancel(); sub.Close() })
	return sub
}

// testCtx is a context bounded by 10 s, cancelled when the test ends.
func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// echo replies with the request's body text, action and id in an element.
var echo = core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
	var in struct {
		Text string `xml:",chardata"`
	}
	if err := m.Body().Decode(&in); err != nil {
		return nil, err
	}
	r := m.Reply(core.RawBody(body("echoResponse", in.Text)))
	r.Action = m.Action + "Response"
	return r, nil
})

// body returns <t:local xmlns:t="testNS">text</t:local>.
func body(local, text string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, `<t:%s xmlns:t="%s">`, local, testNS)
	_ = xmlEscape(&b, text)
	fmt.Fprintf(&b, `</t:%s>`, local)
	return b.Bytes()
}

func xmlEscape(b *bytes.Buffer, s string) error {
	r := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")
	_, err := r.WriteString(b, s)
	return err
}

// text returns the text of m's body element.
func text(t testing.TB, m *core.Message) string {
	t.Helper()
	s, err := bodyText(m)
	require.NoError(t, err)
	return s
}

// bodyText returns the text of m's body element (for goroutines other
// than the test's).
func bodyText(m *core.Message) (string, error) {
	var v struct {
		Text string `xml:",chardata"`
	}
	err := m.Body().Decode(&v)
	return v.Text, err
}

// envelope returns a whole envelope of version v around body, with
// optional header blocks.
func envelope(v core.Version, headers, body string) []byte {
	h := ""
	if headers != "" {
		h = "<s:Header>" + headers + "</s:Header>"
	}
	return []byte(`<s:Envelope xmlns:s="` + v.Namespace() + `">` + h + `<s:Body>` + body + `</s:Body></s:Envelope>`)
}

// logs is a logger writing JSON lines into a buffer safe for concurrent
// use.
type logs struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logs) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logs) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func newLogs() (*slog.Logger, *logs) {
	l := &logs{}
	return slog.New(slog.NewTextHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug})), l
}

// ordersServer starts an embedded server with two memory streams, ORDERS
// ("orders.>") and DEAD (the default dead-letter subjects), and returns it
// with a connection to it.
func ordersServer(t testing.TB) (*soapnats.Server, *nats.Conn) {
	t.Helper()
	s := startServer(t)
	nc := connect(t, s)
	createStream(t, nc, "ORDERS", false, "orders.>")
	createStream(t, nc, "DEAD", false, "soapwire.dead.>")
	return s, nc
}

// createStream creates a stream with the given subjects (memory storage
// unless file is set).
func createStream(t testing.TB, nc *nats.Conn, name string, file bool, subjects ...string) jetstream.Stream {
	t.Helper()
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	storage := jetstream.MemoryStorage
	if file {
		storage = jetstream.FileStorage
	}
	s, err := js.CreateOrUpdateStream(testCtx(t), jetstream.StreamConfig{Name: name, Subjects: subjects, Storage: storage})
	require.NoError(t, err)
	return s
}

// newReceiver opens a Receiver, closed when the test ends.
func newReceiver(t testing.TB, nc *nats.Conn, addr, durable string, opts ...soapnats.ReceiverOption) *soapnats.Receiver {
	t.Helper()
	r, err := soapnats.NewReceiver(testCtx(t), nc, addr, durable, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { r.Close() })
	return r
}
