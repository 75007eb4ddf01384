package coretest_test

import (
	"context"
	"sync"
	"testing"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/coretest"
)

// pipeFeatures is what a Pipe promises.
var pipeFeatures = coretest.Features{
	ExactlyOnce: true,
	Redelivery:  true,
	Ordered:     true,
	OneWay:      true,
}

func newPipePair(t *testing.T) (core.Sender, core.Receiver, string) {
	p := coretest.NewPipe()
	t.Cleanup(func() { _ = p.Close() })
	return p, p, p.Addr()
}

func TestPipeSendReceive(t *testing.T) {
	coretest.TestSendReceive(t, pipeFeatures, newPipePair)
}

func TestPipeSendReceiveBuffered(t *testing.T) {
	f := pipeFeatures
	f.MaxBodyBytes = 64 << 10 // the large body is TestPipeSendReceive's
	coretest.TestSendReceive(t, f, func(t *testing.T) (core.Sender, core.Receiver, string) {
		p := coretest.NewPipe(coretest.WithBuffer(1))
		t.Cleanup(func() { _ = p.Close() })
		return p, p, p.Addr()
	})
}

func TestPipeServe(t *testing.T) {
	coretest.TestServe(t, pipeFeatures, newPipePair)
}

func TestPipeRoundTripper(t *testing.T) {
	coretest.TestRoundTripper(t, pipeFeatures, func(t *testing.T, h core.Handler) core.RoundTripper {
		p := coretest.NewPipe(coretest.WithHandler(h))
		t.Cleanup(func() { _ = p.Close() })
		return p
	})
}

func TestPipeVerdictRoundTrip(t *testing.T) {
	coretest.TestVerdictRoundTrip(t, pipeFeatures, func(t *testing.T, h core.Handler) coretest.RawRoundTripFunc {
		p := coretest.NewPipe(coretest.WithHandler(h))
		t.Cleanup(func() { _ = p.Close() })
		return func(ctx context.Context, v core.Version, data []byte) (*core.Message, error) {
			return p.RoundTripRaw(ctx, data, "", v)
		}
	})
}

func TestPipeVerdictServe(t *testing.T) {
	var mu sync.Mutex
	pipes := map[string]*coretest.Pipe{}
	newPair := func(t *testing.T) (core.Sender, core.Receiver, string) {
		s, r, addr := newPipePair(t)
		mu.Lock()
		pipes[addr] = s.(*coretest.Pipe)
		mu.Unlock()
		return s, r, addr
	}
	coretest.TestVerdictServe(t, pipeFeatures, newPair, func(t *testing.T, addr string, v core.Version, data []byte) error {
		mu.Lock()
		p := pipes[addr]
		mu.Unlock()
		return p.SendRaw(t.Context(), data, "")
	}, func(t *testing.T, addr string) int {
		mu.Lock()
		p := pipes[addr]
		mu.Unlock()
		return len(p.Parked())
	})
}

func TestPipeAttachmentsSendReceive(t *testing.T) {
	coretest.TestAttachmentsSendReceive(t, pipeFeatures, newPipePair)
}

func TestPipeAttachmentsRoundTrip(t *testing.T) {
	coretest.TestAttachmentsRoundTrip(t, pipeFeatures, func(t *testing.T, h core.Handler) core.RoundTripper {
		p := coretest.NewPipe(coretest.WithHandler(h))
		t.Cleanup(func() { _ = p.Close() })
		return p
	})
}
