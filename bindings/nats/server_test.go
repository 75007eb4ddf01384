package nats_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soapnats "github.com/soapwire/soapwire/bindings/nats"
)

func TestStartServer(t *testing.T) {
	t.Run("StorageFolder", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "store")
		s, err := soapnats.StartServer(dir)
		require.NoError(t, err)
		assert.Equal(t, dir, s.StoreDir())
		assert.True(t, strings.HasPrefix(s.URL(), "nats://127.0.0.1:"), s.URL())
		nc := connect(t, s)
		createStream(t, nc, "KEPT", true, "kept.>")
		nc.Close()
		require.NoError(t, s.Close())
		require.NoError(t, s.Close(), "idempotent")
		_, err = os.Stat(filepath.Join(dir, "jetstream"))
		assert.NoError(t, err, "the storage folder stays")
	})
	t.Run("TemporaryFolder", func(t *testing.T) {
		s, err := soapnats.StartServer("")
		require.NoError(t, err)
		dir := s.StoreDir()
		assert.DirExists(t, dir)
		require.NoError(t, s.Close())
		assert.NoDirExists(t, dir, "a temporary folder is removed")
	})
	t.Run("Logger", func(t *testing.T) {
		log, lines := newLogs()
		s, err := soapnats.StartServer(t.TempDir(), soapnats.WithLogger(log))
		require.NoError(t, err)
		require.NoError(t, s.Close())
		assert.Contains(t, lines.String(), "nats-server: Starting nats-server")
	})
	t.Run("ListenAddr", func(t *testing.T) {
		first, err := soapnats.StartServer(t.TempDir(), soapnats.WithListenAddr("127.0.0.1:0"))
		require.NoError(t, err)
		addr := strings.TrimPrefix(first.URL(), "nats://")
		assert.NotEqual(t, "127.0.0.1:0", addr, "port 0 is a free port")
		require.NoError(t, first.Close())
		s := startServer(t, soapnats.WithListenAddr(addr))
		assert.Equal(t, first.URL(), s.URL(), "a port given is the port listened on")
	})
	t.Run("PortTaken", func(t *testing.T) {
		s := startServer(t)
		_, err := soapnats.StartServer(t.TempDir(), soapnats.WithListenAddr(strings.TrimPrefix(s.URL(), "nats://")))
		assert.ErrorContains(t, err, "address already in use", "a second server on a port in use says why, at once")
	})
	for _, addr := range []string{"127.0.0.1", "127.0.0.1:http", "127.0.0.1:65536", "127.0.0.1:-1", "[::1", ""} {
		t.Run("BadListenAddr/"+addr, func(t *testing.T) {
			dir := t.TempDir()
			s, err := soapnats.StartServer(dir, soapnats.WithListenAddr(addr))
			require.ErrorIs(t, err, soapnats.ErrAddress)
			assert.Nil(t, s)
			assert.ErrorContains(t, err, addr)
			entries, err := os.ReadDir(dir)
			require.NoError(t, err)
			assert.Empty(t, entries, "nothing was stored")
		})
	}
}
