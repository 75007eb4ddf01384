package nats_test

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soapnats "github.com/soapwire/soapwire/bindings/nats"
	"github.com/soapwire/soapwire/core"
)

// TestQueueGroupSharesLoad: three instances, each on its own connection,
// serve one subject in one queue group; 3,000 requests, 64 in flight on one
// client connection, are all answered, each by exactly one instance, and
// every instance takes a share.
func TestQueueGroupSharesLoad(t *testing.T) {
	const instances, requests, inFlight = 3, 3000, 64
	s := startServer(t)
	var mu sync.Mutex
	handled := map[string]int{} // request id → times handled
	perInstance := make([]int, instances)
	for i := range instances {
		name := "instance-" + strconv.Itoa(i)
		subscribe(t, connect(t, s), "svc.shared", core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
			mu.Lock()
			handled[m.ID]++
			perInstance[i]++
			mu.Unlock()
			n, err := bodyText(m)
			if err != nil {
				return nil, err
			}
			return m.Reply(core.RawBody(body("by", name+" "+n))), nil
		}), soapnats.WithQueue("shared"))
	}
	tr := soapnats.NewTransport(connect(t, s), "svc.shared")
	sem := make(chan struct{}, inFlight)
	var wg sync.WaitGroup
	errs := make([]error, requests)
	answers := make([]string, requests)
	for i := range requests {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			errs[i] = func() error {
				m := core.NewMessage(core.Version(1+i%2), core.RawBody(body("n", strconv.Itoa(i))))
				m.ID = core.NewMessageID()
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				defer cancel()
				reply, err := tr.RoundTrip(ctx, m)
				if err != nil {
					return fmt.Errorf("request %d: %w", i, err)
				}
				if reply.RelatesTo != m.ID {
					return fmt.Errorf("request %d: reply relates to %s, not %s", i, reply.RelatesTo, m.ID)
				}
				if answers[i], err = bodyText(reply); err != nil {
					return fmt.Errorf("request %d: %w", i, err)
				}
				return nil
			}()
		}()
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err, "no request lost")
	}
	mu.Lock()
	defer mu.Unlock()
	assert.Len(t, handled, requests, "every request reached a handler")
	for id, n := range handled {
		if n != 1 {
			t.Errorf("request %s handled %d times", id, n)
		}
	}
	total := 0
	for i, n := range perInstance {
		assert.Positive(t, n, "instance %d took no share", i)
		total += n
	}
	assert.Equal(t, requests, total)
	for i, a := range answers {
		assert.Regexp(t, `^instance-\d `+strconv.Itoa(i)+`$`, a)
	}
	t.Logf("requests per instance: %v", perInstance)
}

// TestNoQueueFansOut: WithQueue("") subscribes outside any group, so every
// subscriber gets every published message.
func TestNoQueueFansOut(t *testing.T) {
	s := startServer(t)
	got := make(chan int, 10)
	for i := range 2 {
		subscribe(t, connect(t, s), "svc.fan", core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
			got <- i
			return nil, nil
		}), soapnats.WithQueue(""))
	}
	tr := soapnats.NewTransport(connect(t, s), "svc.fan")
	require.NoError(t, tr.Send(testCtx(t), core.NewMessage(core.V11, core.RawBody(body("x", "")))))
	seen := map[int]bool{}
	for len(seen) < 2 {
		select {
		case i := <-got:
			seen[i] = true
		case <-time.After(5 * time.Second):
			t.Fatalf("only %v got the message", seen)
		}
	}
}

// TestConcurrencyBound: a Subscription handles at most WithConcurrency
// requests at once; the others wait and are answered later, none lost.
func TestConcurrencyBound(t *testing.T) {
	s := startServer(t)
	var mu sync.Mutex
	running, most := 0, 0
	release := make(chan struct{})
	subscribe(t, connect(t, s), "svc.bounded", core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		mu.Lock()
		running++
		most = max(most, running)
		mu.Unlock()
		<-release
		mu.Lock()
		running--
		mu.Unlock()
		return echo(ctx, m)
	}), soapnats.WithConcurrency(2))
	tr := soapnats.NewTransport(connect(t, s), "svc.bounded")
	const n = 6
	errs := make(chan error, n)
	for i := range n {
		go func() {
			_, err := tr.RoundTrip(testCtx(t), core.NewMessage(core.V11, core.RawBody(body("echo", strconv.Itoa(i)))))
			errs <- err
		}()
	}
	require.Eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return running == 2 }, 5*time.Second, 5*time.Millisecond)
	time.Sleep(50 * time.Millisecond) // a third would have started by now
	for range n {
		release <- struct{}{}
	}
	for range n {
		require.NoError(t, <-errs)
	}
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, 2, most, "requests handled at once")
}

