package main_test

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soaphttp "github.com/soapwire/soapwire/bindings/http"
	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/rpc"
)

const calcNS = "urn:example:calc"

type (
	addReq struct {
		A int32 `soap:"a"`
		B int32 `soap:"b"`
	}
	addResp struct {
		Sum int32 `soap:"return"`
	}
	divideReq struct {
		Dividend int32 `soap:"dividend"`
		Divisor  int32 `soap:"divisor"`
	}
	divideResp struct {
		Quotient  int32 `soap:"return"`
		Remainder int32 `soap:"remainder"`
	}
	splitReq struct {
		Text string `soap:"text"`
	}
	splitResp struct {
		Words []string `soap:"return"`
	}
	rangeReq struct {
		Lo int32 `soap:"lo"`
		Hi int32 `soap:"hi"`
	}
	span struct {
		Lo    int32  `soap:"lo"`
		Hi    int32  `soap:"hi"`
		Label string `soap:"label"`
	}
	rangeResp struct {
		Span span `soap:"return"`
	}
)

// calc is the service the call tests call.
func calc(style rpc.Style) *rpc.Service {
	svc := rpc.NewService(calcNS, "Calc", rpc.WithStyle(style))
	rpc.Register(svc, "add", func(_ context.Context, r *addReq) (*addResp, error) {
		return &addResp{Sum: r.A + r.B}, nil
	})
	rpc.Register(svc, "divide", func(_ context.Context, r *divideReq) (*divideResp, error) {
		if r.Divisor == 0 {
			return nil, &core.Fault{Code: core.CodeSender, Subcodes: []xml.Name{{Space: calcNS, Local: "DivisionByZero"}},
				Reason: "division by zero", Detail: []byte(`<c:dividend xmlns:c="urn:example:calc">1</c:dividend>`)}
		}
		return &divideResp{Quotient: r.Dividend / r.Divisor, Remainder: r.Dividend % r.Divisor}, nil
	})
	rpc.Register(svc, "split", func(_ context.Context, r *splitReq) (*splitResp, error) {
		return &splitResp{Words: strings.Fields(r.Text)}, nil
	})
	rpc.Register(svc, "span", func(_ context.Context, r *rangeReq) (*rangeResp, error) {
		return &rangeResp{Span: span{Lo: r.Lo, Hi: r.Hi, Label: "two\nlines"}}, nil
	})
	return svc
}

// startCalc serves calc over HTTP: document/literal at /calc, rpc/literal
// at /rpc, rpc/encoded at /enc.
func startCalc(t *testing.T) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("/calc", soaphttp.NewHandler(calc(rpc.DocumentLiteral)))
	mux.Handle("/rpc", soaphttp.NewHandler(calc(rpc.RPCLiteral)))
	mux.Handle("/enc", soaphttp.NewHandler(calc(rpc.RPCEncoded)))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestCall calls the service over HTTP in each style and version, led by
