package rpc_test

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/rpc"
)

var (
	procedureNotPresent = xml.Name{Space: core.NamespaceRPC, Local: "ProcedureNotPresent"}
	badArguments        = xml.Name{Space: core.NamespaceRPC, Local: "BadArguments"}
)

// TestServiceRequests: one table of requests, run for every style and
// version; the wire form of the arguments is the same in all three styles
// (rpc/encoded adds xsi:type, which the literal styles accept too).
func TestServiceRequests(t *testing.T) {
	op := func(local, children string) string {
		return `<m:` + local + ` xmlns:m="urn:soapwire:echo">` + children + `</m:` + local + `>`
	}
	tests := []struct {
		name    string
		body    string
		want    []string // substrings of the reply, in this order
		code    core.Code
		sub     xml.Name // 1.2 subcode expected
		isFault bool
	}{
		{name: "echoString", body: op("echoString", `<s>hi</s>`),
			want: []string{`echoStringResponse xmlns:m="urn:soapwire:echo"`, `<return`, `>hi</return>`}},
		{name: "qualified accessors", body: op("echoString", `<m:s>hi</m:s>`),
			want: []string{`>hi</return>`}},
		{name: "xsi typed", body: op("add", `<a xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xsi:type="xsd:int">2</a><b>3</b>`),
			want: []string{"addResponse", ">5</return>"}},
		{name: "parameter order and modes", body: op("counter", `<value>1</value><step>2</step>`),
			want: []string{"counterResponse", ">30</return>", ">3</value>", ">6</doubled>"}},
		{name: "in params in any order by name", body: op("counter", `<step>2</step><value>1</value>`),
			want: []string{">30</return>"}},
		{name: "positional: names differ, count and types match", body: op("add", `<arg0>40</arg0><arg1>2</arg1>`),
			want: []string{">42</return>"}},
		{name: "struct", body: op("echoStruct", `<record><name>n</name><count>1</count><score>1.5</score><tags>x</tags><tags>y</tags></record>`),
			want: []string{"echoStructResponse", ">n</name>", ">1.5</score>", ">x<", ">y<"}},
		{name: "unknown operation", body: op("nosuch", ``), isFault: true, code: core.CodeSender, sub: procedureNotPresent},
		{name: "wrong namespace", body: `<x:add xmlns:x="urn:other"><a>1</a><b>2</b></x:add>`, isFault: true, code: core.CodeSender, sub: procedureNotPresent},
		{name: "unparsable argument", body: op("add", `<a>abc</a><b>1</b>`), isFault: true, code: core.CodeSender, sub: badArguments},
		{name: "missing argument", body: op("add", `<a>1</a>`), isFault: true, code: core.CodeSender, sub: badArguments},
		{name: "positional with a wrong type", body: op("add", `<x>1</x><y>zz</y>`), isFault: true, code: core.CodeSender, sub: badArguments},
		{name: "too many arguments", body: op("add", `<a>1</a><b>2</b><c>3</c>`), isFault: true, code: core.CodeSender, sub: badArguments},
		{name: "structure for an int", body: op("add", `<a><q>1</q></a><b>2</b>`), isFault: true, code: core.CodeSender, sub: badArguments},
		{name: "unknown encodingStyle", body: `<m:add xmlns:m="urn:soapwire:echo" xmlns:e="%ENV%" e:encodingStyle="urn:x-private-encoding"><a>1</a><b>2</b></m:add>`,
			isFault: true, code: core.CodeDataEncodingUnknown},
		{name: "Go error hidden", body: op("broken", `<s>x</s>`), isFault: true, code: core.CodeReceiver},
		{name: "fault with detail passed through", body: op("fail", `<reason>closed</reason>`), isFault: true, code: core.CodeSender,
			want: []string{"closed", `<e:problem xmlns:e="urn:soapwire:errors"><e:code>42</e:code></e:problem>`}},
	}
	for _, style := range styles {
		for _, v := range versions {
			for _, tt := range tests {
				t.Run(fmt.Sprintf("%s/%s/%s", style, v, tt.name), func(t *testing.T) {
					svc := newEchoService(rpc.WithStyle(style))
					body := strings.ReplaceAll(tt.body, "%ENV%", v.Namespace())
					out, f := serveRaw(t, svc, envelope(v, body))
					if !tt.isFault {
						require.Nil(t, f, "fault: %v", f)
						assertInOrder(t, out, tt.want)
						return
					}
					require.NotNil(t, f, "reply: %s", out)
					assert.Equal(t, tt.code, f.Code, "%v", f)
					if tt.sub.Local != "" {
						assert.True(t, f.HasSubcode(tt.sub), "subcodes %v", f.Subcodes)
						if v == core.V12 {
							assert.Contains(t, out, tt.sub.Local)
						}
					}
					assert.NotContains(t, out, "hunter2")
					assertInOrder(t, out, tt.want)
					reread, err := core.ReadMessage(strings.NewReader(out), core.Limits{})
					require.NoError(t, err)
					rf := reread.Fault()
					require.NotNil(t, rf)
					if v == core.V12 {
						assert.Equal(t, tt.code, rf.Code)
					}
				})
			}
		}
	}
}

