package wsdl_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/wsdl"
	"github.com/soapwire/soapwire/core/xsd"
	"github.com/soapwire/soapwire/internal/interop"
)

// loadInterop loads one of the interop harness's contracts.
func loadInterop(t testing.TB, c interop.Contract) *wsdl.Contract {
	t.Helper()
	path := c.Path()
	ct, err := wsdl.Load(context.Background(), xsd.FSLoader(os.DirFS(filepath.Dir(path))), filepath.Base(path))
	require.NoError(t, err)
	return ct
}

// peer is a RoundTripper that keeps each request's envelope and answers
// with the envelope reply gives for it.
type peer struct {
	t        testing.TB
	requests []string
	actions  []string
	reply    func(req string) string
}

func (p *peer) RoundTrip(_ context.Context, m *core.Message) (*core.Message, error) {
	var buf bytes.Buffer
	if _, err := m.WriteTo(&buf); err != nil {
		return nil, err
	}
	p.requests = append(p.requests, buf.String())
	p.actions = append(p.actions, m.Action)
	out := p.reply(buf.String())
	if out == "" {
		return nil, nil
	}
	r, err := core.ReadMessageBytes([]byte(out), core.DefaultLimits())
	if err != nil {
		return nil, err
	}
	if f := r.Fault(); f != nil {
		return nil, f
	}
	return r, nil
}

// env11 wraps body children in a SOAP 1.1 envelope.
func env11(body string) string {
	return `<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>` + body + `</soap:Body></soap:Envelope>`
}

// bodyOf returns what a request's Body holds.
func bodyOf(env string) string {
	_, after, _ := strings.Cut(env, "<soap:Body>")
	before, _, _ := strings.Cut(after, "</soap:Body>")
	return before
}

const calcNS = "urn:soapwire:interop:calc"

func TestClientWrapped(t *testing.T) {
	c := loadInterop(t, interop.Qualified)
	p := &peer{t: t, reply: func(string) string {
		return env11(`<c:addResponse xmlns:c="urn:soapwire:interop:calc"><c:result>42</c:result></c:addResponse>`)
	}}
	cl, err := wsdl.NewClient(c, p)
	require.NoError(t, err)
	assert.Equal(t, "http://127.0.0.1:8080/calc", cl.Address())
	assert.Equal(t, core.V11, cl.Endpoint().Version)

	type addIn struct {
		A int32 `xml:"a"`
		B int32 `xml:"b"`
	}
	var out struct {
		Result int32 `xml:"result"`
	}
	require.NoError(t, cl.Call(t.Context(), "add", addIn{A: 40, B: 2}, &out))
	assert.Equal(t, int32(42), out.Result)
	assert.Equal(t, `<ns0:add xmlns:ns0="urn:soapwire:interop:calc"><ns0:a>40</ns0:a><ns0:b>2</ns0:b></ns0:add>`, bodyOf(p.requests[0]),
		"every element qualified, as the schema says")
	assert.Equal(t, calcNS+"#add", p.actions[0])

	// a map of arguments, a tree out
	var tree *xsd.Value
	require.NoError(t, cl.Call(t.Context(), "add", map[string]any{"b": 2, "a": 40}, &tree))
	assert.Equal(t, bodyOf(p.requests[0]), bodyOf(p.requests[1]))
	assert.Equal(t, "42", tree.Get("result").Text)

	// the struct with its nested type, list, optional and nillable
	p.reply = func(req string) string {
		return env11(strings.NewReplacer("echoStruct>", "echoStructResponse>", ":person>", ":return>", "<ns0:echoStruct ", "<ns0:echoStructResponse ", ":person ", ":return ").Replace(bodyOf(req)))
	}
	person := map[string]any{"id": 1815, "name": "Ada", "age": 36, "address": map[string]any{"street": "s", "city": "London", "country": "GB"},
		"tags": []any{"a", "b"}, "note": nil}
	require.NoError(t, cl.Call(t.Context(), "echoStruct", map[string]any{"person": person}, &tree))
	assert.Equal(t, `<ns0:echoStruct xmlns:ns0="urn:soapwire:interop:calc"><ns0:person id="1815"><ns0:name>Ada</ns0:name><ns0:age>36</ns0:age>`+
		`<ns0:address country="GB"><ns0:street>s</ns0:street><ns0:city>London</ns0:city></ns0:address><ns0:tags>a</ns0:tags><ns0:tags>b</ns0:tags>`+
		`<ns0:note xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:nil="true"/></ns0:person></ns0:echoStruct>`, bodyOf(p.requests[2]))
	assert.Equal(t, "London", tree.Get("return.address.city").Text)
	assert.True(t, tree.Get("return.note").Nil)
	assert.Equal(t, "b", tree.Get("return.tags.1").Text)
}

