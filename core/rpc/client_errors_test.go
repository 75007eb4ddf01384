package rpc_test

import (
	"context"
	"encoding/xml"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/rpc"
)

func TestClientErrors(t *testing.T) {
	replyIn := func(v core.Version, body string) core.RoundTripper {
		return core.RoundTripFunc(func(context.Context, *core.Message) (*core.Message, error) {
			if body == "-" {
				return nil, nil
			}
			return core.ReadMessage(strings.NewReader(envelope(v, body)), core.Limits{})
		})
	}
	reply := func(body string) core.RoundTripper { return replyIn(core.V11, body) }
	answer := `<m:addResponse xmlns:m="urn:soapwire:echo"><return>2</return></m:addResponse>`
	tests := []struct {
		name string
		rt   core.RoundTripper
		req  any
		want string
	}{
		{"no reply", reply("-"), AddReq{}, "no reply"},
		{"empty body", reply(""), AddReq{}, "empty reply body"},
		{"unparsable return", reply(`<m:addResponse xmlns:m="urn:soapwire:echo"><return>x</return></m:addResponse>`), AddReq{}, "reading the reply"},
		{"nil request", reply("-"), (*AddReq)(nil), "nil request"},
		{"request not a struct", reply("-"), 42, "not a struct"},
		{"a reply in the other version", replyIn(core.V12, answer), AddReq{}, "VersionMismatch: the reply is a SOAP 1.2 envelope, the request was SOAP 1.1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := rpc.NewClient(tt.rt, echoNS)
			_, err := rpc.Call[AddResp](t.Context(), c, "add", tt.req)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

// TestServiceBehindNodeAndMux: a Service is a core.Handler, mounted as a
// Node's body handler and in a Mux by its operation names.
func TestServiceBehindNodeAndMux(t *testing.T) {
	svc := newEchoService()
	mux := &core.Mux{}
	for _, op := range svc.Operations() {
		mux.Handle(core.Route{Name: xml.Name{Space: echoNS, Local: op}}, svc)
	}
	node := &core.Node{Handler: mux}
	c := rpc.NewClient(loopback(t, node), echoNS, rpc.WithVersion(core.V12))
	got, err := rpc.Call[AddResp](t.Context(), c, "add", AddReq{A: 1, B: 1})
	require.NoError(t, err)
	assert.Equal(t, int32(2), got.Return)
}
