package coretest_test

import (
	"context"
	"os"
	"os/exec"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/coretest"
)

// Each broken binding is a Pipe with one fault; the suites must catch it in
// the named subtest. Each runs in a child process (TestBrokenBinding), so
// that its failure can be observed.
var brokenBindings = []struct {
	name, fails string
}{
	{"LosesHeaders", "SendReceive/Fields/SOAP12"},
	{"LosesRelatesTo", "SendReceive/Fields/SOAP11"},
	{"Duplicates", "SendReceive/Concurrent"},
	{"SettlesBothWays", "SendReceive/AckNack/AckNack"},
	{"NackDrops", "SendReceive/Redelivery/SOAP11"},
	{"NackDropsUnderServe", "Serve/RetryAfterNack"},
	{"ReceiveIgnoresContext", "SendReceive/ReceiveContext/Deadline"},
	{"CloseDoesNothing", "SendReceive/Close/UnblocksReceive"},
	{"SmallLimit", "SendReceive/LargeBody"},
	{"SendIgnoresContext", "SendReceive/SendCancelled"},
	{"FaultNotRemote", "RoundTripper/Fault/SOAP12"},
	{"LeaksErrorText", "RoundTripper/PlainError/SOAP11"},
	{"DropsAction", "RoundTripper/Action/SOAP11/ActionOnly"},
	{"IgnoresDeadline", "RoundTripper/Deadline/Deadline"},
	{"SwapsVersion", "RoundTripper/Echo/SOAP11"},
	{"ForgetsUnsettled", "SendReceive/Persistent"},
	{"DropsPart", "Attachments/SwA/SOAP11"},
	{"PackagesAsSwA", "Attachments/MTOM/SOAP12"},
	{"ChangesPart", "AttachmentsRoundTrip/SwA/SOAP12"},
}

func TestSuitesCatchBrokenBindings(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a child test process per broken binding; skipped with -short")
	}
	for _, bb := range brokenBindings {
		t.Run(bb.name, func(t *testing.T) {
			run := "^TestBrokenBinding$/^" + regexp.QuoteMeta(bb.fails) + "$"
			cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run="+run, "-test.v", "-test.count=1")
			cmd.Env = append(os.Environ(), "CORETEST_BROKEN="+bb.name)
			out, err := cmd.CombinedOutput()
			require.Error(t, err, "the suite passed a binding that %s:\n%s", bb.name, out)
			assert.Contains(t, string(out), "--- FAIL: TestBrokenBinding/"+bb.fails+" ", "output:\n%s", out)
		})
	}
}

// TestBrokenBinding runs the suites against the broken binding
// CORETEST_BROKEN names; TestSuitesCatchBrokenBindings expects it to fail.
func TestBrokenBinding(t *testing.T) {
	name := os.Getenv("CORETEST_BROKEN")
	if name == "" {
		t.Skip("run only by TestSuitesCatchBrokenBindings, in a child process")
	}
	f := pipeFeatures
	f.Timeout = time.Second
	f.MaxBodyBytes = 128 << 10
	newPair := func(t *testing.T) (core.Sender, core.Receiver, string) {
		var opts []coretest.PipeOption
		if name == "SmallLimit" {
			opts = append(opts, coretest.WithLimits(core.Limits{MaxBytes: 64 << 10}))
		}
		p := coretest.NewPipe(opts...)
		t.Cleanup(func() { _ = p.Close() })
		return brokenSender{name, p}, &brokenReceiver{name, p}, p.Addr()
	}
	newRT := func(t *testing.T, h core.Handler) core.RoundTripper {
		if name == "LeaksErrorText" {
			inner := h
			h = core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
				reply, err := inner.ServeSOAP(ctx, m)
				if err != nil {
					return nil, core.ReceiverFault("%s", err.Error())
				}
				return reply, nil
			})
		}
		p := coretest.NewPipe(coretest.WithHandler(h))
		t.Cleanup(func() { _ = p.Close() })
		return brokenRT{name, p}
	}
	if name == "ForgetsUnsettled" {
		s := &store{pipes: map[string]*coretest.Pipe{}, forget: true}
		f.Persistent, f.Reopen, newPair = true, s.reopen, s.pair
	}
	t.Run("SendReceive", func(t *testing.T) { coretest.TestSendReceive(t, f, newPair) })
	t.Run("Serve", func(t *testing.T) { coretest.TestServe(t, f, newPair) })
	t.Run("RoundTripper", func(t *testing.T) { coretest.TestRoundTripper(t, f, newRT) })
	t.Run("Attachments", func(t *testing.T) { coretest.TestAttachmentsSendReceive(t, f, newPair) })
	t.Run("AttachmentsRoundTrip", func(t *testing.T) { coretest.TestAttachmentsRoundTrip(t, f, newRT) })
}

type brokenSender struct {
	name string
	p    *coretest.Pipe
}

func (s brokenSender) Send(ctx context.Context, m *core.Message) error {
	switch s.name {
	case "LosesHeaders":
		m.Envelope.Headers = m.Envelope.Headers[:1]
	case "LosesRelatesTo":
		m.RelatesTo = ""
	case "Duplicates":
		if err := s.p.Send(ctx, m); err != nil {
			return err
		}
	case "SendIgnoresContext":
		ctx = context.WithoutCancel(ctx)
	case "DropsPart":
		if n := len(m.Attachments); n > 1 {
			m.Attachments = m.Attachments[:n-1]
		}
	case "PackagesAsSwA":
		if m.Packaging == core.MTOM {
			m.Packaging = core.SwA
		}
	}
	return s.p.Send(ctx, m)
}

type brokenReceiver struct {
	name string
	p    *coretest.Pipe
}

func (r *brokenReceiver) Receive(ctx context.Context) (core.Delivery, error) {
	if r.name == "ReceiveIgnoresContext" {
		ctx = context.WithoutCancel(ctx)
	}
	d, err := r.p.Receive(ctx)
	if err != nil {
		return nil, err
	}
	return brokenDelivery{r.name, d}, nil
}

func (r *brokenReceiver) Close() error {
	if r.name == "CloseDoesNothing" {
		return nil
	}
	return r.p.Close()
}

type brokenDelivery struct {
	name string
	core.Delivery
}

func (d brokenDelivery) Nack(ctx context.Context, cause error) error {
	switch d.name {
	case "SettlesBothWays":
		_ = d.Delivery.Nack(ctx, cause)
		return nil
	case "NackDrops", "NackDropsUnderServe":
		return d.Delivery.Ack(ctx)
	}
	return d.Delivery.Nack(ctx, cause)
}

type brokenRT struct {
	name string
	p    *coretest.Pipe
}

func (b brokenRT) RoundTrip(ctx context.Context, m *core.Message) (*core.Message, error) {
	switch b.name {
	case "DropsAction":
		m.Action = ""
	case "IgnoresDeadline":
		ctx = context.WithoutCancel(ctx)
	case "SwapsVersion":
		m.Envelope.Version = core.V12
	case "ChangesPart":
		if len(m.Attachments) > 0 {
			a := m.Attachments[0]
			c := core.BytesAttachment(a.Type, []byte("not the same bytes"))
			c.ID = a.ID
			m.Attachments[0] = c
		}
	}
	reply, err := b.p.RoundTrip(ctx, m)
	if f, ok := err.(*core.Fault); ok && b.name == "FaultNotRemote" {
		c := *f
		c.Remote = false
		return nil, &c
	}
	return reply, err
}