func TestClientReplyMismatch(t *testing.T) {
	c := loadInterop(t, interop.Qualified)
	tests := []struct {
		name, reply, want string
	}{
		{"unqualified child", `<c:addResponse xmlns:c="urn:soapwire:interop:calc"><result>42</result></c:addResponse>`,
			"addResponse: the required element {urn:soapwire:interop:calc}result is missing (found result: the schema wants it in the namespace urn:soapwire:interop:calc (qualified))"},
		{"other element", `<c:subResponse xmlns:c="urn:soapwire:interop:calc"/>`, "expected the element {urn:soapwire:interop:calc}addResponse, found {urn:soapwire:interop:calc}subResponse"},
		{"not a number", `<c:addResponse xmlns:c="urn:soapwire:interop:calc"><c:result>forty</c:result></c:addResponse>`, `addResponse/result: "forty" is not a valid xsd:int`},
		{"more after", `<c:addResponse xmlns:c="urn:soapwire:interop:calc"><c:result>42</c:result></c:addResponse><c:extra xmlns:c="urn:x"/>`, "the element extra follows what the output holds"},
		{"empty body", ``, "the element {urn:soapwire:interop:calc}addResponse is missing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cl, err := wsdl.NewClient(c, &peer{t: t, reply: func(string) string { return env11(tt.reply) }})
			require.NoError(t, err)
			var out struct {
				Result int32 `xml:"result"`
			}
			err = cl.Call(t.Context(), "add", map[string]any{"a": 1, "b": 2}, &out)
			var re *wsdl.ReplyError
			require.ErrorAs(t, err, &re)
			assert.Contains(t, err.Error(), tt.want)
			assert.Equal(t, "add", re.Op)
		})
	}
	// lenient replies accept the unqualified child
	cl, err := wsdl.NewClient(c, &peer{t: t, reply: func(string) string { return env11(tests[0].reply) }}, wsdl.WithLenientReplies())
	require.NoError(t, err)
	var out struct {
		Result int32 `xml:"result"`
	}
	require.NoError(t, cl.Call(t.Context(), "add", map[string]any{"a": 1, "b": 2}, &out))
	assert.Equal(t, int32(42), out.Result)
}

func TestClientInputRefused(t *testing.T) {
	c := loadInterop(t, interop.Qualified)
	p := &peer{t: t, reply: func(string) string { return "" }}
	cl, err := wsdl.NewClient(c, p)
	require.NoError(t, err)
	err = cl.Call(t.Context(), "ad", nil, nil)
	assert.EqualError(t, err, `wsdl: the port has no operation "ad" (it has add, echoString, echoStruct, fail); did you mean add?`)
	err = cl.Call(t.Context(), "add", map[string]any{"a": 1}, nil)
	assert.ErrorContains(t, err, "wsdl: add: the input does not fit the contract: add: the required element b is missing")
	err = cl.Call(t.Context(), "add", map[string]any{"a": 1, "bb": 2}, nil)
	assert.ErrorContains(t, err, "add: no element or attribute bb (it has a, b); did you mean b?")
	err = cl.Call(t.Context(), "add", map[string]any{"a": "x", "b": 2}, nil)
	assert.ErrorContains(t, err, `add/a: "x" is not a valid xsd:int`)
	assert.Empty(t, p.requests, "nothing was sent")
}

