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

func TestRunServer(t *testing.T) {
	t.Run("StorageFolder", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "store")
		s, err := soapnats.RunServer(dir)
		require.NoError(t, err)
		assert.Equal(t, dir, s.StoreDir())
		assert.True(t, strings.HasPrefix(s.URL(), "nats://127.0.0.1:"), s.URL())
		nc := connect(t, s)
		createStream(t, nc, "KEPT", true, "kept.>")
		nc.Close()
		s.Shutdown()
		s.Shutdown() // idempotent
		_, err = os.Stat(filepath.Join(dir, "jetstream"))
		assert.NoError(t, err, "the storage folder stays")
	})
	t.Run("TemporaryFolder", func(t *testing.T) {
		s, err := soapnats.RunServer("")
		require.NoError(t, err)
		dir := s.StoreDir()
		assert.DirExists(t, dir)
		s.Shutdown()
		assert.NoDirExists(t, dir, "a temporary folder is removed")
	})
	t.Run("Logger", func(t *testing.T) {
		log, lines := newLogs()
		s, err := soapnats.RunServer(t.TempDir(), soapnats.WithServerLogger(log))
		require.NoError(t, err)
		s.Shutdown()
		assert.Contains(t, lines.String(), "nats-server: Starting nats-server")
	})
	t.Run("PortTaken", func(t *testing.T) {
		s := startServer(t)
		port := s.URL()[strings.LastIndexByte(s.URL(), ':')+1:]
		var p int
		for _, c := range port {
			p = p*10 + int(c-'0')
		}
		_, err := soapnats.RunServer(t.TempDir(), soapnats.WithPort(p))
		assert.ErrorContains(t, err, "address already in use", "a second server on a port in use says why, at once")
	})
}
