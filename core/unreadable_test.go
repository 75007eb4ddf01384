package core_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
)

// waiting is a handler that waits for replies: it records what Serve hands
// it.
type waiting struct {
	ev *pmEvents
}

func (w waiting) ServeSOAP(_ context.Context, m *core.Message) (*core.Message, error) {
	w.ev.add("handle %s", m.ID)
	return nil, nil
}

func (w waiting) ServeUnreadable(_ context.Context, m *core.Message, f *core.Fault) {
	w.ev.add("unreadable %s relates to %s: %s", m.ID, m.RelatesTo, f.Reason)
}

// TestServeUnreadable: a message a Receiver could not read is parked (Nack
// with ErrMalformed and its fault) without any handler's ServeSOAP; a
// handler waiting for replies hears of one that relates to a request
// first, and of no other.
func TestServeUnreadable(t *testing.T) {
	for _, v := range pmVersions {
		t.Run(v.String(), func(t *testing.T) {
			ev := &pmEvents{}
			rcv := newPMReceiver()
			pmServe(t, rcv, waiting{ev}, &pmSent{events: ev})
			bad := core.SenderFault("malformed envelope: xml: element <a> closed by </b>")
			related := core.UnreadableMessage(v, bad)
			related.ID, related.RelatesTo = "mid:reply-1@example.org", "urn:uuid:request-1"
			d := newPMDelivery(related, ev)
			rcv.push(t, d)
			state, cause := d.wait(t)
			require.Equal(t, "nack", state)
			assert.ErrorIs(t, cause, core.ErrMalformed, "parked at once")
			f := core.FaultOf(cause)
			assert.Equal(t, bad.Reason, f.Reason)
			assert.Equal(t, v, f.Version, "in the message's version")

			stray := core.UnreadableMessage(v, bad)
			stray.ID = "mid:stray@example.org"
			d2 := newPMDelivery(stray, ev)
			rcv.push(t, d2)
			state, _ = d2.wait(t)
			require.Equal(t, "nack", state)
			assert.Equal(t, []string{
				"unreadable mid:reply-1@example.org relates to urn:uuid:request-1: " + bad.Reason,
				"nack mid:reply-1@example.org",
				"nack mid:stray@example.org",
			}, ev.all(), "no ServeSOAP, nothing sent; ServeUnreadable only for the related one")
		})
	}
}

// TestUnreadableMessage: its Body fails with the fault at once, and it
// answers nobody.
func TestUnreadableMessage(t *testing.T) {
	f := core.SenderFault("not a SOAP mail")
	m := core.UnreadableMessage(core.V12, f)
	assert.Equal(t, core.V12, m.Version())
	assert.Equal(t, core.NoneAddress, m.ReplyTo)
	assert.Equal(t, core.NoneAddress, m.FaultTo)
	var v struct{}
	err := m.Body().Decode(&v)
	require.Error(t, err)
	assert.Equal(t, f.Reason, core.FaultOf(err).Reason)
	require.Error(t, m.Body().Err())
	_, err = m.WriteTo(new(nopWriter))
	assert.Error(t, err, "it cannot be written either")
}

type nopWriter struct{}

func (nopWriter) Write(p []byte) (int, error) { return len(p), nil }