func TestClientFaults(t *testing.T) {
	c := loadInterop(t, interop.Qualified)
	fault := `<soap:Fault><faultcode>soap:Client</faultcode><faultstring>calc refused: E42</faultstring><detail>` +
		`<c:CalcFault xmlns:c="urn:soapwire:interop:calc"><c:code>E42</c:code><c:message>failure E42 as asked</c:message></c:CalcFault></detail></soap:Fault>`
	cl, err := wsdl.NewClient(c, &peer{t: t, reply: func(string) string { return env11(fault) }})
	require.NoError(t, err)
	err = cl.Call(t.Context(), "fail", map[string]any{"code": "E42"}, nil)
	var fe *wsdl.FaultError
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, "CalcFault", fe.Name)
	assert.Equal(t, "E42", fe.Detail.Get("code").Text)
	var detail struct {
		Code    string `xml:"code"`
		Message string `xml:"message"`
	}
	require.NoError(t, fe.DecodeDetail(&detail))
	assert.Equal(t, "failure E42 as asked", detail.Message)
	var f *core.Fault
	require.ErrorAs(t, err, &f)
	assert.True(t, f.Remote)
	assert.Equal(t, core.CodeSender, f.Code)

	// a declared fault whose detail does not fit is a reply error
	bad := strings.Replace(fault, "<c:code>E42</c:code>", "", 1)
	cl, _ = wsdl.NewClient(c, &peer{t: t, reply: func(string) string { return env11(bad) }})
	err = cl.Call(t.Context(), "fail", map[string]any{"code": "E42"}, nil)
	assert.ErrorContains(t, err, "the detail of the fault CalcFault: CalcFault: the required element {urn:soapwire:interop:calc}code is missing")

	// an undeclared fault is the fault itself
	other := `<soap:Fault><faultcode>soap:Server</faultcode><faultstring>boom</faultstring></soap:Fault>`
	cl, _ = wsdl.NewClient(c, &peer{t: t, reply: func(string) string { return env11(other) }})
	err = cl.Call(t.Context(), "fail", map[string]any{"code": "E42"}, nil)
	require.ErrorAs(t, err, &f)
	assert.False(t, errors.As(err, &fe))
	assert.Equal(t, "boom", f.Reason)
}

func TestClientBare(t *testing.T) {
	c := loadInterop(t, interop.Bare)
	p := &peer{t: t, reply: func(req string) string {
		switch {
		case strings.Contains(req, "EchoText"):
			return env12(`<b:EchoedText xmlns:b="urn:soapwire:interop:calc-bare">hi</b:EchoedText>`)
		default:
			return env12(`<b:Sum xmlns:b="urn:soapwire:interop:calc-bare">42</b:Sum>`)
		}
	}}
	cl, err := wsdl.NewClient(c, p, wsdl.WithVersion(core.V12))
	require.NoError(t, err)
	assert.Equal(t, core.V12, cl.Endpoint().Version)
	var s string
	require.NoError(t, cl.Call(t.Context(), "echoString", "hi", &s))
	assert.Equal(t, "hi", s)
	assert.Contains(t, p.requests[0], `<ns0:EchoText xmlns:ns0="urn:soapwire:interop:calc-bare">hi</ns0:EchoText></soap:Body>`)
	var sum int
	require.NoError(t, cl.Call(t.Context(), "add", map[string]any{"a": 40, "b": 2}, &sum))
	assert.Equal(t, 42, sum)
	assert.Contains(t, p.requests[1], `<ns0:Operands xmlns:ns0="urn:soapwire:interop:calc-bare"><ns0:a>40</ns0:a><ns0:b>2</ns0:b></ns0:Operands>`)
}

