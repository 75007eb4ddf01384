package sftp_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/ssh"

	soapsftp "github.com/soapwire/soapwire/bindings/sftp"
	"github.com/soapwire/soapwire/core"
)

const (
	testUser = "alice"
	testPass = "secret"
	testNS   = "urn:soapwire:sftp-test"
)

// env is an embedded server with a Client logged in to it (host key
// pinned).
type env struct {
	srv    *soapftpServer
	client *soapsftp.Client
	log    *logBuffer
}

type soapftpServer = soapsftp.Server

func newKey(t testing.TB) ssh.Signer {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)
	s, err := ssh.NewSignerFromKey(priv)
	require.NoError(t, err)
	return s
}

func startServer(t testing.TB, opts ...soapsftp.ServerOption) *soapsftp.Server {
	t.Helper()
	srv, err := soapsftp.StartServer(t.TempDir(), testUser, append([]soapsftp.ServerOption{soapsftp.WithPassword(testPass)}, opts...)...)
	require.NoError(t, err)
	t.Cleanup(func() { srv.Close() })
	return srv
}

func newEnv(t testing.TB, opts ...soapsftp.ClientOption) *env {
	t.Helper()
	srv := startServer(t)
	lb := &logBuffer{}
	c := soapsftp.NewClient(srv.Addr(), testUser, append([]soapsftp.ClientOption{soapsftp.WithPassword(testPass), soapsftp.WithHostKey(srv.HostKey()), soapsftp.WithLogger(lb.logger())}, opts...)...)
	t.Cleanup(func() { c.Close() })
	return &env{srv: srv, client: c, log: lb}
}

func (e *env) poller(t testing.TB, root string, opts ...soapsftp.PollerOption) *soapsftp.Poller {
	t.Helper()
	base := []soapsftp.PollerOption{soapsftp.WithPollInterval(5 * time.Millisecond), soapsftp.WithMaxPollInterval(50 * time.Millisecond), soapsftp.WithLogger(e.log.logger())}
	p, err := soapsftp.NewPoller(e.client, root, append(base, opts...)...)
	require.NoError(t, err)
	require.NoError(t, p.MakeLayout(ctx(t)))
	t.Cleanup(func() { p.Close() })
	return p
}

func (e *env) path(elem ...string) string {
	return filepath.Join(append([]string{e.srv.Root()}, elem...)...)
}

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

func ctx(t testing.TB) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return c
}

func ping(v core.Version, text string) *core.Message {
	m := core.NewMessage(v, core.RawBody([]byte(fmt.Sprintf(`<t:Ping xmlns:t="%s">%s</t:Ping>`, testNS, text))))
	m.ID = core.NewMessageID()
	m.Action = testNS + "/Ping"
	return m
}

func envelope(t testing.TB, m *core.Message) []byte {
	t.Helper()
	var b bytes.Buffer
	_, err := m.WriteTo(&b)
	require.NoError(t, err)
	return b.Bytes()
}

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
	return slog.New(slog.NewTextHandler(l, &slog.HandlerOptions{Level: slog.LevelInfo}))
}
