package main_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/internal/interop"
)

// callArgs turns a case's arguments into call's name=value arguments (a
// bare operation's paths start with its part element, as call's do).
func callArgs(cs interop.Case) []string {
	keys := make([]string, 0, len(cs.Args))
	for k := range cs.Args {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []string
	for _, k := range keys {
		switch v := cs.Args[k].(type) {
		case nil:
			out = append(out, k+":nil=")
		default:
			out = append(out, fmt.Sprintf("%s=%v", k, v))
		}
	}
	return out
}

var indexRE = regexp.MustCompile(`\[(\d+)\]`)

// callValues reads call's output (values, or a fault) in the harness's
// form.
func callValues(t *testing.T, res result) interop.Values {
	t.Helper()
	out := interop.Values{}
	for _, l := range lines(res.stdout) {
		if k, v, ok := strings.Cut(l, ": "); ok && !strings.Contains(k, " ") {
			switch k {
			case "fault":
				code, _, _ := strings.Cut(v, " ")
				if _, c11, ok := strings.Cut(v, "(1.1 "); ok {
					code = strings.TrimSuffix(c11, ")")
				}
				out["fault.code"] = code
			case "reason":
				out["fault.string"] = v
			}
			continue
		}
		k, v, ok := strings.Cut(l, " = ")
		require.True(t, ok, "line %q of\n%s", l, res)
		k = indexRE.ReplaceAllString(k, ".$1")
		k = strings.Replace(k, "detail.", "fault.detail.", 1)
		switch {
		case v == "(nil)":
			out[k] = interop.Nil
		case strings.HasPrefix(v, `"`):
			s, err := strconv.Unquote(v)
			require.NoError(t, err)
			out[k] = s
		default:
			out[k] = v
		}
	}
	return out
}

// TestCallContractPeers: soapwire call, given the contract, gets every
// case's values right from gSOAP's strict server of each contract (both
// versions) and spyne's (wrapped and bare), declared faults with their
// detail included (exit 1).
func TestCallContractPeers(t *testing.T) {
	servers := []struct {
		name string
		c    interop.Contract
	}{
		{"gSOAP", interop.Qualified}, {"gSOAP", interop.Bare}, {"gSOAP", interop.Encoded},
		{"spyne", interop.Qualified}, {"spyne", interop.Bare},
	}
	for _, s := range servers {
		t.Run(s.name+"/"+string(s.c), func(t *testing.T) {
			var srv *interop.Server
			if s.name == "spyne" {
				srv = interop.SpyneServer(t, s.c)
			} else {
				srv = interop.GSOAPServer(t, s.c, interop.Strict())
			}
			for _, v := range s.c.Versions() {
				for _, cs := range interop.Cases(s.c, v) {
					args := append([]string{"call", "--wsdl", s.c.Path(), "--version", v.String(), srv.Endpoint(v), cs.Op}, callArgs(cs)...)
					res := soapwire(t, args...)
					want := 0
					if cs.Want.Fault() {
						want = 1
					}
					require.Equal(t, want, res.code, "%s %s: %s", v, cs.Name, res)
					assert.Equal(t, cs.Want, callValues(t, res), "%s %s", v, cs.Name)
				}
			}
		})
	}
}

// TestCallElementForms: gSOAP reads an element in the wrong namespace as
// absent and answers zero. Code-first (--ns) call writes unqualified
// accessors and prints result = 0, the silent wrong answer of issue 20; led
// by the contract, it writes them qualified and gets 42.
func TestCallElementForms(t *testing.T) {
	srv := interop.GSOAPServer(t, interop.Qualified)
	res := soapwire(t, "call", "--ns", interop.Qualified.Namespace(), srv.URL, "add", "a=40", "b=2")
	require.Equal(t, 0, res.code, "%s", res)
	assert.Equal(t, []string{"result = 0"}, lines(res.stdout), "the judge: unqualified arguments are absent to gSOAP")

	res = soapwire(t, "call", "--wsdl", interop.Qualified.Path(), srv.URL, "add", "a=40", "b=2")
	require.Equal(t, 0, res.code, "%s", res)
	assert.Equal(t, []string{"result = 42"}, lines(res.stdout))
}

// TestCallWSDLURL: a ?wsdl URL given as the endpoint is read as the
// contract and the call goes to its port's address (not POSTed to the
// WSDL's URL, which would answer 405).
func TestCallWSDLURL(t *testing.T) {
	srv := interop.GSOAPServer(t, interop.Qualified)
	contract, err := os.ReadFile(interop.ContractAt(t, interop.Qualified, srv.URL))
	require.NoError(t, err)
	docs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || r.URL.RawQuery != "wsdl" {
			http.Error(w, "only GET ?wsdl here", http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Type", "text/xml")
		w.Write(contract)
	}))
	t.Cleanup(docs.Close)
	for _, v := range []string{"1.1", "1.2"} {
		res := soapwire(t, "call", "--version", v, docs.URL+"/calc?wsdl", "echoStruct",
			"person.name=Ada", "person.age=36", "person.address.street=s", "person.address.city=London", "person.tags.0=a", "person.note:nil=")
		require.Equal(t, 0, res.code, "%s", res)
		assert.Equal(t, []string{"return.name = Ada", "return.age = 36", "return.address.street = s", "return.address.city = London",
			"return.tags[0] = a", "return.note = (nil)"}, lines(res.stdout))
	}
}

