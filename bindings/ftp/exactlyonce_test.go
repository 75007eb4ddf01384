package ftp_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soapftp "github.com/soapwire/soapwire/bindings/ftp"
	"github.com/soapwire/soapwire/core"
)

// TestTwoPollersExactlyOnce: two Pollers, each with its own Client (as two
// processes would be), serve one inbox holding 1,000 files (100 with
// -short); every file is handled exactly once and the inbox and work
// folders end empty.
func TestTwoPollersExactlyOnce(t *testing.T) {
	n := 1000
	if testing.Short() {
		n = 100
	}
	e := newEnv(t)
	first := e.poller(t, "/shared")
	for i := range n {
		m := ping(core.V12, fmt.Sprint(i))
		m.ID = fmt.Sprintf("urn:uuid:00000000-0000-4000-8000-%012d", i)
		e.drop(t, "shared/inbox", soapftp.FileName(m.ID), envelope(t, m))
	}

	var mu sync.Mutex
	seen := map[string]int{}
	by := map[string]int{}
	done := make(chan struct{})
	handler := func(who string) core.Handler {
		return core.HandlerFunc(func(_ context.Context, m *core.Message) (*core.Message, error) {
			mu.Lock()
			defer mu.Unlock()
			seen[m.ID]++
			by[who]++
			if len(seen) == n {
				select {
				case <-done:
				default:
					close(done)
				}
			}
			return nil, nil
		})
	}
	other := soapftp.NewClient(e.srv.Addr(), testUser, testPass)
	t.Cleanup(func() { other.Close() })
	second, err := soapftp.NewPoller(other, "/shared", soapftp.WithPollInterval(5*time.Millisecond), soapftp.WithMaxPollInterval(50*time.Millisecond))
	require.NoError(t, err)
	t.Cleanup(func() { second.Close() })

	stop1 := serve(t, first, handler("first"), nil, core.WithConcurrency(4))
	stop2 := serve(t, second, handler("second"), nil, core.WithConcurrency(4))
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		mu.Lock()
		t.Fatalf("handled %d of %d files", len(seen), n)
	}
	require.Eventually(t, func() bool {
		return len(e.files(t, "shared/inbox")) == 0 && len(e.files(t, "shared/work")) == 0
	}, 10*time.Second, 5*time.Millisecond)
	stop1()
	stop2()
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, seen, n)
	for id, c := range seen {
		assert.Equal(t, 1, c, "%s handled %d times", id, c)
	}
	assert.Empty(t, e.files(t, "shared/failed"))
	t.Logf("first handled %d, second %d", by["first"], by["second"])
	assert.Positive(t, by["first"], "the first poller got none")
	assert.Positive(t, by["second"], "the second poller got none")
}
