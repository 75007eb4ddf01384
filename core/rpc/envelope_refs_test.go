package rpc_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/rpc"
)

// tsEcho is the echoString of the W3C SOAP 1.2 test collection
// (namespace http://example.org/ts-tests), rpc/encoded.
func tsEcho() *rpc.Service {
	type req struct {
		InputString string `soap:"inputString"`
	}
	type resp struct {
		Return string `soap:"return"`
	}
	s := rpc.NewService("http://example.org/ts-tests", "TestService", rpc.WithStyle(rpc.RPCEncoded))
	rpc.Register(s, "echoString", func(_ context.Context, r *req) (*resp, error) {
		return &resp{Return: r.InputString}, nil
	})
	return s
}

// TestServiceEnvelopeReferences: an argument may refer to a value in a
// header block (the W3C SOAP 1.2 test collection's T57 and T76; the same in
// SOAP 1.1 with href/id), and an id carried in a header block and again in
// the body is a DuplicateID fault, in both versions: the request's bytes
// and the answer's.
func TestServiceEnvelopeReferences(t *testing.T) {
	const (
		env12 = `<env:Envelope xmlns:env="http://www.w3.org/2003/05/soap-envelope" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:enc="http://www.w3.org/2003/05/soap-encoding">`
		env11 = `<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">`
		hdr12 = `<env:Header><test:DataHolder xmlns:test="http://example.org/ts-tests" env:encodingStyle="http://www.w3.org/2003/05/soap-encoding">` +
			`<test:Data enc:id="data" xsi:type="xsd:string">hello world</test:Data></test:DataHolder></env:Header>`
		hdr11 = `<s:Header><test:DataHolder xmlns:test="http://example.org/ts-tests" s:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/">` +
			`<test:Data id="data" xsi:type="xsd:string">hello world</test:Data></test:DataHolder></s:Header>`
		op12  = `<env:Body><test:echoString xmlns:test="http://example.org/ts-tests" env:encodingStyle="http://www.w3.org/2003/05/soap-encoding">`
		op11  = `<s:Body><test:echoString xmlns:test="http://example.org/ts-tests" s:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/">`
		end12 = `</test:echoString></env:Body></env:Envelope>`
		end11 = `</test:echoString></s:Body></s:Envelope>`

		reply12 = `<soap:Envelope xmlns:soap="http://www.w3.org/2003/05/soap-envelope"><soap:Body><m:echoStringResponse xmlns:m="http://example.org/ts-tests" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:enc="http://www.w3.org/2003/05/soap-encoding" xmlns:tns="http://example.org/ts-tests" xmlns:soapenv="http://www.w3.org/2003/05/soap-envelope" soapenv:encodingStyle="http://www.w3.org/2003/05/soap-encoding"><return xsi:type="xsd:string">hello world</return></m:echoStringResponse></soap:Body></soap:Envelope>`
		reply11 = `<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><m:echoStringResponse xmlns:m="http://example.org/ts-tests" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:soapenc="http://schemas.xmlsoap.org/soap/encoding/" xmlns:tns="http://example.org/ts-tests" xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" soapenv:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/"><return xsi:type="xsd:string">hello world</return></m:echoStringResponse></soap:Body></soap:Envelope>`
	)
	cases := []struct {
		name, request, want string
	}{
		{"T57: 1.2 enc:ref=\"#data\" to a header value", env12 + hdr12 + op12 + `<test:inputString enc:ref="#data" xsi:type="xsd:string"/>` + end12, reply12},
		{"T76: 1.2 enc:ref=\"data\" to a header value", env12 + hdr12 + op12 + `<inputString enc:ref="data" xsi:type="xsd:string"/>` + end12, reply12},
		{"1.1 href=\"#data\" to a header value", env11 + hdr11 + op11 + `<inputString href="#data"/>` + end11, reply11},
		{"T56: 1.2 a reference to an id nothing carries", env12 + hdr12 + op12 + `<inputString enc:ref="#data-2" xsi:type="xsd:string"/>` + end12,
			`<soap:Envelope xmlns:soap="http://www.w3.org/2003/05/soap-envelope"><soap:Body><soap:Fault><soap:Code><soap:Value>soap:Sender</soap:Value>` +
				`<soap:Subcode><soap:Value xmlns:sc0="http://www.w3.org/2003/05/soap-encoding">sc0:MissingID</soap:Value></soap:Subcode></soap:Code>` +
				`<soap:Reason><soap:Text xml:lang="en">soapenc: MissingID at /echoString/inputString: reference to id "data-2", which no element has</soap:Text></soap:Reason></soap:Fault></soap:Body></soap:Envelope>`},
		{"1.2: an id in a header block and in the body", env12 + hdr12 + op12 + `<inputString enc:id="data" xsi:type="xsd:string">again</inputString>` + end12,
			`<soap:Envelope xmlns:soap="http://www.w3.org/2003/05/soap-envelope"><soap:Body><soap:Fault><soap:Code><soap:Value>soap:Sender</soap:Value>` +
				`<soap:Subcode><soap:Value xmlns:sc0="http://www.w3.org/2003/05/soap-encoding">sc0:DuplicateID</soap:Value></soap:Subcode></soap:Code>` +
				`<soap:Reason><soap:Text xml:lang="en">soapenc: DuplicateID at /echoString/inputString: id "data" appears twice</soap:Text></soap:Reason></soap:Fault></soap:Body></soap:Envelope>`},
		{"1.1: an id in a header block and in the body", env11 + hdr11 + op11 + `<inputString href="#data"/>` + `</test:echoString><multiRef id="data" xsi:type="xsd:string">again</multiRef></s:Body></s:Envelope>`,
			`<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><soap:Fault>` +
				`<faultcode xmlns:enc="http://www.w3.org/2003/05/soap-encoding">enc:DuplicateID</faultcode>` +
				`<faultstring>soapenc: DuplicateID at /multiRef: id "data" appears twice</faultstring></soap:Fault></soap:Body></soap:Envelope>`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, f := serveRaw(t, tsEcho(), c.request)
			assert.Equal(t, c.want, out)
			if f != nil {
				back, err := core.ReadMessage(strings.NewReader(out), core.Limits{})
				require.NoError(t, err)
				assert.Equal(t, core.CodeSender, back.Fault().Code)
				assert.Equal(t, f.Subcodes, back.Fault().Subcodes, "the subcode reads back in both versions")
			}
		})
	}
}
