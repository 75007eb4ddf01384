package main_test

import (
	"bytes"
	"context"
	"encoding/xml"
	"net"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soapftp "github.com/soapwire/soapwire/bindings/ftp"
	soaphttp "github.com/soapwire/soapwire/bindings/http"
	soapnats "github.com/soapwire/soapwire/bindings/nats"
	soapsmtp "github.com/soapwire/soapwire/bindings/smtp"
	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/document"
)

// got is what a test server received.
type got struct {
	version                 core.Version
	action, id, to, replyTo string
	conversation            string
	headers                 []xml.Name
	body                    string // the body's children, as written by core
	meta                    map[string]string
}

// capture reads a received message whole.
func capture(m *core.Message) (got, error) {
	g := got{version: m.Version(), action: m.Action, id: m.ID, to: m.To, replyTo: m.ReplyTo,
		conversation: document.ConversationOf(m), meta: m.Meta}
	for _, h := range m.Envelope.Headers {
		g.headers = append(g.headers, h.Name)
	}
	var b bytes.Buffer
	if _, err := m.Body().WriteTo(&b); err != nil {
		return g, err
	}
	g.body = inherited.ReplaceAllString(b.String(), "")
	return g, nil
}

// inherited matches the declarations of the envelope's prefixes that a
// received body carries on its first element (core writes bodies
// namespace-complete).
var inherited = regexp.MustCompile(` xmlns:(soap|wsa)="[^"]*"`)

// httpSink is an HTTP endpoint (bindings/http) that keeps what it receives
// and answers 202, or with reply when set.
type httpSink struct {
	url string
	got chan got
}

func startHTTPSink(t *testing.T, opts ...soaphttp.HandlerOption) *httpSink {
	t.Helper()
	s := &httpSink{got: make(chan got, 16)}
	srv := httptest.NewServer(soaphttp.NewHandler(core.HandlerFunc(func(_ context.Context, m *core.Message) (*core.Message, error) {
		g, err := capture(m)
		if err != nil {
			return nil, err
		}
		s.got <- g
		return nil, nil
	}), opts...))
	t.Cleanup(srv.Close)
	s.url = srv.URL + "/orders"
	return s
}

func (s *httpSink) next(t *testing.T) got {
	t.Helper()
	select {
	case g := <-s.got:
		return g
	case <-time.After(20 * time.Second):
		t.Fatal("nothing arrived over HTTP")
	}
	return got{}
}

// smtpSink is an embedded SMTP server delivering into a Maildir.
type smtpSink struct {
	addr string
	mb   *soapsmtp.Maildir
}

func startSMTPSink(t *testing.T, box string, opts ...soapsmtp.ServerOption) *smtpSink {
	t.Helper()
	mb, err := soapsmtp.OpenMaildir(t.TempDir())
	require.NoError(t, err)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := soapsmtp.NewServer(l.Addr().String(), mb, append([]soapsmtp.ServerOption{soapsmtp.WithAddresses(box)}, opts...)...)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, l) }()
	t.Cleanup(func() { cancel(); assert.NoError(t, <-done) })
	return &smtpSink{addr: l.Addr().String(), mb: mb}
}

// next takes the next mail out of the Maildir.
func (s *smtpSink) next(t *testing.T) got {
	t.Helper()
	r := soapsmtp.NewReceiver(s.mb, soapsmtp.WithPollInterval(10*time.Millisecond))
	defer r.Close()
	d, err := r.Receive(testCtx(t))
	require.NoError(t, err)
	g, err := capture(d.Message())
	require.NoError(t, err)
	require.NoError(t, d.Ack(testCtx(t)))
	return g
}

// ftpSink is the embedded FTP server with an inbox folder.
type ftpSink struct {
	srv            *soapftp.Server
	user, password string
	inbox          string // ftp:// address
	inboxDir       string // on disk
}

func startFTPSink(t *testing.T) *ftpSink {
	t.Helper()
	root := t.TempDir()
	srv, err := soapftp.StartServer(root, "shop", "s3cret")
	require.NoError(t, err)
	t.Cleanup(func() { srv.Close() })
	dir := filepath.Join(srv.Root(), "orders", "inbox")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	return &ftpSink{srv: srv, user: "shop", password: "s3cret", inbox: srv.URL("/orders/inbox"), inboxDir: dir}
}

// file reads the message stored for id.
func (s *ftpSink) file(t *testing.T, id string) got {
	t.Helper()
	f, err := os.Open(filepath.Join(s.inboxDir, soapftp.FileName(id)))
	require.NoError(t, err)
	defer f.Close()
	m, err := core.ReadMessage(f, core.Limits{MaxBytes: -1})
	require.NoError(t, err)
	g, err := capture(m)
	require.NoError(t, err)
	return g
}

// natsSink is an embedded NATS server with JetStream.
type natsSink struct {
	srv *soapnats.Server
	nc  *nats.Conn
}

func startNATS(t *testing.T) *natsSink {
	t.Helper()
	srv, err := soapnats.StartServer("")
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, srv.Close()) })
	nc, err := srv.Connect()
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	return &natsSink{srv: srv, nc: nc}
}

// subscribe serves subject with h (request-reply and publishes).
func (s *natsSink) subscribe(t *testing.T, subject string, h core.Handler) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	sub, err := soapnats.Subscribe(ctx, s.nc, subject, h)
	require.NoError(t, err)
	t.Cleanup(func() { cancel(); sub.Close() })
}

// collect subscribes to subject and returns what arrives.
func (s *natsSink) collect(t *testing.T, subject string) <-chan got {
	t.Helper()
	ch := make(chan got, 16)
	var mu sync.Mutex
	s.subscribe(t, subject, core.HandlerFunc(func(_ context.Context, m *core.Message) (*core.Message, error) {
		mu.Lock()
		defer mu.Unlock()
		g, err := capture(m)
		if err != nil {
			return nil, err
		}
		ch <- g
		return nil, nil
	}))
	return ch
}

// stream creates a JetStream stream capturing subject.
func (s *natsSink) stream(t *testing.T, name, subject string) jetstream.Stream {
	t.Helper()
	js, err := jetstream.New(s.nc)
	require.NoError(t, err)
	st, err := js.CreateStream(testCtx(t), jetstream.StreamConfig{Name: name, Subjects: []string{subject}})
	require.NoError(t, err)
	return st
}

// storedMessage reads message seq of a stream.
func storedMessage(t *testing.T, st jetstream.Stream, seq uint64) got {
	t.Helper()
	raw, err := st.GetMsg(testCtx(t), seq)
	require.NoError(t, err)
	m, err := core.ReadMessage(bytes.NewReader(raw.Data), core.Limits{})
	require.NoError(t, err)
	g, err := capture(m)
	require.NoError(t, err)
	return g
}

func waitFor(t *testing.T, ch <-chan got) got {
	t.Helper()
	select {
	case g := <-ch:
		return g
	case <-time.After(20 * time.Second):
		t.Fatal("nothing arrived")
	}
	return got{}
}
