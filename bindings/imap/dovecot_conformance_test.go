package imap_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	soapimap "github.com/soapwire/soapwire/bindings/imap"
	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/coretest"
)

// TestDovecotConformance runs core/coretest's suites against Debian's
// Dovecot on loopback: pairs alternate between imaps:// and imap:// with
// STARTTLS, each a fresh user, AUTHENTICATE PLAIN over TLS.
func TestDovecotConformance(t *testing.T) {
	dc := startDovecot(t)
	var mu sync.Mutex
	n := 0
	newPair := func(t *testing.T) (core.Sender, core.Receiver, string) {
		mu.Lock()
		user := dc.user(t)
		n++
		implicit := n%2 == 0
		mu.Unlock()
		addr := dc.url(user, implicit)
		return dcAppender(t, dc, addr), dcReceiver(t, dc, addr), addr
	}
	f := coretest.Features{
		ExactlyOnce: true,
		Persistent:  true,
		Reopen:      func(t *testing.T, addr string) core.Receiver { return dcReceiver(t, dc, addr) },
	}
	t.Run("SendReceive", func(t *testing.T) { coretest.TestSendReceive(t, f, newPair) })
	t.Run("Serve", func(t *testing.T) { coretest.TestServe(t, f, newPair) })
}

func dcReceiver(t *testing.T, dc *dovecot, addr string, opts ...soapimap.ReceiverOption) *soapimap.Receiver {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	r, err := soapimap.NewReceiver(ctx, addr, append([]soapimap.ReceiverOption{
		soapimap.WithCredentials("", "secret"), soapimap.WithTLS(dc.tls),
		soapimap.WithReconnect(5*time.Millisecond, 50*time.Millisecond),
	}, opts...)...)
	require.NoError(t, err)
	t.Cleanup(func() { r.Close() })
	return r
}

func dcAppender(t *testing.T, dc *dovecot, addr string) *soapimap.Appender {
	t.Helper()
	a, err := soapimap.NewAppender(addr, "client@example.org", soapimap.WithCredentials("", "secret"), soapimap.WithTLS(dc.tls))
	require.NoError(t, err)
	t.Cleanup(func() { a.Close() })
	return a
}