// TestConcurrencyGrows: below WithConcurrency, a request never waits for
// another's handler: requests whose handlers all block run at once, whether
// they arrive together or one after another, and again after the
// Subscription has been idle (its spare workers gone).
func TestConcurrencyGrows(t *testing.T) {
	for _, tc := range []struct {
		name        string
		concurrency int // 0: the default
		n           int
		spread      time.Duration // between requests
	}{
		{"burst", 0, 40, 0},
		{"one after another", 0, 10, 5 * time.Millisecond},
		{"up to the limit", 16, 16, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := startServer(t)
			var running sync.WaitGroup
			var release chan struct{}
			var mu sync.Mutex
			h := core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
				mu.Lock()
				r := release
				mu.Unlock()
				running.Done()
				select {
				case <-r:
				case <-ctx.Done():
					return nil, ctx.Err()
				}
				return echo(ctx, m)
			})
			var opts []soapnats.SubscribeOption
			if tc.concurrency > 0 {
				opts = append(opts, soapnats.WithConcurrency(tc.concurrency))
			}
			subscribe(t, connect(t, s), "svc.grow", h, opts...)
			tr := soapnats.NewTransport(connect(t, s), "svc.grow")
			for wave := range 2 {
				mu.Lock()
				release = make(chan struct{})
				mu.Unlock()
				running.Add(tc.n)
				errs := make(chan error, tc.n)
				for i := range tc.n {
					go func() {
						_, err := tr.RoundTrip(testCtx(t), core.NewMessage(core.V11, core.RawBody(body("echo", strconv.Itoa(i)))))
						errs <- err
					}()
					time.Sleep(tc.spread)
				}
				all := make(chan struct{})
				go func() { running.Wait(); close(all) }()
				select {
				case <-all:
				case <-time.After(5 * time.Second):
					t.Fatalf("wave %d: not all %d handlers ran at once", wave, tc.n)
				}
				close(release)
				for range tc.n {
					require.NoError(t, <-errs)
				}
				time.Sleep(20 * time.Millisecond) // idle: spare workers leave
			}
		})
	}
}

// TestSlowConsumerLogged: requests nats.go drops because the Subscription
// fell behind (its pending buffer, here 4 requests, overflowed) are
// counted (Dropped) and logged with their number, in a line or two rather
// than one a drop, and Close logs those not logged yet: every request is
// either handled or in a line. The Subscription goes on serving.
func TestSlowConsumerLogged(t *testing.T) {
	s := startServer(t)
	log, lines := newLogs()
	release := make(chan struct{})
	var handled atomic.Int64
	sub := subscribe(t, connect(t, s), "svc.slow", core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		<-release
		handled.Add(1)
		return nil, nil
	}), soapnats.WithConcurrency(1), soapnats.WithPendingLimits(4, 1<<20), soapnats.WithLogger(log))
	tr := soapnats.NewTransport(connect(t, s), "svc.slow")
	const n = 40
	for i := range n {
		require.NoError(t, tr.Send(testCtx(t), core.NewMessage(core.V11, core.RawBody(body("event", strconv.Itoa(i))))))
	}
	time.Sleep(100 * time.Millisecond) // all delivered or dropped by now
	close(release)
	require.Eventually(t, func() bool { return handled.Load()+int64(sub.Dropped()) == n }, 5*time.Second, 10*time.Millisecond,
		"every request is handled or counted as dropped")
	assert.Positive(t, sub.Dropped())
	reply, err := tr.RoundTrip(testCtx(t), core.NewMessage(core.V11, core.RawBody(body("echo", "after"))))
	require.NoError(t, err, "the Subscription still serves")
	assert.Nil(t, reply)

	dropped := sub.Dropped()
	require.NoError(t, sub.Close())
	counts := regexp.MustCompile(`requests dropped.* dropped=(\d+)`).FindAllStringSubmatch(lines.String(), -1)
	assert.LessOrEqual(t, len(counts), 2, "the first drop at once, the rest on Close (within ten seconds):\n%s", lines.String())
	sum := 0
	for _, m := range counts {
		d, err := strconv.Atoi(m[1])
		require.NoError(t, err)
		sum += d
	}
	assert.Equal(t, dropped, sum, "the lines count every drop:\n%s", lines.String())
}

// TestPendingLimits: WithPendingLimits refuses a byte limit under the
// server's max payload (the largest requests would always be dropped), and
// the default byte limit grows with a server that takes larger messages,
// so that a request as large as the server takes is served.
func TestPendingLimits(t *testing.T) {
	s := startServer(t, soapnats.WithMaxPayload(12<<20))
	nc := connect(t, s)
	_, err := soapnats.Subscribe(testCtx(t), nc, "svc.limits", echo, soapnats.WithPendingLimits(16, 1<<20))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "max payload")
	_, err = soapnats.Subscribe(testCtx(t), nc, "svc.limits", echo, soapnats.WithPendingLimits(16, 12<<20))
	require.NoError(t, err)

	sub := subscribe(t, nc, "svc.large", echo)
	tr := soapnats.NewTransport(connect(t, s), "svc.large")
	large := strings.Repeat("x", 10<<20) // over DefaultPendingBytes
	// 10 MiB each way through the race detector on a loaded machine can
	// take longer than testCtx's 10 s: the time is not what is tested.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	reply, err := tr.RoundTrip(ctx, core.NewMessage(core.V11, core.RawBody(body("echo", large))))
	require.NoError(t, err)
	assert.Len(t, text(t, reply), len(large))
	assert.Zero(t, sub.Dropped())
}