func assertInOrder(t *testing.T, s string, parts []string) {
	t.Helper()
	rest := s
	for _, p := range parts {
		i := strings.Index(rest, p)
		if !assert.GreaterOrEqual(t, i, 0, "%q not found (in order) in %s", p, s) {
			return
		}
		rest = rest[i+len(p):]
	}
}

// TestServiceEncodedResponse: rpc/encoded answers carry xsi:type,
// encodingStyle and SOAP-encoded arrays; the literal styles carry none.
func TestServiceEncodedResponse(t *testing.T) {
	body := `<m:echoStruct xmlns:m="urn:soapwire:echo"><record><name>n</name><count>1</count><score>2</score><tags>a</tags></record></m:echoStruct>`
	tests := []struct {
		style  rpc.Style
		v      core.Version
		has    []string
		hasNot []string
	}{
		{rpc.RPCEncoded, core.V11, []string{`encodingStyle="http://schemas.xmlsoap.org/soap/encoding/"`, `xsi:type`, `arrayType=`}, nil},
		{rpc.RPCEncoded, core.V12, []string{`encodingStyle="http://www.w3.org/2003/05/soap-encoding"`, `xsi:type`, `itemType=`}, nil},
		{rpc.RPCLiteral, core.V11, []string{`<tags>a</tags>`}, []string{"xsi:type", "encodingStyle", "<item>"}},
		{rpc.DocumentLiteral, core.V12, []string{`<tags>a</tags>`}, []string{"xsi:type", "encodingStyle", "<item>"}},
	}
	for _, tt := range tests {
		t.Run(tt.style.String()+"/"+tt.v.String(), func(t *testing.T) {
			out, f := serveRaw(t, newEchoService(rpc.WithStyle(tt.style)), envelope(tt.v, body))
			require.Nil(t, f)
			for _, s := range tt.has {
				assert.Contains(t, out, s)
			}
			for _, s := range tt.hasNot {
				assert.NotContains(t, out, s)
			}
		})
	}
}