func TestClientEncoded(t *testing.T) {
	c := loadInterop(t, interop.Encoded)
	p := &peer{t: t, reply: func(req string) string {
		// Axis-style multi-refs: the values after the wrapper
		return env11(`<ns1:sumArrayResponse xmlns:ns1="urn:soapwire:interop:calc-encoded" soap:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/">` +
			`<result href="#id0"/></ns1:sumArrayResponse>` +
			`<multiRef xmlns:soapenc="http://schemas.xmlsoap.org/soap/encoding/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema" id="id0" soapenc:root="0" xsi:type="xsd:int">42</multiRef>`)
	}}
	cl, err := wsdl.NewClient(c, p)
	require.NoError(t, err)
	var out struct {
		Result int `xml:"result"`
	}
	require.NoError(t, cl.Call(t.Context(), "sumArray", map[string]any{"values": []any{30, 10, 2}}, &out))
	assert.Equal(t, 42, out.Result)
	assert.Equal(t, `<ns0:sumArray xmlns:ns0="urn:soapwire:interop:calc-encoded" xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" soapenv:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/">`+
		`<values xmlns:soapenc="http://schemas.xmlsoap.org/soap/encoding/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xsi:type="soapenc:Array" soapenc:arrayType="xsd:int[3]">`+
		`<item xsi:type="xsd:int">30</item><item xsi:type="xsd:int">10</item><item xsi:type="xsd:int">2</item></values></ns0:sumArray>`, bodyOf(p.requests[0]))
}

func TestClientHeaderAndOneWay(t *testing.T) {
	c := loadRead(t, "calc.wsdl")
	p := &peer{t: t, reply: func(string) string {
		return env11(`<t:addResponse xmlns:t="urn:calc:types"><t:result>3</t:result></t:addResponse>`)
	}}
	cl, err := wsdl.NewClient(c, p, wsdl.WithPort("Calc", "CalcSoap11"))
	require.NoError(t, err)
	in := map[string]any{"a": 1, "b": 2}
	err = cl.Call(t.Context(), "add", in, nil)
	assert.ErrorContains(t, err, "wsdl: add: the required header auth is missing (give it WithHeader)")
	err = cl.Call(t.Context(), "add", in, nil, wsdl.WithHeader("auth", map[string]any{"token": "s3cret"}))
	require.NoError(t, err)
	assert.Contains(t, p.requests[0], `<soap:Header><ns0:auth xmlns:ns0="urn:calc"><ns0:token>s3cret</ns0:token></ns0:auth></soap:Header>`)
	err = cl.Call(t.Context(), "add", in, nil, wsdl.WithHeader("auth", map[string]any{"token": "x"}), wsdl.WithHeader("session", "y"))
	assert.ErrorContains(t, err, "the input has no header part session")

	err = cl.Call(t.Context(), "upload", map[string]any{"meta": map[string]any{"name": "x"}}, nil)
	assert.EqualError(t, err, "wsdl: upload carries MIME attachments (data), which the client does not send")

	p.reply = func(string) string { return "" }
	require.NoError(t, cl.Call(t.Context(), "log", map[string]any{"line": "hello"}, nil), "one-way: no reply")
	assert.Equal(t, "urn:calc#log", p.actions[len(p.actions)-1])
}

