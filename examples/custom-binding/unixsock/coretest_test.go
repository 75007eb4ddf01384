package unixsock_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/coretest"
	"github.com/soapwire/soapwire/examples/custom-binding/unixsock"
)

// limits lets the suites' large bodies through.
var limits = unixsock.WithLimits(core.Limits{MaxBytes: 8 << 20})

// TestConformance runs the RoundTripper suite: Transport.RoundTrip calling
// a Server over a socket.
func TestConformance(t *testing.T) {
	coretest.TestRoundTripper(t, coretest.Features{OneWay: true, MaxBodyBytes: largeBody}, func(t *testing.T, h core.Handler) core.RoundTripper {
		return unixsock.NewTransport(startServer(t, h, limits), limits)
	})
}

// inboxFeatures is what an Inbox promises: each stored message is
// delivered once, in order; a Nack redelivers it; and what was stored, or
// delivered and never settled, survives a restart.
var inboxFeatures = coretest.Features{
	ExactlyOnce:  true,
	Redelivery:   true,
	Ordered:      true,
	Persistent:   true,
	MaxBodyBytes: largeBody,
	Reopen: func(t *testing.T, addr string) core.Receiver {
		path, err := unixsock.ParseAddress(addr)
		require.NoError(t, err)
		in, _ := startInbox(t, filepath.Dir(path), limits)
		return in
	},
}

// newPair: the Sender is a Transport with no address of its own (it sends
// to m.To), the Receiver an Inbox served on a fresh socket.
func newPair(t *testing.T) (core.Sender, core.Receiver, string) {
	in, addr := startInbox(t, shortDir(t), limits)
	return unixsock.NewTransport("", limits), in, addr
}

// TestConformanceSendReceive runs the Sender/Receiver suite over
// Transport.Send and an Inbox.
func TestConformanceSendReceive(t *testing.T) {
	coretest.TestSendReceive(t, inboxFeatures, newPair)
}

// TestConformanceServe runs core.Serve over an Inbox, replies and faults
// sent by a Transport to the ReplyTo and FaultTo Inboxes.
func TestConformanceServe(t *testing.T) {
	coretest.TestServe(t, inboxFeatures, newPair)
}

// TestConformanceVerdict runs the verdict suites: a Server answers each
// broken-tail envelope with the Sender fault, never with the handler's
// reply; an Inbox refuses them on arrival (it reads each envelope whole
// before it stores it), so core.Serve never sees them.
func TestConformanceVerdict(t *testing.T) {
	t.Run("Server", func(t *testing.T) {
		coretest.TestVerdictRoundTrip(t, coretest.Features{}, func(t *testing.T, h core.Handler) coretest.RawRoundTripFunc {
			addr := startServer(t, h, limits)
			return func(_ context.Context, v core.Version, data []byte) (*core.Message, error) {
				a, err := rawExchange(t, addr, rawFrame('C', "", data))
				if err != nil {
					return nil, err
				}
				if a.kind != 'R' {
					return nil, fmt.Errorf("answer %q: %s", a.kind, a.payload)
				}
				m, err := core.ReadMessageBytes([]byte(a.payload), core.Limits{})
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
	t.Run("Inbox", func(t *testing.T) {
		coretest.TestVerdictServe(t, inboxFeatures, newPair, func(t *testing.T, addr string, v core.Version, data []byte) error {
			a, err := rawExchange(t, addr, rawFrame('S', "", data))
			require.NoError(t, err, "an answer to a whole frame")
			if a.kind != 'A' {
				return fmt.Errorf("refused (%c): %s", a.kind, a.payload)
			}
			return nil
		}, nil)
	})
}
