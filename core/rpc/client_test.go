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

func TestClientRoundTrip(t *testing.T) {
	for _, style := range styles {
		for _, v := range versions {
			t.Run(style.String()+"/"+v.String(), func(t *testing.T) {
				svc := newEchoService(rpc.WithStyle(style))
				c := rpc.NewClient(loopback(t, svc), echoNS, rpc.WithStyle(style), rpc.WithVersion(v))
				ctx := t.Context()

				s, err := rpc.Call[EchoStringResp](ctx, c, "echoString", EchoStringReq{S: "a < b & \"c\"\n"})
				require.NoError(t, err)
				assert.Equal(t, "a < b & \"c\"\n", s.Return)

				sum, err := rpc.Call[AddResp](ctx, c, "add", &AddReq{A: -5, B: 7})
				require.NoError(t, err)
				assert.Equal(t, int32(2), sum.Return)

				rec := Record{Name: "x", Count: 3, Score: -1.25, Tags: []string{"p", "q"}}
				got, err := rpc.Call[EchoStructResp](ctx, c, "echoStruct", EchoStructReq{Record: rec})
				require.NoError(t, err)
				assert.Equal(t, rec, got.Return)

				empty, err := rpc.Call[EchoStructResp](ctx, c, "echoStruct", EchoStructReq{})
				require.NoError(t, err)
				assert.Empty(t, empty.Return.Tags)

				for _, vals := range [][]int32{nil, {7}, {1, 2, 3}} {
					n, err := rpc.Call[SumResp](ctx, c, "sum", SumReq{Values: vals})
					require.NoError(t, err)
					var want int32
					for _, x := range vals {
						want += x
					}
					assert.Equal(t, want, n.Return)
				}

				cnt, err := rpc.Call[CounterResp](ctx, c, "counter", CounterReq{Value: 4, Step: 1})
				require.NoError(t, err)
				assert.Equal(t, CounterResp{Value: 5, Return: 50, Doubled: 10}, *cnt)

				_, err = rpc.Call[FailResp](ctx, c, "fail", FailReq{Reason: "nope"})
				var f *core.Fault
				require.ErrorAs(t, err, &f)
				assert.True(t, f.Remote)
				assert.Equal(t, core.CodeSender, f.Code)
				assert.Equal(t, "nope", f.Reason)
				assert.Contains(t, string(f.Detail), "<e:code>42</e:code>")
				if v == core.V12 {
					assert.True(t, f.HasSubcode(xml.Name{Space: "urn:soapwire:errors", Local: "NoAccount"}))
				}

				_, err = rpc.Call[EchoStringResp](ctx, c, "broken", EchoStringReq{S: "x"})
				require.ErrorAs(t, err, &f)
				assert.Equal(t, core.CodeReceiver, f.Code)
				assert.Equal(t, core.InternalErrorReason, f.Reason)
				assert.NotContains(t, f.Error(), "hunter2")

				_, err = rpc.Call[EchoStringResp](ctx, c, "nosuch", EchoStringReq{})
				require.ErrorAs(t, err, &f)
				assert.Equal(t, core.CodeSender, f.Code)
				if v == core.V12 {
					assert.True(t, f.HasSubcode(xml.Name{Space: core.NamespaceRPC, Local: "ProcedureNotPresent"}))
				}
			})
		}
	}
}

func TestClientSOAPAction(t *testing.T) {
	tests := []struct {
		name string
		opts []rpc.ClientOption
		want string
	}{
		{"default", nil, echoNS + "#add"},
		{"pattern", []rpc.ClientOption{rpc.WithSOAPAction("http://example.com/{op}")}, "http://example.com/add"},
		{"empty", []rpc.ClientOption{rpc.WithSOAPAction("")}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc := newEchoService()
			var action string
			rt := loopback(t, svc)
			c := rpc.NewClient(core.RoundTripFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
				action = m.Action
				return rt.RoundTrip(ctx, m)
			}), echoNS, tt.opts...)
			_, err := rpc.Call[AddResp](t.Context(), c, "add", AddReq{A: 1, B: 2})
			require.NoError(t, err)
			assert.Equal(t, tt.want, action)
		})
	}
}

// TestClientReadsMultiRefs: a SOAP 1.1 reply whose return value is an
// href to a multiRef element (Axis 1 style) is read.
func TestClientReadsMultiRefs(t *testing.T) {
	reply := `<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/"
 xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<soapenv:Body>
<ns1:echoStructResponse soapenv:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/" xmlns:ns1="urn:soapwire:echo">
 <echoStructReturn href="#id0"/>
</ns1:echoStructResponse>
<multiRef id="id0" soapenc:root="0" soapenv:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/" xsi:type="ns2:Record"
  xmlns:soapenc="http://schemas.xmlsoap.org/soap/encoding/" xmlns:ns2="urn:soapwire:echo">
 <name xsi:type="xsd:string">m</name><count href="#id1"/><score xsi:type="xsd:double">0.5</score>
 <tags soapenc:arrayType="xsd:string[2]" xsi:type="soapenc:Array"><item>u</item><item>v</item></tags>
</multiRef>
<multiRef id="id1" soapenc:root="0" soapenv:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/" xsi:type="xsd:int"
  xmlns:soapenc="http://schemas.xmlsoap.org/soap/encoding/">9</multiRef>
</soapenv:Body></soapenv:Envelope>`
	c := rpc.NewClient(core.RoundTripFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		return core.ReadMessage(strings.NewReader(reply), core.Limits{})
	}), echoNS, rpc.WithStyle(rpc.RPCEncoded))
	got, err := rpc.Call[EchoStructResp](t.Context(), c, "echoStruct", EchoStructReq{})
	require.NoError(t, err)
	assert.Equal(t, Record{Name: "m", Count: 9, Score: 0.5, Tags: []string{"u", "v"}}, got.Return)
}
