package rpc_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/rpc"
)

// wire writes m to bytes and reads it back, as a transport would.
func wire(t testing.TB, m *core.Message) *core.Message {
	t.Helper()
	var b bytes.Buffer
	_, err := m.WriteTo(&b)
	require.NoError(t, err)
	back, err := core.ReadMessage(&b, core.Limits{})
	require.NoError(t, err, "re-reading %s", b.String())
	return back
}

// serveRaw hands a hand-written request to svc and returns the reply as
// text (a fault is written as a fault envelope) and the fault, if any.
func serveRaw(t testing.TB, svc core.Handler, raw string) (string, *core.Fault) {
	t.Helper()
	m, err := core.ReadMessage(strings.NewReader(raw), core.Limits{})
	require.NoError(t, err)
	reply, err := svc.ServeSOAP(t.Context(), m)
	var f *core.Fault
	if err != nil {
		f = core.FaultOf(err)
		reply = m.FaultReply(f)
	}
	require.NotNil(t, reply)
	var b bytes.Buffer
	_, err = reply.WriteTo(&b)
	require.NoError(t, err)
	return b.String(), f
}

// loopback is a RoundTripper that carries messages to svc and back through
// bytes, and returns a fault reply as the *core.Fault (Remote set).
func loopback(t testing.TB, svc core.Handler) core.RoundTripper {
	return core.RoundTripFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		in := wire(t, m)
		reply, err := svc.ServeSOAP(ctx, in)
		if err != nil {
			reply = in.FaultReply(core.FaultOf(err))
		}
		back := wire(t, reply)
		if f := back.Fault(); f != nil {
			return nil, f
		}
		return back, nil
	})
}

var styles = []rpc.Style{rpc.DocumentLiteral, rpc.RPCLiteral, rpc.RPCEncoded}
var versions = []core.Version{core.V11, core.V12}

// envelope wraps body children in an envelope of version v.
func envelope(v core.Version, body string) string {
	return `<s:Envelope xmlns:s="` + v.Namespace() + `"><s:Body>` + body + `</s:Body></s:Envelope>`
}