// TestServiceEncodingFaults: a reference to a missing id and an id carried
// twice are Sender faults with the SOAP 1.2 encoding subcodes, on the wire
// in 1.2 (Code/Subcode) and in 1.1 as the qualified faultcode
// (enc:MissingID, WS-I BP R1004), read back as the same subcode.
func TestServiceEncodingFaults(t *testing.T) {
	const enc = ` xmlns:enc="http://www.w3.org/2003/05/soap-encoding"`
	tests := []struct {
		name string
		v    core.Version
		body string
		sub  string
	}{
		{"missing id 1.1", core.V11, `<m:echoString xmlns:m="urn:soapwire:echo"><s href="#nowhere"/></m:echoString>`, "MissingID"},
		{"missing id 1.2", core.V12, `<m:echoString xmlns:m="urn:soapwire:echo"` + enc + `><s enc:ref="nowhere"/></m:echoString>`, "MissingID"},
		{"duplicate id 1.1", core.V11, `<m:echoString xmlns:m="urn:soapwire:echo"><s href="#a"/></m:echoString><v id="a">x</v><w id="a">y</w>`, "DuplicateID"},
		{"duplicate id 1.2", core.V12, `<m:echoString xmlns:m="urn:soapwire:echo"` + enc + `><s enc:id="a">x</s><t enc:id="a">y</t></m:echoString>`, "DuplicateID"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, f := serveRaw(t, newEchoService(rpc.WithStyle(rpc.RPCEncoded)), envelope(tt.v, tt.body))
			require.NotNil(t, f)
			assert.Equal(t, core.CodeSender, f.Code)
			sub := xml.Name{Space: core.EncodingStyleV12, Local: tt.sub}
			assert.True(t, f.HasSubcode(sub), "%v", f)
			back, err := core.ReadMessage(strings.NewReader(out), core.Limits{})
			require.NoError(t, err)
			rf := back.Fault()
			require.NotNil(t, rf)
			assert.Equal(t, core.CodeSender, rf.Code)
			assert.True(t, rf.HasSubcode(sub), "on the wire: %s", out)
			if tt.v == core.V12 {
				assert.Contains(t, out, "<soap:Subcode><soap:Value")
			} else {
				assert.Contains(t, out, `<faultcode xmlns:enc="`+core.EncodingStyleV12+`">enc:`+tt.sub+`</faultcode>`)
			}
		})
	}
}

func TestRegisterPanics(t *testing.T) {
	type inOutOnlyReq struct {
		X int `soap:"x,inout"`
	}
	type plainResp struct {
		Y int
	}
	type outReq struct {
		X int `soap:"x,out"`
	}
	type badOpt struct {
		X int `soap:"x,sideways"`
	}
	tests := []struct {
		name string
		reg  func(s *rpc.Service)
	}{
		{"inout without a partner", func(s *rpc.Service) {
			rpc.Register(s, "a", func(_ context.Context, _ *inOutOnlyReq) (*plainResp, error) { return nil, nil })
		}},
		{"out field in request", func(s *rpc.Service) {
			rpc.Register(s, "a", func(_ context.Context, _ *outReq) (*plainResp, error) { return nil, nil })
		}},
		{"unknown tag option", func(s *rpc.Service) {
			rpc.Register(s, "a", func(_ context.Context, _ *badOpt) (*plainResp, error) { return nil, nil })
		}},
		{"not a struct", func(s *rpc.Service) {
			rpc.Register(s, "a", func(_ context.Context, _ *int) (*plainResp, error) { return nil, nil })
		}},
		{"duplicate", func(s *rpc.Service) {
			rpc.Register(s, "echoString", func(_ context.Context, _ *EchoStringReq) (*EchoStringResp, error) { return nil, nil })
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Panics(t, func() { tt.reg(newEchoService()) })
		})
	}
}

// TestRPCResult: with WithRPCResult a SOAP 1.2 rpc/encoded response names
// its return value in an rpc:result accessor first; SOAP 1.1, the literal
// styles and services without the option write none, and the client reads
// the reply either way.
func TestRPCResult(t *testing.T) {
	const result = `<p:result xmlns:p="http://www.w3.org/2003/05/soap-rpc" xsi:type="xsd:QName" xmlns="">return</p:result>`
	body := `<m:add xmlns:m="urn:soapwire:echo"><a>1</a><b>2</b></m:add>`
	tests := []struct {
		style rpc.Style
		v     core.Version
		on    bool
		want  bool
	}{
		{rpc.RPCEncoded, core.V12, true, true},
		{rpc.RPCEncoded, core.V12, false, false},
		{rpc.RPCEncoded, core.V11, true, false},
		{rpc.RPCLiteral, core.V12, true, false},
		{rpc.DocumentLiteral, core.V12, true, false},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%s/%v", tt.style, tt.v, tt.on), func(t *testing.T) {
			svc := newEchoService(rpc.WithStyle(tt.style), rpc.WithRPCResult(tt.on))
			out, f := serveRaw(t, svc, envelope(tt.v, body))
			require.Nil(t, f)
			if tt.want {
				assertInOrder(t, out, []string{"addResponse", result, `<return xsi:type="xsd:int">3</return>`})
			} else {
				assert.NotContains(t, out, "result")
			}
			c := rpc.NewClient(loopback(t, svc), echoNS, rpc.WithStyle(tt.style), rpc.WithVersion(tt.v))
			got, err := rpc.Call[AddResp](t.Context(), c, "add", AddReq{A: 40, B: 2})
			require.NoError(t, err)
			assert.Equal(t, int32(42), got.Return)
		})
	}
}

