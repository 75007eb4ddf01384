package unixsock_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/examples/custom-binding/unixsock"
)

// shortDir returns a fresh folder with a short path (a socket path has at
// most 103 bytes, and t.TempDir's names grow with the test's).
func shortDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "us")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}

// serve runs serve(ctx, ln) on a fresh socket in dir until the test ends,
// and returns the socket's address.
func serve(t testing.TB, dir string, fn func(context.Context, net.Listener) error) string {
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
func startServer(t testing.TB, h core.Handler, opts ...unixsock.ServerOption) string {
	t.Helper()
	return serve(t, shortDir(t), unixsock.NewServer(h, opts...).Serve)
}

// startInbox opens an Inbox over dir/spool, serves it on dir/s.sock and
// returns it with its address.
func startInbox(t testing.TB, dir string, opts ...unixsock.InboxOption) (*unixsock.Inbox, string) {
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

// syncBuffer is a log destination safe for the servers' goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// logTo returns a WithLogger option writing text records to b.
func logTo(b *syncBuffer) unixsock.ListenerOption {
	return unixsock.WithLogger(slog.New(slog.NewTextHandler(b, &slog.HandlerOptions{Level: slog.LevelDebug})))
}

// rawFrame builds a frame by hand, as a peer that is not a Transport would.
func rawFrame(kind byte, action string, payload []byte) []byte {
	b := []byte("SW")
	b = append(b, kind)
	b = binary.BigEndian.AppendUint16(b, uint16(len(action)))
	b = binary.BigEndian.AppendUint32(b, uint32(len(payload)))
	b = append(b, action...)
	return append(b, payload...)
}

// answer is a frame read back by hand.
type answer struct {
	kind    byte
	action  string
	payload string
}

// rawExchange writes data to the socket at addr and reads one answer
// frame; err is set when none came (the server dropped the connection).
func rawExchange(t *testing.T, addr string, data []byte) (answer, error) {
	t.Helper()
	path, err := unixsock.ParseAddress(addr)
	require.NoError(t, err)
	conn, err := net.Dial("unix", path)
	require.NoError(t, err)
	defer conn.Close()
	require.NoError(t, conn.SetDeadline(time.Now().Add(10*time.Second)))
	_, _ = conn.Write(data) // a server that refused early may have stopped reading
	var h [9]byte
	if _, err := io.ReadFull(conn, h[:]); err != nil {
		return answer{}, err
	}
	require.Equal(t, "SW", string(h[:2]), "answer magic")
	rest := make([]byte, int(binary.BigEndian.Uint16(h[3:5]))+int(binary.BigEndian.Uint32(h[5:9])))
	_, err = io.ReadFull(conn, rest)
	require.NoError(t, err, "answer cut short")
	alen := int(binary.BigEndian.Uint16(h[3:5]))
	return answer{kind: h[2], action: string(rest[:alen]), payload: string(rest[alen:])}, nil
}

// envelope is a SOAP 1.2 envelope around body, written by hand.
func envelope(header, body string) []byte {
	return []byte(`<s:Envelope xmlns:s="` + core.NamespaceV12 + `"><s:Header>` + header + `</s:Header><s:Body>` + body + `</s:Body></s:Envelope>`)
}
