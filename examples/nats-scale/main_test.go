package main

import (
	"bytes"
	"context"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// defaultRun is the output of a run with the default config, shared by
// the tests that need one (a run takes seconds under -race).
var defaultRun = struct {
	once sync.Once
	out  string
	err  error
}{}

// runDefault runs the example with the default config once per test binary.
func runDefault(t *testing.T) string {
	t.Helper()
	defaultRun.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		var out bytes.Buffer
		defaultRun.err = run(ctx, &out, t.TempDir(), defaultConfig())
		defaultRun.out = out.String()
	})
	require.NoError(t, defaultRun.err)
	return defaultRun.out
}

// runWith runs the example in a fresh folder and returns its output.
func runWith(t *testing.T, cfg config) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	var out bytes.Buffer
	require.NoError(t, run(ctx, &out, t.TempDir(), cfg))
	return out.String()
}

// served matches the lines whose counts change from run to run.
var served = regexp.MustCompile(`(?m)^  (price-\d) served (\d+)`)

// TestRun runs both parts: every request answered once, by the instance
// counts printed; the drained instance serves nothing sent after its
// Drain; the durable consumer's successor gets orders 2 and 3 exactly
// once. run itself fails when a request is lost or handled twice.
func TestRun(t *testing.T) {
	tests := []struct {
		name               string
		requests, inFlight int
	}{
		{"default", defaultConfig().requests, defaultConfig().inFlight},
		{"many in flight", 300, 128},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := defaultConfig()
			var out string
			if cfg.requests == tt.requests && cfg.inFlight == tt.inFlight {
				out = runDefault(t)
			} else {
				cfg.requests, cfg.inFlight = tt.requests, tt.inFlight
				out = runWith(t, cfg)
			}
			assert.Equal(t, want(tt.requests, tt.inFlight), mask(out))

			total := 0
			for _, m := range served.FindAllStringSubmatch(out, -1) {
				n, err := strconv.Atoi(m[2])
				require.NoError(t, err)
				assert.Positive(t, n, "%s took no share", m[1])
				total += n
			}
			assert.Equal(t, tt.requests, total, "the instances' counts add up to the requests")
		})
	}
}

// TestRunRefusesABadConfig: too few requests is an error, not a hang.
func TestRunRefusesABadConfig(t *testing.T) {
	for _, cfg := range []config{{requests: 2, inFlight: 1}, {requests: 10, inFlight: 0}} {
		cfg.log = defaultConfig().log
		assert.Error(t, run(t.Context(), &bytes.Buffer{}, t.TempDir(), cfg))
	}
}

// TestRunGivesUpWithItsContext: a ctx that ends stops the run with an
// error instead of hanging.
func TestRunGivesUpWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	done := make(chan error, 1)
	go func() { done <- run(ctx, &bytes.Buffer{}, t.TempDir(), defaultConfig()) }()
	select {
	case err := <-done:
		require.Error(t, err)
	case <-time.After(15 * time.Second):
		t.Fatal("run did not return after its ctx ended")
	}
}

// TestREADMEShowsTheOutput: the output README.md shows is what the program
// prints, but for the per-instance counts.
func TestREADMEShowsTheOutput(t *testing.T) {
	out := runDefault(t)
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	block := regexp.MustCompile("(?s)```\n(== Setup ==\n.*?)\n```").FindStringSubmatch(string(readme))
	require.NotNil(t, block, "README.md has no output block")
	assert.Equal(t, mask(strings.TrimSpace(out)), mask(block[1]), "README.md's output block is out of date")
}

// mask replaces the per-instance counts with N.
func mask(s string) string { return served.ReplaceAllString(s, "  $1 served N") }

// want is the output of a run, its counts masked.
func want(requests, inFlight int) string {
	return strings.NewReplacer("$REQUESTS", strconv.Itoa(requests), "$IN_FLIGHT", strconv.Itoa(inFlight), "$DRAIN_AT", strconv.Itoa(requests/3)).Replace(`== Setup ==
nats: embedded nats-server at $NATS, JetStream storing in nats/

== 1. Three instances of a service in one queue group ==
price-1: Subscribe prices.quote in queue group "prices", on its own connection
price-2: Subscribe prices.quote in queue group "prices", on its own connection
price-3: Subscribe prices.quote in queue group "prices", on its own connection
client: $REQUESTS requests to nats:prices.quote over one connection, $IN_FLIGHT in flight
client: after $DRAIN_AT answers, price-2 drains (Subscription.Drain): it answers what it holds and takes no more
price-2: drained; the others take over
client: $REQUESTS sent, $REQUESTS answered, 0 lost; every reply RelatesTo its own request
  price-1 served N
  price-2 served N, then drained; requests sent after its Drain returned that it served: 0
  price-3 served N
service: $REQUESTS distinct requests handled, 0 of them more than once

== 2. A JetStream durable consumer restarts; the orders wait for it ==
shop: streams ORDERS (orders.>) and DEAD (soapwire.dead.>), file storage
shop: publishes order 1 (tea): stored as ORDERS #1
shop: publishes order 2 (scones): stored as ORDERS #2
fulfilment-1: Receiver on durable consumer "fulfilment" of stream ORDERS
fulfilment-1: takes order 1 (tea), #1, delivery 1
fulfilment-1: takes order 2 (scones), #2, delivery 1
fulfilment-1: dies holding order 2, unacknowledged (its connection closes)
shop: publishes order 3 (jam), no consumer running: stored as ORDERS #3
shop: publishes order 3 (jam) again, same message id: dropped by the stream: a duplicate of #3
fulfilment-2: Receiver on durable consumer "fulfilment" of stream ORDERS
fulfilment-2: takes order 3 (jam), #3, delivery 1
fulfilment-2: takes order 2 (scones), #2, delivery 2
stream ORDERS: 3 orders stored; consumer fulfilment: 0 pending, 0 unacknowledged
`)
}