// its WSDL or by flags, and checks the printed results and faults.
func TestCall(t *testing.T) {
	base := startCalc(t)
	wsdl := writeFile(t, "calc.wsdl", fetch(t, base+"/enc?wsdl"))
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stdout []string // lines, in order
		stderr string
	}{
		{name: "document/literal from the WSDL", args: []string{base + "/calc", "add", "a=2", "b=40"}, stdout: []string{"return = 42"}},
		{name: "rpc/literal from the WSDL, 1.2", args: []string{"--version", "1.2", base + "/rpc", "add", "b=40", "a=2"}, stdout: []string{"return = 42"}},
		{name: "rpc/encoded from the WSDL", args: []string{base + "/enc", "add", "a=2", "b=40"}, stdout: []string{"return = 42"}},
		{name: "rpc/encoded from a WSDL file", args: []string{"--wsdl", wsdl, base + "/enc", "divide", "dividend=17", "divisor=5"}, stdout: []string{"return = 3", "remainder = 2"}},
		{name: "encoded by flags, typed arguments", args: []string{"--ns", calcNS, "--style", "encoded", "--version", "1.2", base + "/enc", "add", "a:int=-2", "b:int=40"}, stdout: []string{"return = 38"}},
		{name: "literal by flags", args: []string{"--ns", calcNS, base + "/calc", "add", "a=1", "b=2"}, stdout: []string{"return = 3"}},
		{name: "a list", args: []string{base + "/calc", "split", "text=to be or not"}, stdout: []string{"return[0] = to", "return[1] = be", "return[2] = or", "return[3] = not"}},
		{name: "a structure", args: []string{base + "/enc", "span", "lo=1", "hi=9"}, stdout: []string{"return.lo = 1", "return.hi = 9", `return.label = "two\nlines"`}},
		{
			name: "a fault", args: []string{base + "/calc", "divide", "dividend=1", "divisor=0"}, code: 1,
			stdout: []string{"fault: Sender (1.1 Client)", "subcode: {urn:example:calc}DivisionByZero", "reason: division by zero",
				`detail: <c:dividend xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" xmlns:c="urn:example:calc">1</c:dividend>`},
			stderr: "soapwire call: the service answered with a Sender fault: division by zero",
		},
		{
			name: "a fault in 1.2", args: []string{"--version", "1.2", base + "/calc", "divide", "dividend=1", "divisor=0"}, code: 1,
			stdout: []string{"fault: Sender", "subcode: {urn:example:calc}DivisionByZero", "reason: division by zero",
				`detail: <c:dividend xmlns:soap="http://www.w3.org/2003/05/soap-envelope" xmlns:c="urn:example:calc">1</c:dividend>`},
		},
		{
			name: "no such operation", args: []string{"--ns", calcNS, "--version", "1.2", base + "/calc", "multiply", "a=6", "b=7"}, code: 1,
			stdout: []string{"fault: Sender", "subcode: {http://www.w3.org/2003/05/soap-rpc}ProcedureNotPresent", "reason: no operation {urn:example:calc}multiply"},
		},
		{
			name: "bad arguments", args: []string{"--ns", calcNS, "--version", "1.2", base + "/calc", "add", "a=two", "b=40"}, code: 1,
			stdout: []string{"fault: Sender", "subcode: {http://www.w3.org/2003/05/soap-rpc}BadArguments",
				`reason: bad arguments: soapenc: BadValue at /add/a: "two" is not a valid int32`},
		},
		{name: "not in the WSDL", args: []string{base + "/calc", "multiply", "a=6"}, code: 2, stderr: `the port has no operation "multiply" (it has add, divide, span, split)`},
		{name: "a typo in the operation", args: []string{base + "/calc", "ad", "a=6"}, code: 2, stderr: `the port has no operation "ad" (it has add, divide, span, split); did you mean add?`},
		{name: "not a number for the WSDL's int", args: []string{base + "/calc", "add", "a=two", "b=40"}, code: 2, stderr: `add/a: "two" is not a valid xsd:int: not an integer`},
		{name: "an unknown argument", args: []string{base + "/calc", "add", "a=1", "bb=40"}, code: 2, stderr: `add: no element or attribute bb (it has a, b); did you mean b?`},
		{name: "a missing argument", args: []string{base + "/calc", "add", "a=1"}, code: 2, stderr: `add: the required element b is missing (expected: a, b)`},
		{name: "a type given that the value is not", args: []string{base + "/calc", "add", "a:int=x", "b=40"}, code: 2, stderr: `argument a: "x" is not an xsd:int`},
		{name: "no WSDL there", args: []string{base + "/nothing", "add", "a=1"}, code: 1,
			stderr: "/nothing?wsdl: 404 Not Found (give --wsdl FILE|URL, or --ns NAMESPACE to call without a contract)"},
		{name: "--style with a contract", args: []string{"--style", "rpc", base + "/calc", "add"}, code: 2, stderr: "--style is for calls without a contract"},
		{name: "no URL", args: []string{}, code: 2, stderr: "want URL OPERATION"},
		{name: "no operation", args: []string{base + "/calc"}, code: 2, stderr: "want URL OPERATION"},
		{name: "operation not a name", args: []string{base + "/calc", "1add"}, code: 2, stderr: `operation "1add" is not an XML name`},
		{name: "argument without =", args: []string{base + "/calc", "add", "a"}, code: 2, stderr: `"a": want key=value or key:type=value`},
		{name: "unknown type", args: []string{base + "/calc", "add", "a:complex=1"}, code: 2, stderr: `unknown type "complex"`},
		{name: "argument twice", args: []string{base + "/calc", "add", "a=1", "a=2"}, code: 2, stderr: "argument a given twice"},
		{name: "bad style", args: []string{"--style", "soap", base + "/calc", "add"}, code: 2, stderr: `--style "soap": want document, rpc or encoded`},
		{name: "nats without --ns", args: []string{"nats:calc", "add"}, code: 2, stderr: "--ns or --wsdl is required for a nats: URL"},
		{name: "other scheme", args: []string{"ftp://x/y", "add"}, code: 2, stderr: "want http://, https:// or nats:"},
		{name: "nothing listening", args: []string{"--ns", calcNS, "http://127.0.0.1:1/calc", "add"}, code: 1, stderr: "connection refused"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := soapwire(t, append([]string{"call"}, tc.args...)...)
			require.Equal(t, tc.code, res.code, "%s", res)
			assert.Equal(t, tc.stdout, lines(res.stdout), "%s", res)
			assert.Contains(t, res.stderr, tc.stderr)
			if tc.code == 0 {
				assert.Empty(t, res.stderr)
			}
		})
	}
}

