package smtp_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	gosmtp "github.com/emersion/go-smtp"
	"github.com/stretchr/testify/require"

	soapsmtp "github.com/soapwire/soapwire/bindings/smtp"
	"github.com/soapwire/soapwire/core"
)

var boxes atomic.Int64

// testServer is a Server on loopback delivering into a Maildir.
type testServer struct {
	addr    string // host:port
	dir     string
	box     string // the address it accepts
	mailto  string
	mb      *soapsmtp.Maildir
	stopped chan struct{}
	stop    context.CancelFunc
}

// startServer serves a fresh address into the Maildir at dir until the test
// ends.
func startServer(t *testing.T, dir string, opts ...soapsmtp.ServerOption) *testServer {
	t.Helper()
	mb, err := soapsmtp.OpenMaildir(dir)
	require.NoError(t, err)
	return startServerOn(t, mb, opts...)
}

func startServerOn(t *testing.T, mb *soapsmtp.Maildir, opts ...soapsmtp.ServerOption) *testServer {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	return startServerWith(t, mb, l, opts...)
}

// startServerWith serves on l.
func startServerWith(t *testing.T, mb *soapsmtp.Maildir, l net.Listener, opts ...soapsmtp.ServerOption) *testServer {
	t.Helper()
	box := fmt.Sprintf("box-%d@example.test", boxes.Add(1))
	srv := soapsmtp.NewServer(l.Addr().String(), mb, append([]soapsmtp.ServerOption{soapsmtp.WithAddresses(box), soapsmtp.WithHostname("mx.example.test")}, opts...)...)
	ctx, cancel := context.WithCancel(context.Background())
	ts := &testServer{addr: l.Addr().String(), dir: mb.Dir(), box: box, mailto: "mailto:" + box, mb: mb, stopped: make(chan struct{}), stop: cancel}
	go func() {
		defer close(ts.stopped)
		if err := srv.Serve(ctx, l); err != nil {
			t.Errorf("Serve: %v", err)
		}
	}()
	t.Cleanup(func() { cancel(); <-ts.stopped })
	return ts
}

// shutdown stops the server and waits for it.
func (ts *testServer) shutdown() {
	ts.stop()
	<-ts.stopped
}

// newSender returns a Sender to addr from sender@example.test, closed when
// the test ends.
func newSender(t *testing.T, addr string, opts ...soapsmtp.SenderOption) *soapsmtp.Sender {
	t.Helper()
	s, err := soapsmtp.NewSender(addr, "sender@example.test", append([]soapsmtp.SenderOption{soapsmtp.WithHostname("client.example.test")}, opts...)...)
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return s
}

// newReceiver returns a Receiver on mb, closed when the test ends.
func newReceiver(t *testing.T, mb *soapsmtp.Maildir, opts ...soapsmtp.ReceiverOption) *soapsmtp.Receiver {
	t.Helper()
	r := soapsmtp.NewReceiver(mb, opts...)
	t.Cleanup(func() { r.Close() })
	return r
}

// ctxT returns a context that ends with the test or after 20 s.
func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// files returns the names in a folder of a Maildir.
func files(t *testing.T, dir, folder string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(dir, folder))
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// ping returns a message of version v with a small body.
func ping(v core.Version, text string) *core.Message {
	m := core.NewMessage(v, core.RawBody([]byte(`<p:ping xmlns:p="urn:test">`+text+`</p:ping>`)))
	m.Action = "urn:test:ping"
	return m
}

// bodyText returns the text of a message's body element.
func bodyText(t *testing.T, m *core.Message) string {
	t.Helper()
	var v struct {
		Text string `xml:",chardata"`
	}
	require.NoError(t, m.Body().Decode(&v))
	return v.Text
}

// logRecorder is a slog.Handler that keeps the messages logged, and calls
// hook for each.
type logRecorder struct {
	mu     sync.Mutex
	msgs   []string
	levels []slog.Level
	errs   []string // the "err" attribute of each message, if any
	counts []int    // the "count" attribute of each message (how many it stands for), else 1
	hook   func(msg string)
}

