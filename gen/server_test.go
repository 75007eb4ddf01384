package gen_test

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/coretest"
	"github.com/soapwire/soapwire/core/wsdl"
	"github.com/soapwire/soapwire/gen/internal/events"
)

// eventsImpl implements the generated interface of testdata/events.wsdl
// and records what it was called with.
type eventsImpl struct {
	mu  sync.Mutex
	got []string
}

var _ events.Events = (*eventsImpl)(nil)

func (i *eventsImpl) record(s string) {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.got = append(i.got, s)
}

func (i *eventsImpl) calls() []string {
	i.mu.Lock()
	defer i.mu.Unlock()
	return append([]string(nil), i.got...)
}

func (i *eventsImpl) Notify(_ context.Context, in *events.Event) error {
	i.record("notify " + in.Kind)
	return nil
}

func (i *eventsImpl) Ping(_ context.Context, in *events.Ping) (*events.PingResponse, error) {
	i.record(fmt.Sprint("ping ", in.N))
	return &events.PingResponse{N: in.N + 1}, nil
}

func (i *eventsImpl) SetLow(_ context.Context, in *int32) (*string, error) {
	i.record(fmt.Sprint("setLow ", *in))
	ack := fmt.Sprint("low ", *in)
	return &ack, nil
}

func (i *eventsImpl) SetHigh(_ context.Context, in *int32) (*string, error) {
	i.record(fmt.Sprint("setHigh ", *in))
	if *in < 0 {
		return nil, errors.New("the database password is hunter2")
	}
	ack := fmt.Sprint("high ", *in)
	return &ack, nil
}

// eventsClient is what both generated clients (SOAP 1.1, 1.2) have.
type eventsClient interface {
	Notify(context.Context, *events.Event, ...wsdl.CallOption) error
	Ping(context.Context, *events.Ping, ...wsdl.CallOption) (*events.PingResponse, error)
	SetLow(context.Context, *int32, ...wsdl.CallOption) (*string, error)
	SetHigh(context.Context, *int32, ...wsdl.CallOption) (*string, error)
}

// TestGeneratedServer: one generated server serves both SOAP bindings of
// its port type, routing each request by its body's element and, where
// two operations take the same element, by its action; it refuses what
// the contract does not have or allow with a Sender fault naming it,
// answers an implementation's own error with a Receiver fault that does
// not show it, and serves the contract's WSDL with the address it is
// reached at. A client's version (wsdl.WithVersion) and a call's action
// (wsdl.WithAction) override the contract's.
func TestGeneratedServer(t *testing.T) {
	impl := &eventsImpl{}
	srv := events.NewEventsServer(impl)
	pipe := coretest.NewPipe(coretest.WithHandler(srv))
	ctx := t.Context()
	for _, c := range []eventsClient{events.NewEventsSoapClient(pipe), events.NewEventsSoap12Client(pipe)} {
		out, err := c.Ping(ctx, &events.Ping{N: 41})
		require.NoError(t, err)
		assert.Equal(t, int32(42), out.N)
		v := int32(5)
		low, err := c.SetLow(ctx, &v)
		require.NoError(t, err)
		assert.Equal(t, "low 5", *low)
		high, err := c.SetHigh(ctx, &v)
		require.NoError(t, err)
		assert.Equal(t, "high 5", *high, "the same body element, routed by the action")

		v = -1
		_, err = c.SetHigh(ctx, &v)
		var f *core.Fault
		require.ErrorAs(t, err, &f)
		assert.Equal(t, core.CodeReceiver, f.Code)
		assert.NotContains(t, f.Reason, "hunter2", "an implementation's error is not shown to the client")
	}
	assert.Equal(t, []string{"ping 41", "setLow 5", "setHigh 5", "setHigh -1", "ping 41", "setLow 5", "setHigh 5", "setHigh -1"}, impl.calls())

	// the contract's version and action, overridden: a 1.1 port's client
	// sending SOAP 1.2 is served by the 1.2 binding, and SetLow sent with
	// setHigh's action is setHigh
	var versions []core.Version
	seen := coretest.NewPipe(coretest.WithHandler(core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		versions = append(versions, m.Version())
		return srv.ServeSOAP(ctx, m)
	})))
	v := int32(7)
	ack, err := events.NewEventsSoapClient(seen, wsdl.WithVersion(core.V12)).SetLow(ctx, &v, wsdl.WithAction("urn:events#setHigh"))
	require.NoError(t, err)
	assert.Equal(t, "high 7", *ack)
	_, err = events.NewEventsSoapClient(seen).SetLow(ctx, &v)
	require.NoError(t, err)
	assert.Equal(t, []string{"setHigh 7", "setLow 7"}, impl.calls()[8:])
	assert.Equal(t, []core.Version{core.V12, core.V11}, versions)

	// requests written by hand: what the contract does not have or allow
	for _, tc := range []struct {
		name, body, action string
		subcode            string
		reason             string
	}{
		{"unknown element", `<e:nope xmlns:e="urn:events"/>`, "urn:events#nope", "ProcedureNotPresent", "no operation of the contract takes a body of {urn:events}nope"},
		{"not an int", `<e:ping xmlns:e="urn:events"><e:n>many</e:n></e:ping>`, "urn:events#ping", "BadArguments", `ping/n: "many" is not a valid xsd:int`},
		{"missing", `<e:ping xmlns:e="urn:events"/>`, "urn:events#ping", "BadArguments", "ping: the required element {urn:events}n is missing"},
		{"unknown child", `<e:ping xmlns:e="urn:events"><e:n>1</e:n><e:m>2</e:m></e:ping>`, "urn:events#ping", "BadArguments", "ping: the element {urn:events}m is not allowed here"},
		{"unqualified", `<e:ping xmlns:e="urn:events"><n>1</n></e:ping>`, "urn:events#ping", "BadArguments", "the schema wants it in the namespace urn:events"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := len(impl.calls())
			m := core.NewMessage(core.V11, core.RawBody([]byte(tc.body)))
			m.Action = tc.action
			_, err := pipe.RoundTrip(ctx, m)
			var f *core.Fault
			require.ErrorAs(t, err, &f)
			assert.Equal(t, core.CodeSender, f.Code, "%v", f)
			require.NotEmpty(t, f.Subcodes)
			assert.Equal(t, xml.Name{Space: core.NamespaceRPC, Local: tc.subcode}, f.Subcodes[0])
			assert.Contains(t, f.Reason, tc.reason)
			assert.Len(t, impl.calls(), before, "the implementation is not called")
		})
	}

	// the contract's WSDL, every port at the address served
	var doc strings.Builder
	require.NoError(t, srv.WSDL(&doc, "http://127.0.0.1:8080/events?a&b"))
	assert.Equal(t, 2, strings.Count(doc.String(), `location="http://127.0.0.1:8080/events?a&amp;b"`), doc.String())
	assert.NotContains(t, doc.String(), wsdl.AddressMarker)
	assert.Contains(t, doc.String(), `name="notify"`)
}

