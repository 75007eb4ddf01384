package unixsock_test

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/examples/custom-binding/unixsock"
)

// shortDir returns a fresh folder with a short path (a socket path has at
// most 103 bytes, and t.TempDir's names grow with the test's).
func shortDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "us")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}

// serve runs serve(ctx, ln) on a fresh socket in dir until the test ends,
// and returns the socket's address.
func serve(t *testing.T, dir string, fn func(context.Context, net.Listener) error) string {
	t.Helper()
	addr := unixsock.Address(filepath.Join(dir, "s.sock"))
	ln, err := unixsock.Listen(addr)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		assert.NoError(t, fn(ctx, ln))
	}()
	t.Cleanup(func() { cancel(); wg.Wait() })
	return addr
}

// startServer serves h on a fresh socket and returns its address.
func startServer(t *testing.T, h core.Handler, opts ...unixsock.Option) string {
	t.Helper()
	return serve(t, shortDir(t), unixsock.NewServer(h, opts...).Serve)
}

// startInbox opens an Inbox over dir/spool, serves it on dir/s.sock and
// returns it with its address.
func startInbox(t *testing.T, dir string, opts ...unixsock.Option) (*unixsock.Inbox, string) {
	t.Helper()
	in, err := unixsock.NewInbox(filepath.Join(dir, "spool"), opts...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = in.Close() })
	return in, serve(t, dir, in.Serve)
}

// request returns a SOAP 1.2 message with a small body.
func request(text string) *core.Message {
	m := core.NewMessage(core.V12, core.RawBody([]byte(`<t:Ping xmlns:t="urn:test">`+text+`</t:Ping>`)))
	m.Action = "urn:test/Ping"
	return m
}