// TestServiceLogs: every refusal and failure is logged through the
// injected logger; a Go error's text is logged, never sent.
func TestServiceLogs(t *testing.T) {
	var logs bytes.Buffer
	svc := newEchoService(rpc.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	op := func(local, children string) string {
		return envelope(core.V12, `<m:`+local+` xmlns:m="urn:soapwire:echo">`+children+`</m:`+local+`>`)
	}
	tests := []struct {
		name, req, log string
	}{
		{"no such operation", op("nosuch", ""), `level=INFO msg="rpc: no such operation" service=EchoService element={urn:soapwire:echo}nosuch`},
		{"bad arguments", op("add", "<a>x</a><b>1</b>"), `level=INFO msg="rpc: request refused" service=EchoService operation=add err="soap fault: Sender/BadArguments`},
		{"fault returned", op("fail", "<reason>closed</reason>"), `level=INFO msg="rpc: operation returned a fault" service=EchoService operation=fail fault="soap fault: Sender/NoAccount: closed"`},
		{"Go error", op("broken", "<s>x</s>"), `level=ERROR msg="rpc: operation failed" service=EchoService operation=broken err="database password is hunter2"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			logs.Reset()
			out, f := serveRaw(t, svc, tt.req)
			require.NotNil(t, f)
			assert.Contains(t, logs.String(), tt.log)
			assert.NotContains(t, out, "hunter2")
		})
	}
	logs.Reset()
	_, f := serveRaw(t, svc, op("add", "<a>1</a><b>2</b>"))
	require.Nil(t, f)
	assert.Empty(t, logs.String(), "a good call logs nothing")
}

// TestServiceArraySizes: a declared array size is never allocated: an
// absurd size is a BadArguments fault, a size above what is sent reads the
// items sent, both with little memory.
func TestServiceArraySizes(t *testing.T) {
	const enc11 = ` xmlns:se="http://schemas.xmlsoap.org/soap/encoding/" xmlns:xsd="http://www.w3.org/2001/XMLSchema"`
	const enc12 = ` xmlns:e="http://www.w3.org/2003/05/soap-encoding" xmlns:xsd="http://www.w3.org/2001/XMLSchema"`
	sum := func(attrs, decls string) string {
		return `<m:sum xmlns:m="urn:soapwire:echo"` + decls + `><values ` + attrs + `><i>1</i><i>2</i></values></m:sum>`
	}
	tests := []struct {
		name string
		v    core.Version
		body string
		want string // the sum, or "" for a BadArguments fault
	}{
		{"1.1 absurd size", core.V11, sum(`se:arrayType="xsd:int[2147483647]"`, enc11), ""},
		{"1.1 absurd product", core.V11, sum(`se:arrayType="xsd:int[65536,65536]"`, enc11), ""},
		{"1.2 absurd size", core.V12, sum(`e:itemType="xsd:int" e:arraySize="2147483647"`, enc12), ""},
		{"1.1 more declared than sent", core.V11, sum(`se:arrayType="xsd:int[1000000]"`, enc11), "3"},
		{"1.2 more declared than sent", core.V12, sum(`e:itemType="xsd:int" e:arraySize="1000000"`, enc12), "3"},
		{"1.1 fewer declared than sent", core.V11, sum(`se:arrayType="xsd:int[1]"`, enc11), ""},
	}
	svc := newEchoService(rpc.WithStyle(rpc.RPCEncoded))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out string
			var f *core.Fault
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			out, f = serveRaw(t, svc, envelope(tt.v, tt.body))
			runtime.ReadMemStats(&after)
			assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(1<<20), "bytes allocated")
			if tt.want == "" {
				require.NotNil(t, f, out)
				assert.True(t, f.HasSubcode(badArguments), "%v", f)
				return
			}
			require.Nil(t, f, "%v", f)
			assert.Contains(t, out, ">"+tt.want+"</return>")
		})
	}
}