// TestGeneratedOneWay: a one-way operation's client method returns only
// an error: over a RoundTripper once the server accepted the message
// (answering nothing), through the client's Sender (wsdl.WithSender) once
// the message is sent, to the client's address with the operation's
// action; the generated server calls the implementation and answers
// nothing.
func TestGeneratedOneWay(t *testing.T) {
	ctx := t.Context()
	impl := &eventsImpl{}
	srv := events.NewEventsServer(impl)
	pipe := coretest.NewPipe(coretest.WithHandler(srv))
	require.NoError(t, events.NewEventsSoapClient(pipe).Notify(ctx, &events.Event{Kind: "over a RoundTripper"}))
	require.NoError(t, events.NewEventsSoap12Client(pipe).Notify(ctx, &events.Event{Kind: "in SOAP 1.2"}))
	assert.Equal(t, []string{"notify over a RoundTripper", "notify in SOAP 1.2"}, impl.calls())

	queue := coretest.NewPipe()
	c := events.NewEventsSoapClient(nil, wsdl.WithSender(queue), wsdl.WithAddress("pipe:events"))
	assert.Equal(t, "pipe:events", c.Address())
	require.NoError(t, c.Notify(ctx, &events.Event{Kind: "through a Sender"}))
	require.Equal(t, 1, queue.Len(), "sent, not waited for")
	d, err := queue.Receive(ctx)
	require.NoError(t, err)
	m := d.Message()
	assert.Equal(t, "pipe:events", m.To)
	assert.Equal(t, "urn:events#notify", m.Action)
	assert.Equal(t, xml.Name{Space: "urn:events", Local: "event"}, m.Body().Name())
	reply, err := srv.ServeSOAP(ctx, m)
	require.NoError(t, err)
	assert.Nil(t, reply, "a one-way operation is answered with nothing")
	assert.Equal(t, "notify through a Sender", impl.calls()[2])

	// a request-response operation needs a RoundTripper, which this client
	// has not
	_, err = c.Ping(ctx, &events.Ping{N: 1})
	require.Error(t, err)
	require.NoError(t, events.NewEventsSoapClient(pipe).Notify(ctx, &events.Event{}), "an empty kind is a string")

	// a one-way request that does not fit the contract is refused all the
	// same
	m = core.NewMessage(core.V11, core.RawBody([]byte(`<e:event xmlns:e="urn:events"><e:at>yesterday</e:at></e:event>`)))
	m.Action = "urn:events#notify"
	_, err = srv.ServeSOAP(ctx, m)
	var f *core.Fault
	require.ErrorAs(t, err, &f)
	assert.Equal(t, core.CodeSender, f.Code)
	assert.Len(t, impl.calls(), 4, "the implementation is not called")
}
