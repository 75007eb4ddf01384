package smtp_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

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
func startServer(t *testing.T, dir string, opts ...soapsmtp.Option) *testServer {
	t.Helper()
	mb, err := soapsmtp.OpenMaildir(dir)
	require.NoError(t, err)
	return startServerOn(t, mb, opts...)
}

func startServerOn(t *testing.T, mb *soapsmtp.Maildir, opts ...soapsmtp.Option) *testServer {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	box := fmt.Sprintf("box-%d@example.test", boxes.Add(1))
	srv := soapsmtp.NewServer(l.Addr().String(), mb, append([]soapsmtp.Option{soapsmtp.WithAddresses(box), soapsmtp.WithHostname("mx.example.test")}, opts...)...)
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
func newSender(t *testing.T, addr string, opts ...soapsmtp.Option) *soapsmtp.Sender {
	t.Helper()
	s, err := soapsmtp.NewSender(addr, "sender@example.test", append([]soapsmtp.Option{soapsmtp.WithHostname("client.example.test")}, opts...)...)
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return s
}

// newReceiver returns a Receiver on mb, closed when the test ends.
func newReceiver(t *testing.T, mb *soapsmtp.Maildir, opts ...soapsmtp.Option) *soapsmtp.Receiver {
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