// TestCallOutputs: --xml prints the reply envelope, --json its values.
func TestCallOutputs(t *testing.T) {
	base := startCalc(t)
	res := soapwire(t, "call", "--xml", "--version", "1.2", base+"/calc", "add", "a=2", "b=40")
	require.Equal(t, 0, res.code, "%s", res)
	rep := inspectOf(t, res.stdout)
	assert.Equal(t, "1.2", field(t, rep, "version"))
	assert.Equal(t, "{urn:example:calc}addResponse", field(t, rep, "body"))

	res = soapwire(t, "call", "--json", base+"/calc", "divide", "dividend=17", "divisor=5")
	require.Equal(t, 0, res.code, "%s", res)
	var v map[string]string
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &v), res.stdout)
	assert.Equal(t, map[string]string{"return": "3", "remainder": "2"}, v)

	res = soapwire(t, "call", "--json", base+"/calc", "divide", "dividend=17", "divisor=0")
	require.Equal(t, 1, res.code, "%s", res)
	var f struct {
		Fault struct {
			Code, Reason string
		}
	}
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &f), res.stdout)
	assert.Equal(t, "division by zero", f.Fault.Reason)
}

// TestCallNATS calls the service over NATS request-reply.
func TestCallNATS(t *testing.T) {
	ns := startNATS(t)
	ns.subscribe(t, "calc", calc(rpc.DocumentLiteral))
	res := soapwire(t, "call", "--nats", ns.srv.URL(), "--ns", calcNS, "nats:calc", "divide", "dividend=17", "divisor=5")
	require.Equal(t, 0, res.code, "%s", res)
	assert.Equal(t, []string{"return = 3", "remainder = 2"}, lines(res.stdout))

	res = invocation{args: []string{"call", "--version", "1.2", "--ns", calcNS, "nats:calc", "divide", "dividend=1", "divisor=0"},
		env: []string{"SOAPWIRE_NATS_URL=" + ns.srv.URL()}}.run(t)
	require.Equal(t, 1, res.code, "%s", res)
	assert.Equal(t, "division by zero", field(t, res.stdout, "reason"))

	// led by a contract over NATS: the WSDL the HTTP service describes itself with
	wsdl := writeFile(t, "calc.wsdl", fetch(t, startCalc(t)+"/calc?wsdl"))
	res = soapwire(t, "call", "--nats", ns.srv.URL(), "--wsdl", wsdl, "nats:calc", "divide", "dividend=17", "divisor=5")
	require.Equal(t, 0, res.code, "%s", res)
	assert.Equal(t, []string{"return = 3", "remainder = 2"}, lines(res.stdout))

	res = soapwire(t, "call", "--nats", ns.srv.URL(), "--ns", calcNS, "nats:nobody.home", "add")
	require.Equal(t, 1, res.code, "%s", res)
	assert.Contains(t, res.stderr, "no responders")
}

// lines splits output into lines (nil for none).
func lines(s string) []string {
	var out []string
	for l := range strings.Lines(s) {
		out = append(out, strings.TrimRight(l, "\n"))
	}
	return out
}

// fetch GETs url.
func fetch(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var b strings.Builder
	_, err = io.Copy(&b, resp.Body)
	require.NoError(t, err)
	return b.String()
}

// inspectOf runs soapwire inspect on an envelope and returns its report.
func inspectOf(t *testing.T, env string) string {
	t.Helper()
	res := invocation{args: []string{"inspect"}, stdin: strings.NewReader(env)}.run(t)
	require.Equal(t, 0, res.code, "%s", res)
	return res.stdout
}
