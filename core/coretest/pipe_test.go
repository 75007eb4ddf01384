package coretest_test

import (
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