// TestCallContractLocal: what call does around the call, against a
// server that answers a fixed reply: --show-request, --xml, --args files,
// the checks of the arguments and of the reply.
func TestCallContractLocal(t *testing.T) {
	wsdl := interop.Qualified.Path()
	good := replyServer(t, `<c:addResponse xmlns:c="urn:soapwire:interop:calc"><c:result>42</c:result></c:addResponse>`)
	unqualified := replyServer(t, `<c:addResponse xmlns:c="urn:soapwire:interop:calc"><result>42</result></c:addResponse>`)
	argsJSON := writeFile(t, "add.json", `{"a": 40, "b": 2}`)
	argsXML := writeFile(t, "add.xml", `<c:add xmlns:c="urn:soapwire:interop:calc"><c:a>40</c:a><c:b>2</c:b></c:add>`)
	badXML := writeFile(t, "bad.xml", `<c:add xmlns:c="urn:soapwire:interop:calc"><a>40</a></c:add>`)
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stdout []string
		stderr string
	}{
		{name: "show the request", args: []string{"--show-request", good, "add", "a=40", "b=2"}, stdout: []string{
			"SOAPAction: urn:soapwire:interop:calc#add",
			`<?xml version="1.0" encoding="utf-8"?>`,
			`<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/">`,
			`  <soap:Body>`,
			`    <ns0:add xmlns:ns0="urn:soapwire:interop:calc">`,
			`      <ns0:a>40</ns0:a>`,
			`      <ns0:b>2</ns0:b>`,
			`    </ns0:add>`,
			`  </soap:Body>`,
			`</soap:Envelope>`,
			"",
			"result = 42",
		}},
		{name: "the reply indented", args: []string{"--xml", good, "add", "a=40", "b=2"}, stdout: []string{
			`<?xml version="1.0" encoding="utf-8"?>`,
			`<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/">`,
			`  <soap:Body>`,
			`    <c:addResponse xmlns:s="http://schemas.xmlsoap.org/soap/envelope/" xmlns:c="urn:soapwire:interop:calc">`,
			`      <c:result>42</c:result>`,
			`    </c:addResponse>`,
			`  </soap:Body>`,
			`</soap:Envelope>`,
		}},
		{name: "arguments from JSON", args: []string{"--args", argsJSON, good, "add"}, stdout: []string{"result = 42"}},
		{name: "arguments from XML", args: []string{"--args", argsXML, "--json", good, "add"}, stdout: []string{`{`, `  "result": "42"`, `}`}},
		{name: "arguments from XML that does not fit", args: []string{"--args", badXML, good, "add"}, code: 2,
			stderr: "--args: the XML is not add's input: add: the required element {urn:soapwire:interop:calc}a is missing (found a: the schema wants it in the namespace urn:soapwire:interop:calc (qualified))"},
		{name: "both kinds of arguments", args: []string{"--args", argsJSON, good, "add", "a=1"}, code: 2, stderr: "give the arguments with --args or as name=value, not both"},
		{name: "a reply that does not fit", args: []string{unqualified, "add", "a=40", "b=2"}, code: 1,
			stderr: "soapwire call: the reply to add does not match the contract: addResponse: the required element {urn:soapwire:interop:calc}result is missing (found result: the schema wants it in the namespace urn:soapwire:interop:calc (qualified))"},
		{name: "a reply that does not fit, printed", args: []string{"--xml", unqualified, "add", "a=40", "b=2"}, code: 1,
			stderr: "the reply to add does not match the contract"},
		{name: "a lenient reading", args: []string{"--lenient", unqualified, "add", "a=40", "b=2"}, stdout: []string{"result = 42"}},
		{name: "a nested typo", args: []string{good, "echoStruct", "person.nmae=Ada"}, code: 2,
			stderr: "echoStruct/person: no element or attribute nmae in {urn:soapwire:interop:calc}Person (it has @id, address, age, name, nickname, note, tags); did you mean name?"},
		{name: "a nested value missing", args: []string{good, "echoStruct", "person.name=Ada"}, code: 2,
			stderr: "echoStruct/person: the required element age is missing (expected: address, age, name, nickname, note, tags)"},
		{name: "an index gap", args: []string{good, "echoStruct", "person.tags.1=x"}, code: 2, stderr: "arguments: person.tags.0 is missing (indexes start at 0, without gaps)"},
		{name: "no such port", args: []string{"--port", "CalcSoap13", good, "add"}, code: 2,
			stderr: "no port CalcSoap13 in the contract; it has CalcService/CalcSoap11 (SOAP 1.1), CalcService/CalcSoap12 (SOAP 1.2)"},
		{name: "a port by name", args: []string{"--port", "CalcService/CalcSoap11", good, "add", "a=1", "b=2"}, stdout: []string{"result = 42"}},
		{name: "--args with --ns", args: []string{"--ns", "urn:x", "--args", argsJSON, good, "add"}, code: 2, stderr: "--args, --wsdl and --port need a contract"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := soapwire(t, append([]string{"call", "--wsdl", wsdl}, tc.args...)...)
			require.Equal(t, tc.code, res.code, "%s", res)
			if tc.stdout != nil {
				assert.Equal(t, tc.stdout, lines(res.stdout), "%s", res)
			}
			assert.Contains(t, res.stderr, tc.stderr)
			if tc.code == 0 {
				assert.Empty(t, res.stderr)
			}
		})
	}
	// no URL: the call goes to the port's address
	res := soapwire(t, "call", "--wsdl", interop.ContractAt(t, interop.Qualified, good), "add", "a=1", "b=2")
	require.Equal(t, 0, res.code, "%s", res)
	assert.Equal(t, []string{"result = 42"}, lines(res.stdout))
}
