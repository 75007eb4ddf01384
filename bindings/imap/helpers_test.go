package imap_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	soapimap "github.com/soapwire/soapwire/bindings/imap"
	"github.com/soapwire/soapwire/core"
)

// testServer is an embedded IMAP server with fresh users.
type testServer struct {
	*soapimap.Server
	n atomic.Int32
}

func startServer(t *testing.T, opts ...soapimap.ServerOption) *testServer {
	t.Helper()
	srv, err := soapimap.StartServer(opts...)
	require.NoError(t, err)
	t.Cleanup(func() { srv.Close() })
	return &testServer{Server: srv}
}

// newUser adds a user (password "secret") and returns the imap:// address
// of its INBOX.
func (s *testServer) newUser(t *testing.T) string {
	t.Helper()
	name := fmt.Sprintf("user%d", s.n.Add(1))
	require.NoError(t, s.AddUser(name, "secret"))
	return s.URL(name, "INBOX")
}

// fast are the options that make a Receiver quick for tests.
func fast() []soapimap.ReceiverOption {
	return []soapimap.ReceiverOption{
		soapimap.WithCredentials("", "secret"), soapimap.WithPlaintext(),
		soapimap.WithReconnect(5*time.Millisecond, 50*time.Millisecond),
	}
}

func newReceiver(t *testing.T, addr string, opts ...soapimap.ReceiverOption) *soapimap.Receiver {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	r, err := soapimap.NewReceiver(ctx, addr, append(fast(), opts...)...)
	require.NoError(t, err)
	t.Cleanup(func() { r.Close() })
	return r
}

func newAppender(t *testing.T, addr string, opts ...soapimap.AppenderOption) *soapimap.Appender {
	t.Helper()
	a, err := soapimap.NewAppender(addr, "client@example.org",
		append([]soapimap.AppenderOption{soapimap.WithCredentials("", "secret"), soapimap.WithPlaintext()}, opts...)...)
	require.NoError(t, err)
	t.Cleanup(func() { a.Close() })
	return a
}

// ping returns a message of version v with a small body, to addr.
func ping(v core.Version, to, text string) *core.Message {
	m := core.NewMessage(v, core.RawBody([]byte(`<p:ping xmlns:p="urn:test">`+text+`</p:ping>`)))
	m.Action, m.To = "urn:test:ping", to
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
