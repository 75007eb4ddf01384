package nats_test

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	soapnats "github.com/soapwire/soapwire/bindings/nats"
	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/coretest"
)

// TestConformance runs core/coretest's RoundTripper suite against a
// Transport calling a Subscription through an embedded server, with a
// server and connections per subtest.
func TestConformance(t *testing.T) {
	coretest.TestRoundTripper(t, coretest.Features{OneWay: true, MaxBodyBytes: 512 << 10}, func(t *testing.T, h core.Handler) core.RoundTripper {
		s := startServer(t)
		subscribe(t, connect(t, s), "coretest.rt", h)
		return soapnats.NewTransport(connect(t, s), "nats:coretest.rt")
	})
}

// TestJetStreamConformance runs the Sender/Receiver suites against a
// Publisher and a Receiver on a durable consumer: every pair gets a subject
// of its own in one stream, and a consumer filtered on it.
func TestJetStreamConformance(t *testing.T) {
	s := startServer(t)
	nc := connect(t, s)
	createStream(t, nc, "CORETEST", false, "coretest.>")
	createStream(t, nc, "DEAD", false, "soapwire.dead.>")
	pub, err := soapnats.NewPublisher(nc, "")
	if err != nil {
		t.Fatal(err)
	}
	var n atomic.Int64
	var mu sync.Mutex
	durables := map[string]string{}
	opts := []soapnats.ReceiverOption{soapnats.WithAckWait(2 * time.Second), soapnats.WithBackoff(20*time.Millisecond, 100*time.Millisecond)}
	f := coretest.Features{
		Redelivery:   true,
		Ordered:      true,
		ExactlyOnce:  true,
		Persistent:   true,
		MaxBodyBytes: 512 << 10,
		Reopen: func(t *testing.T, addr string) core.Receiver {
			mu.Lock()
			durable := durables[addr]
			mu.Unlock()
			return newReceiver(t, nc, addr, durable, opts...)
		},
	}
	newPair := func(t *testing.T) (core.Sender, core.Receiver, string) {
		i := n.Add(1)
		addr := fmt.Sprintf("nats:coretest.%d?stream=CORETEST", i)
		durable := fmt.Sprintf("pair%d", i)
		mu.Lock()
		durables[addr] = durable
		mu.Unlock()
		return pub, newReceiver(t, nc, addr, durable, opts...), addr
	}
	t.Run("SendReceive", func(t *testing.T) { coretest.TestSendReceive(t, f, newPair) })
	t.Run("Serve", func(t *testing.T) { coretest.TestServe(t, f, newPair) })
}
