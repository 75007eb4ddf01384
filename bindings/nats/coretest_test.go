package nats_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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

// TestConformanceVerdict runs coretest's verdict suites: each broken-tail
// envelope sent as a request to a Subscription is answered with the Sender
// fault, never the handler's reply; published on a stream and served by
// core.Serve from a Receiver, it is answered at ReplyTo with the fault and
// dead-lettered at once, never acked.
func TestConformanceVerdict(t *testing.T) {
	t.Run("RequestReply", func(t *testing.T) {
		coretest.TestVerdictRoundTrip(t, coretest.Features{}, func(t *testing.T, h core.Handler) coretest.RawRoundTripFunc {
			s := startServer(t)
			subscribe(t, connect(t, s), "coretest.verdict", h)
			nc := connect(t, s)
			return func(ctx context.Context, v core.Version, data []byte) (*core.Message, error) {
				msg := nats.NewMsg("coretest.verdict")
				msg.Header.Set(soapnats.HeaderContentType, v.MediaType())
				msg.Data = data
				resp, err := nc.RequestMsgWithContext(ctx, msg)
				if err != nil {
					return nil, err
				}
				m, err := soapnats.Decode(resp, core.Limits{})
				if err != nil {
					return nil, err
				}
				if f := m.Fault(); f != nil {
					return nil, f
				}
				return m, nil
			}
		})
	})
	t.Run("JetStream", func(t *testing.T) {
		s := startServer(t)
		nc := connect(t, s)
		createStream(t, nc, "VERDICT", false, "verdict.>")
		createStream(t, nc, "DEAD", false, "soapwire.dead.>")
		pub, err := soapnats.NewPublisher(nc, "")
		require.NoError(t, err)
		js, err := jetstream.New(nc)
		require.NoError(t, err)
		var n atomic.Int64
		newPair := func(t *testing.T) (core.Sender, core.Receiver, string) {
			i := n.Add(1)
			addr := fmt.Sprintf("nats:verdict.%d?stream=VERDICT", i)
			r := newReceiver(t, nc, addr, fmt.Sprintf("verdict%d", i), soapnats.WithBackoff(20*time.Millisecond, 100*time.Millisecond))
			return pub, r, addr
		}
		coretest.TestVerdictServe(t, coretest.Features{Redelivery: true}, newPair, func(t *testing.T, addr string, v core.Version, data []byte) error {
			a, err := soapnats.ParseAddress(addr)
			require.NoError(t, err)
			msg := nats.NewMsg(a.Subject)
			msg.Header.Set(soapnats.HeaderContentType, v.MediaType())
			msg.Data = data
			_, err = js.PublishMsg(t.Context(), msg)
			require.NoError(t, err)
			return nil
		}, func(t *testing.T, addr string) int {
			// dead-lettered, with its fault, from the subject of addr
			a, err := soapnats.ParseAddress(addr)
			require.NoError(t, err)
			ds, err := js.Stream(t.Context(), "DEAD")
			require.NoError(t, err)
			info, err := ds.Info(t.Context())
			require.NoError(t, err)
			n := 0
			for seq := info.State.FirstSeq; seq <= info.State.LastSeq && info.State.Msgs > 0; seq++ {
				raw, err := ds.GetMsg(t.Context(), seq)
				require.NoError(t, err)
				if raw.Header.Get(soapnats.HeaderDeadSubject) == a.Subject {
					assert.Equal(t, "Sender", raw.Header.Get(soapnats.HeaderFaultCode))
					n++
				}
			}
			return n
		})
	})
}
