package rpc_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/rpc"
)

// FuzzServiceRequest: no body makes a Service panic or hang, and every
// refusal is a fault (a *core.Fault, or a hidden Receiver fault for a Go
// error) that can be written.
func FuzzServiceRequest(f *testing.F) {
	for _, s := range []string{
		`<m:add xmlns:m="urn:soapwire:echo"><a>1</a><b>2</b></m:add>`,
		`<m:echoStruct xmlns:m="urn:soapwire:echo"><record href="#a"/></m:echoStruct><x id="a"><name>n</name><tags>t</tags></x>`,
		`<m:sum xmlns:m="urn:soapwire:echo" xmlns:e="http://schemas.xmlsoap.org/soap/encoding/"><values e:arrayType="xsd:int[2]"><i>1</i><i>2</i></values></m:sum>`,
		`<m:counter xmlns:m="urn:soapwire:echo"><x>1</x><y>2</y></m:counter>`,
		`<c:echoStruct xmlns:c="urn:soapwire:interop:calc"><c:person id="1"><c:name>n</c:name><c:age>1</c:age><c:address country="GB"><c:street/><c:city/></c:address><c:tags>t</c:tags><c:note xsi:nil="true" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"/></c:person></c:echoStruct>`,
		`<c:Operands xmlns:c="urn:soapwire:calc"><c:a>1</c:a><c:b>2</c:b></c:Operands>`,
		`<c:add xmlns:c="urn:soapwire:calc"><c:a>1</c:a><c:b>2</c:b></c:add>`,
	} {
		for w := range uint8(12) {
			f.Add(s, w)
		}
	}
	svcs := []*rpc.Service{
		newEchoService(rpc.WithStyle(rpc.DocumentLiteral)),
		newEchoService(rpc.WithStyle(rpc.RPCLiteral)),
		newEchoService(rpc.WithStyle(rpc.RPCEncoded)),
		boundCalc(f),                         // bound to calc-qualified.wsdl: the codec reads
		newBareCalc(rpc.WithQualified(true)), // bare, qualified
		newCalc(rpc.WithQualified(true)),     // wrapped, qualified
	}
	f.Fuzz(func(t *testing.T, body string, which uint8) {
		v := versions[int(which)%2]
		m, err := core.ReadMessage(strings.NewReader(envelope(v, body)), core.Limits{})
		if err != nil {
			return // not an envelope: core's business
		}
		svc := svcs[int(which/2)%len(svcs)]
		reply, err := svc.ServeSOAP(t.Context(), m)
		if err != nil {
			var fault *core.Fault
			if !errors.As(err, &fault) && !errors.Is(err, errSecret) {
				t.Fatalf("a refusal that is not a fault: %v", err)
			}
			fault = core.FaultOf(err)
			reply = m.FaultReply(fault)
		}
		var b bytes.Buffer
		if _, err := reply.WriteTo(&b); err != nil {
			t.Fatalf("writing the reply: %v", err)
		}
		if _, err := core.ReadMessage(&b, core.Limits{}); err != nil {
			t.Fatalf("the reply does not read back: %v\n%s", err, b.String())
		}
	})
}

// FuzzClientReply: whatever body a peer answers with, Call returns the
// response or an error (a *core.Fault for a fault reply), never a panic.
func FuzzClientReply(f *testing.F) {
	for _, s := range []string{
		`<m:echoStructResponse xmlns:m="urn:soapwire:echo"><return><name>n</name><count>1</count><score>2</score><tags>a</tags><tags>b</tags></return></m:echoStructResponse>`,
		`<m:echoStructResponse xmlns:m="urn:soapwire:echo"><echoStructReturn href="#a"/></m:echoStructResponse><multiRef id="a"><name>m</name><count href="#b"/></multiRef><multiRef id="b">9</multiRef>`,
		`<m:echoStructResponse xmlns:m="urn:soapwire:echo" xmlns:e="http://www.w3.org/2003/05/soap-encoding"><r:result xmlns:r="http://www.w3.org/2003/05/soap-rpc">return</r:result><return e:id="x"><tags e:itemType="xsd:string" e:arraySize="2" xmlns:xsd="http://www.w3.org/2001/XMLSchema"><i>a</i></tags></return></m:echoStructResponse>`,
		`<s:Fault xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><faultcode>s:Client</faultcode><faultstring>no</faultstring></s:Fault>`,
	} {
		f.Add(s, uint8(0))
	}
	f.Fuzz(func(t *testing.T, body string, which uint8) {
		v := versions[int(which)%2]
		style := styles[int(which/2)%len(styles)]
		rt := core.RoundTripFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
			return core.ReadMessage(strings.NewReader(envelope(v, body)), core.Limits{})
		})
		c := rpc.NewClient(rt, echoNS, rpc.WithStyle(style), rpc.WithVersion(v))
		got, err := rpc.Call[EchoStructResp](t.Context(), c, "echoStruct", EchoStructReq{})
		if err == nil && got == nil {
			t.Fatal("no error and no response")
		}
	})
}