func TestFindEndpoint(t *testing.T) {
	c := loadRead(t, "calc.wsdl")
	e, err := c.FindEndpoint()
	require.NoError(t, err)
	assert.Equal(t, "CalcSoap11", e.Port.Name)
	e, err = c.FindEndpoint(wsdl.WithVersion(core.V12))
	require.NoError(t, err)
	assert.Equal(t, "http://127.0.0.1:8080/calc/soap12", e.Address)
	e, err = c.FindEndpoint(wsdl.WithPort("CalcBackup", "CalcSoap11"))
	require.NoError(t, err)
	assert.Equal(t, "http://backup.example/calc", e.Address)
	_, err = c.FindEndpoint(wsdl.WithPort("CalcBackup", "CalcSoap11"), wsdl.WithVersion(core.V12))
	assert.EqualError(t, err, "wsdl: no port CalcBackup/CalcSoap11 of SOAP 1.2 in the contract; it has Calc/CalcSoap11 (SOAP 1.1), "+
		"Calc/CalcSoap12 (SOAP 1.2), CalcBackup/CalcSoap11 (SOAP 1.1), binding CalcSpare (SOAP 1.1, no port)")
}

// env12 wraps body children in a SOAP 1.2 envelope.
func env12(body string) string {
	return `<env:Envelope xmlns:env="http://www.w3.org/2003/05/soap-envelope"><env:Body>` + body + `</env:Body></env:Envelope>`
}

// TestClientReplyInTheOtherVersion: a reply in the other SOAP version than
// the port's (answer or fault), from a RoundTripper that hands it on
// unchecked, is an error: a VersionMismatch fault this side found (not
// Remote), from Call and from Reply; a VersionMismatch fault in the other
// version is the server's answer, returned as its fault.
func TestClientReplyInTheOtherVersion(t *testing.T) {
	c := loadInterop(t, interop.Qualified)
	answer := `<c:addResponse xmlns:c="urn:soapwire:interop:calc"><c:result>42</c:result></c:addResponse>`
	unchecked := func(env string) core.RoundTripper {
		return core.RoundTripFunc(func(context.Context, *core.Message) (*core.Message, error) {
			return core.ReadMessageBytes([]byte(env), core.DefaultLimits())
		})
	}
	var out struct {
		Result int32 `xml:"result"`
	}
	for name, env := range map[string]string{
		"an answer": env12(answer),
		"a fault":   env12(`<env:Fault><env:Code><env:Value>env:Receiver</env:Value></env:Code><env:Reason><env:Text xml:lang="en">boom</env:Text></env:Reason></env:Fault>`),
	} {
		cl, err := wsdl.NewClient(c, unchecked(env))
		require.NoError(t, err)
		require.Equal(t, core.V11, cl.Endpoint().Version)
		err = cl.Call(t.Context(), "add", map[string]any{"a": 40, "b": 2}, &out)
		var f *core.Fault
		require.ErrorAs(t, err, &f, name)
		assert.Equal(t, core.CodeVersionMismatch, f.Code, name)
		assert.False(t, f.Remote, "%s: this side found it", name)
		assert.Contains(t, f.Reason, "SOAP 1.2", name)

		reply, err := core.ReadMessageBytes([]byte(env), core.DefaultLimits())
		require.NoError(t, err)
		err = cl.Reply("add", reply, nil, &out)
		require.ErrorAs(t, err, &f, name)
		assert.Equal(t, core.CodeVersionMismatch, f.Code, "%s: Reply checks too", name)
	}
	// the server saying it does not speak 1.1, in 1.2: its fault
	vm := env12(`<env:Fault><env:Code><env:Value>env:VersionMismatch</env:Value></env:Code><env:Reason><env:Text xml:lang="en">only 1.2</env:Text></env:Reason></env:Fault>`)
	cl, err := wsdl.NewClient(c, unchecked(vm))
	require.NoError(t, err)
	err = cl.Call(t.Context(), "add", map[string]any{"a": 40, "b": 2}, &out)
	var f *core.Fault
	require.ErrorAs(t, err, &f)
	assert.Equal(t, "only 1.2", f.Reason)
	// the same version is read
	cl, err = wsdl.NewClient(c, unchecked(env11(answer)))
	require.NoError(t, err)
	require.NoError(t, cl.Call(t.Context(), "add", map[string]any{"a": 40, "b": 2}, &out))
	assert.Equal(t, int32(42), out.Result)
}