func (l *logRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (l *logRecorder) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *logRecorder) WithGroup(string) slog.Handler            { return l }
func (l *logRecorder) Handle(_ context.Context, r slog.Record) error {
	var errText string
	n := 1
	r.Attrs(func(a slog.Attr) bool {
		switch a.Key {
		case "err":
			errText = a.Value.String()
		case "count":
			n = int(a.Value.Int64())
		}
		return true
	})
	l.mu.Lock()
	l.counts = append(l.counts, n)
	l.msgs = append(l.msgs, r.Message)
	l.levels = append(l.levels, r.Level)
	l.errs = append(l.errs, errText)
	hook := l.hook
	l.mu.Unlock()
	if hook != nil {
		hook(r.Message)
	}
	return nil
}

// setHook sets the hook.
func (l *logRecorder) setHook(hook func(msg string)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.hook = hook
}

// count returns how many messages contained s.
func (l *logRecorder) count(s string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, m := range l.msgs {
		if strings.Contains(m, s) {
			n++
		}
	}
	return n
}

// total returns how many events the messages containing s stand for
// (their "count", else one each).
func (l *logRecorder) total(s string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for i, m := range l.msgs {
		if strings.Contains(m, s) {
			n += l.counts[i]
		}
	}
	return n
}

// atLeast returns the messages logged at level or above, with their
// errors.
func (l *logRecorder) atLeast(level slog.Level) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for i, m := range l.msgs {
		if l.levels[i] >= level {
			out = append(out, m+" "+l.errs[i])
		}
	}
	return out
}

func (l *logRecorder) logger() *slog.Logger { return slog.New(l) }

// countingListener counts the connections it accepts.
type countingListener struct {
	net.Listener
	n atomic.Int64
}

func (c *countingListener) Accept() (net.Conn, error) {
	conn, err := c.Listener.Accept()
	if err == nil {
		c.n.Add(1)
	}
	return conn, err
}

// selfSigned returns a server TLS config with a fresh self-signed
// certificate for 127.0.0.1 and localhost, and a client config trusting it.
func selfSigned(t *testing.T) (server, client *tls.Config) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "soapwire test"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		DNSNames:              []string{"localhost"},
		IPAddresses:           []net.IP{net.ParseIP("127.0.0.1")},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	cert, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	server = &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key, Leaf: cert}}}
	client = &tls.Config{RootCAs: pool}
	return server, client
}

// rawMail sends data (an RFC 5322 mail) with go-smtp's client, as an
// independent client would, and returns the error of the first refusal.
func rawMail(addr, from string, to []string, data string) error {
	c, err := gosmtp.Dial(addr)
	if err != nil {
		return err
	}
	defer c.Close()
	if err := c.Mail(from, nil); err != nil {
		return err
	}
	for _, r := range to {
		if err := c.Rcpt(r, nil); err != nil {
			return err
		}
	}
	w, err := c.Data()
	if err != nil {
		return err
	}
	if _, err := io.WriteString(w, data); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	return c.Quit()
}

// smtpCode returns the code of a go-smtp error, or 0.
func smtpCode(err error) int {
	var se *gosmtp.SMTPError
	if errors.As(err, &se) {
		return se.Code
	}
	return 0
}

// envelope12 is a small SOAP 1.2 envelope with no WS-Addressing headers.
const envelope12 = `<?xml version="1.0" encoding="utf-8"?>` +
	`<env:Envelope xmlns:env="http://www.w3.org/2003/05/soap-envelope"><env:Body>` +
	`<p:ping xmlns:p="urn:test">hello</p:ping></env:Body></env:Envelope>`

// envelope11 is a small SOAP 1.1 envelope with no WS-Addressing headers.
const envelope11 = `<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body>` +
	`<p:ping xmlns:p="urn:test">hello 1.1</p:ping></s:Body></s:Envelope>`
