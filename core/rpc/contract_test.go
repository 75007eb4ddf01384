package rpc_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/rpc"
	"github.com/soapwire/soapwire/core/wsdl"
	"github.com/soapwire/soapwire/core/xsd"
	"github.com/soapwire/soapwire/internal/interop"
)

const qualifiedNS = "urn:soapwire:interop:calc"

// loadInterop reads one of internal/interop's contracts.
func loadInterop(t testing.TB, c interop.Contract) *wsdl.Contract {
	t.Helper()
	ct, err := wsdl.Load(t.Context(), xsd.FSLoader(os.DirFS(filepath.Dir(c.Path()))), filepath.Base(c.Path()))
	require.NoError(t, err)
	return ct
}

// Go types of calc-qualified.wsdl for a bound Service.
type qAddress struct {
	Country *string `xml:"country,attr"`
	Street  string  `xml:"street"`
	City    string  `xml:"city"`
}

type qPerson struct {
	ID       *int32   `xml:"id,attr"`
	Name     string   `xml:"name"`
	Age      int32    `xml:"age"`
	Address  qAddress `xml:"address"`
	Tags     []string `xml:"tags"`
	Nickname *string  `xml:"nickname"`
	Note     *string  `xml:"note"`
}

type qEchoStruct struct {
	Person qPerson `xml:"person"`
}

type qEchoStructResponse struct {
	Return qPerson `xml:"return"`
}

type qEchoString struct {
	S string `xml:"s"`
}

type qEchoStringResponse struct {
	Return string `xml:"return"`
}

type qFail struct {
	Code string `xml:"code"`
}

type qFailResponse struct{}

type qCalcFault struct {
	Code    string `xml:"code"`
	Message string `xml:"message"`
}

// boundCalc is a Service bound to calc-qualified.wsdl.
func boundCalc(t testing.TB, opts ...rpc.ServiceOption) *rpc.Service {
	t.Helper()
	svc := rpc.NewService(qualifiedNS, "Calc", append([]rpc.ServiceOption{rpc.WithContract(loadInterop(t, interop.Qualified), "")}, opts...)...)
	rpc.Register(svc, "add", func(_ context.Context, r *AddIn) (*AddOut, error) { return &AddOut{Result: r.A + r.B}, nil })
	rpc.Register(svc, "echoString", func(_ context.Context, r *qEchoString) (*qEchoStringResponse, error) {
		if r.S == "bad detail" {
			return nil, &rpc.DetailFault{Reason: "x", Detail: Token{Value: "v"}}
		}
		return &qEchoStringResponse{Return: r.S}, nil
	})
	rpc.Register(svc, "echoStruct", func(_ context.Context, r *qEchoStruct) (*qEchoStructResponse, error) {
		return &qEchoStructResponse{Return: r.Person}, nil
	})
	rpc.Register(svc, "fail", func(_ context.Context, r *qFail) (*qFailResponse, error) {
		return nil, &rpc.DetailFault{Reason: "calc refused: " + r.Code, Detail: qCalcFault{Code: r.Code, Message: "m"}}
	})
	return svc
}

// TestBoundRoundTrip: a Client and a Service bound to the same contract
// agree on every operation in both versions: attributes, a nil note, the
// declared fault with its detail; what goes on the wire is the contract's
// form (qualified children, attributes unqualified).
func TestBoundRoundTrip(t *testing.T) {
	ct := loadInterop(t, interop.Qualified)
	id, gb := int32(1815), "GB"
	ada := qPerson{ID: &id, Name: "Ada", Age: 36, Address: qAddress{Country: &gb, City: "London"}, Tags: []string{"a", "b"}}
	for _, v := range versions {
		t.Run(v.String(), func(t *testing.T) {
			rec := &recording{rt: loopback(t, boundCalc(t))}
			c := rpc.NewClient(rec, qualifiedNS, rpc.WithContract(ct, ""), rpc.WithVersion(v))
			got, err := rpc.Call[qEchoStructResponse](t.Context(), c, "echoStruct", qEchoStruct{Person: ada})
			require.NoError(t, err)
			assert.Equal(t, ada, got.Return)
			assert.Contains(t, rec.req, `<ns0:person id="1815">`)
			assert.Contains(t, rec.reply, `<ns0:address country="GB"><ns0:street></ns0:street><ns0:city>London</ns0:city></ns0:address>`)
			assert.Regexp(t, `<ns0:note [^>]*nil="true"`, rec.reply)
			assert.Contains(t, rec.req, map[core.Version]string{core.V11: `text/xml`, core.V12: `soap-envelope`}[v][:0])

			sum, err := rpc.Call[AddOut](t.Context(), c, "add", AddIn{A: 40, B: 2})
			require.NoError(t, err)
			assert.Equal(t, int32(42), sum.Result)

			_, err = rpc.Call[qFailResponse](t.Context(), c, "fail", qFail{Code: "E42"})
			var fe *wsdl.FaultError
			require.ErrorAs(t, err, &fe)
			var detail qCalcFault
			require.NoError(t, fe.DecodeDetail(&detail))
			assert.Equal(t, qCalcFault{Code: "E42", Message: "m"}, detail)
			assert.Equal(t, "calc refused: E42", fe.Fault.Reason)
		})
	}
}

// TestBoundRegisterRefuses: Register on a bound Service refuses, naming
// the mismatch, a function whose types do not fit the contract's
// operation.
func TestBoundRegisterRefuses(t *testing.T) {
	svc := func() *rpc.Service {
		return rpc.NewService(qualifiedNS, "Calc", rpc.WithContract(loadInterop(t, interop.Qualified), ""))
	}
	type aOnly struct {
		A int32 `xml:"a"`
	}
	type abc struct {
		A int32 `xml:"a"`
		B int32 `xml:"b"`
		C int32 `xml:"c"`
	}
	type abBool struct {
		A bool  `xml:"a"`
		B int32 `xml:"b"`
	}
	type wrongResult struct {
		Sum int32 `xml:"sum"`
	}
	type tagsOne struct {
		Name    string   `xml:"name"`
		Age     int32    `xml:"age"`
		Address qAddress `xml:"address"`
		Tags    string   `xml:"tags"`
		Note    *string  `xml:"note"`
	}
	type noteString struct {
		Name    string   `xml:"name"`
		Age     int32    `xml:"age"`
		Address qAddress `xml:"address"`
		Note    string   `xml:"note"`
	}
	type personInt struct {
		Person int `xml:"person"`
	}
	type sStruct struct {
		S qAddress `xml:"s"`
	}
	type withHeader struct {
		A     int32  `xml:"a"`
		B     int32  `xml:"b"`
		Token string `xml:"Token,header"`
	}
	type countryInt struct {
		Country *bool  `xml:"country,attr"`
		Street  string `xml:"street"`
		City    string `xml:"city"`
	}
	type personBadAttr struct {
		Name    string     `xml:"name"`
		Age     int32      `xml:"age"`
		Address countryInt `xml:"address"`
		Note    *string    `xml:"note"`
	}
	tests := []struct {
		name     string
		register func(s *rpc.Service)
		want     string
	}{
		{"no such operation", func(s *rpc.Service) {
			rpc.Register(s, "mul", func(context.Context, *AddIn) (*AddOut, error) { return nil, nil })
		}, "the contract's port CalcSoap11 has no operation mul (it has add, echoString, echoStruct, fail)"},
		{"a required element without a field", func(s *rpc.Service) {
			rpc.Register(s, "add", func(context.Context, *aOnly) (*AddOut, error) { return nil, nil })
		}, "the input of add (port CalcSoap11): add: the required element b has no Go field in rpc_test.aOnly"},
		{"a field that matches nothing", func(s *rpc.Service) {
			rpc.Register(s, "add", func(context.Context, *abc) (*AddOut, error) { return nil, nil })
		}, "add: the Go field C of rpc_test.abc matches nothing in an anonymous type (it has a, b)"},
		{"a simple type the Go type cannot hold", func(s *rpc.Service) {
			rpc.Register(s, "add", func(context.Context, *abBool) (*AddOut, error) { return nil, nil })
		}, "add/a: the Go type bool cannot hold the type int"},
		{"the output", func(s *rpc.Service) {
			rpc.Register(s, "add", func(context.Context, *AddIn) (*wrongResult, error) { return nil, nil })
		}, "the output of add (port CalcSoap11): addResponse: the required element result has no Go field"},
		{"a list in a field that is not a slice", func(s *rpc.Service) {
			rpc.Register(s, "echoStruct", func(context.Context, *struct {
				Person tagsOne `xml:"person"`
			}) (*qEchoStructResponse, error) {
				return nil, nil
			})
		}, "echoStruct/person/tags: the element tags occurs up to unbounded times: its Go field (string) must be a slice"},
		{"required and nillable in a field that cannot be nil", func(s *rpc.Service) {
			rpc.Register(s, "echoStruct", func(context.Context, *struct {
				Person noteString `xml:"person"`
			}) (*qEchoStructResponse, error) {
				return nil, nil
			})
		}, "echoStruct/person/note: the element note is required and nillable: its Go field (string) cannot be nil (use a pointer or xsd.Nillable)"},
		{"a complex type in an int", func(s *rpc.Service) {
			rpc.Register(s, "echoStruct", func(context.Context, *personInt) (*qEchoStructResponse, error) { return nil, nil })
		}, "echoStruct/person: the type Person is a complex type (element-only): its Go type (int) must be a struct"},
		{"a struct for a string", func(s *rpc.Service) {
			rpc.Register(s, "echoString", func(context.Context, *sStruct) (*qEchoStringResponse, error) { return nil, nil })
		}, "echoString/s: the Go type rpc_test.qAddress cannot hold the type string"},
		{"an attribute the Go type cannot hold", func(s *rpc.Service) {
			rpc.Register(s, "echoStruct", func(context.Context, *struct {
				Person personBadAttr `xml:"person"`
			}) (*qEchoStructResponse, error) {
				return nil, nil
			})
		}, "echoStruct/person/address/@country: the Go type bool cannot hold the type string"},
		{"a header the contract does not have", func(s *rpc.Service) {
			rpc.Register(s, "add", func(context.Context, *withHeader) (*AddOut, error) { return nil, nil })
		}, "the Go field Token of rpc_test.withHeader is tagged header, but the input has no header part Token (it has none)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var msg string
			func() {
				defer func() { msg, _ = recover().(string) }()
				tt.register(svc())
			}()
			require.NotEmpty(t, msg, "Register accepted it")
			assert.Contains(t, msg, tt.want)
		})
	}

	// the bare contract: one body field
	bare := rpc.NewService("urn:soapwire:interop:calc-bare", "CalcBare", rpc.WithContract(loadInterop(t, interop.Bare), "CalcBareSoap12"))
	assert.PanicsWithValue(t, "rpc: register add: the input of add (port CalcBareSoap12): the input is bare, its one part the element Operands: rpc_test.AddIn must have one field (not a header) for it, not 2", func() {
		rpc.Register(bare, "add", func(context.Context, *AddIn) (*BareSum, error) { return nil, nil })
	})
	assert.PanicsWithValue(t, "rpc: WithContract: wsdl: no port Nope in the contract; it has CalcService/CalcSoap11 (SOAP 1.1), CalcService/CalcSoap12 (SOAP 1.2)", func() {
		rpc.NewService(qualifiedNS, "Calc", rpc.WithContract(loadInterop(t, interop.Qualified), "Nope"))
	})
}

// TestBoundServiceRefusals: a bound Service reads exactly the contract and
// refuses everything else, naming it.
func TestBoundServiceRefusals(t *testing.T) {
	var logs bytes.Buffer
	svc := boundCalc(t, rpc.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	op := func(local, children string) string {
		return `<c:` + local + ` xmlns:c="` + qualifiedNS + `">` + children + `</c:` + local + `>`
	}
	tests := []struct {
		name string
		v    core.Version
		body string
		code core.Code
		sub  string
		want string
	}{
		{"qualified", core.V11, op("add", `<c:a>40</c:a><c:b>2</c:b>`), 255, "", ""},
		{"unqualified", core.V11, op("add", `<a>40</a><b>2</b>`), core.CodeSender, "BadArguments", "add"},
		{"missing", core.V12, op("add", `<c:a>40</c:a>`), core.CodeSender, "BadArguments", "b"},
		{"out of order", core.V12, op("add", `<c:b>2</c:b><c:a>40</c:a>`), core.CodeSender, "BadArguments", "add"},
		{"surplus child", core.V12, op("add", `<c:a>40</c:a><c:b>2</c:b><c:c>1</c:c>`), core.CodeSender, "BadArguments", "c"},
		{"not an int", core.V12, op("add", `<c:a>forty</c:a><c:b>2</c:b>`), core.CodeSender, "BadArguments", "forty"},
		{"an element after the wrapper", core.V12, op("add", `<c:a>40</c:a><c:b>2</c:b>`) + `<c:more xmlns:c="urn:x"/>`, core.CodeSender, "BadArguments", "the element more follows what the message holds"},
		{"a missing attribute is fine, a wrong one is not", core.V11, op("echoStruct", `<c:person id="x"><c:name>n</c:name><c:age>1</c:age><c:address><c:street/><c:city/></c:address><c:note>n</c:note></c:person>`),
			core.CodeSender, "BadArguments", "id"},
		{"nil where the contract says not nillable", core.V11, op("echoString", `<c:s xsi:nil="true" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"/>`), core.CodeSender, "BadArguments", "nil"},
		{"no such operation", core.V12, op("mul", ``), core.CodeSender, "ProcedureNotPresent", "no operation {urn:soapwire:interop:calc}mul"},
		{"a detail that fits no declared fault", core.V12, op("echoString", `<c:s>bad detail</c:s>`), core.CodeReceiver, "", core.InternalErrorReason},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, f := serveRaw(t, svc, envelope(tt.v, tt.body))
			if tt.code == 255 { // accepted
				require.Nil(t, f, "fault: %v", f)
				assert.Contains(t, out, "<ns0:result>42</ns0:result>")
				return
			}
			require.NotNil(t, f, "reply: %s", out)
			assert.Equal(t, tt.code, f.Code, "%v", f)
			if tt.sub != "" {
				require.NotEmpty(t, f.Subcodes)
				assert.Equal(t, tt.sub, f.Subcodes[0].Local)
			}
			assert.Contains(t, f.Reason, tt.want)
		})
	}
	assert.Contains(t, logs.String(), "the fault's detail cannot be written", "a detail that fits no fault is logged")

	// a SOAP 1.2 request to a contract with only a SOAP 1.1 port
	enc := rpc.NewService("urn:soapwire:interop:calc-encoded", "CalcEncoded", rpc.WithContract(loadInterop(t, interop.Encoded), ""))
	_, f := serveRaw(t, enc, envelope(core.V12, `<c:add xmlns:c="urn:soapwire:interop:calc-encoded"><a>1</a><b>2</b></c:add>`))
	require.NotNil(t, f)
	assert.Equal(t, core.CodeVersionMismatch, f.Code)
	assert.Equal(t, []core.Version{core.V11}, f.Supported)
}

// TestBoundServiceWSDL: a bound Service's WSDL is the contract's document
// with every port at the address it is served at.
func TestBoundServiceWSDL(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, boundCalc(t).WSDL(&b, "http://127.0.0.1:7/calc"))
	assert.Equal(t, 2, strings.Count(b.String(), `location="http://127.0.0.1:7/calc"`))
	back, err := wsdl.Load(t.Context(), xsd.MapLoader{"c.wsdl": b.Bytes()}, "c.wsdl")
	require.NoError(t, err)
	require.Len(t, back.Endpoints(), 2)
	assert.Equal(t, "http://127.0.0.1:7/calc", back.Endpoints()[1].Address)
	assert.Equal(t, "CalcPortType", back.PortTypes[0].Name.Local)
}

// TestBoundClientRefusals: a bound Client returns the mismatch of its Go
// types as an error (never a panic) and a reply that does not fit the
// contract as an error naming what is wrong.
func TestBoundClientRefusals(t *testing.T) {
	ct := loadInterop(t, interop.Qualified)
	c := rpc.NewClient(loopback(t, boundCalc(t)), qualifiedNS, rpc.WithContract(ct, ""))
	type aOnly struct {
		A int32 `xml:"a"`
	}
	_, err := rpc.Call[AddOut](t.Context(), c, "add", aOnly{A: 1})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "rpc: call add: the input: add: the required element b has no Go field")
	_, err = rpc.Call[AddOut](t.Context(), c, "nosuch", AddIn{})
	assert.ErrorContains(t, err, "has no operation nosuch")

	reply := func(body string) core.RoundTripper {
		return core.RoundTripFunc(func(context.Context, *core.Message) (*core.Message, error) {
			return core.ReadMessage(strings.NewReader(envelope(core.V11, body)), core.Limits{})
		})
	}
	for body, want := range map[string]string{
		`<c:addResponse xmlns:c="` + qualifiedNS + `"/>`:                                   "result",
		`<c:addResponse xmlns:c="` + qualifiedNS + `"><result>42</result></c:addResponse>`: "result",
	} {
		c := rpc.NewClient(reply(body), qualifiedNS, rpc.WithContract(ct, ""))
		got, err := rpc.Call[AddOut](t.Context(), c, "add", AddIn{A: 40, B: 2})
		require.Error(t, err, body)
		assert.Nil(t, got)
		var re *wsdl.ReplyError
		assert.True(t, errors.As(err, &re), "%v", err)
		assert.Contains(t, err.Error(), want)
	}
}

// Header parts of a contract made by a code-first service's WSDL.
type hSession struct {
	ID string `xml:"id"`
}

type hSaveReq struct {
	Session hSession `xml:"Session,header"`
	Name    string   `xml:"name"`
}

type hSaveResp struct {
	Return string `xml:"return"`
	Quota  int32  `xml:"Quota,header"`
}

// TestBoundHeaders: a contract with soap:header parts (the WSDL of a
// code-first service with header fields, qualified) binds a Service and a
// Client whose header fields travel as the contract's header blocks; a
// missing required header is refused naming it.
func TestBoundHeaders(t *testing.T) {
	const ns = "urn:soapwire:headers"
	gen := rpc.NewService(ns, "H", rpc.WithQualified(true))
	save := func(_ context.Context, r *hSaveReq) (*hSaveResp, error) {
		return &hSaveResp{Return: r.Name + "@" + r.Session.ID, Quota: 7}, nil
	}
	rpc.Register(gen, "save", save)
	var doc bytes.Buffer
	require.NoError(t, gen.WSDL(&doc, "http://127.0.0.1:1/h"))
	ct, err := wsdl.Load(t.Context(), xsd.MapLoader{"h.wsdl": doc.Bytes()}, "h.wsdl")
	require.NoError(t, err)

	svc := rpc.NewService(ns, "H", rpc.WithContract(ct, ""))
	rpc.Register(svc, "save", save)
	for _, v := range versions {
		rec := &recording{rt: loopback(t, svc)}
		c := rpc.NewClient(rec, ns, rpc.WithContract(ct, ""), rpc.WithVersion(v))
		got, err := rpc.Call[hSaveResp](t.Context(), c, "save", hSaveReq{Session: hSession{ID: "s1"}, Name: "n"})
		require.NoError(t, err)
		assert.Equal(t, hSaveResp{Return: "n@s1", Quota: 7}, *got)
		assert.Regexp(t, `Header><ns0:Session [^>]*><ns0:id>s1</ns0:id></ns0:Session>`, rec.req)

		// the code-first client of the same service agrees with the bound one
		cf := rpc.NewClient(loopback(t, svc), ns, rpc.WithQualified(true), rpc.WithVersion(v))
		got, err = rpc.Call[hSaveResp](t.Context(), cf, "save", hSaveReq{Session: hSession{ID: "s2"}, Name: "m"})
		require.NoError(t, err)
		assert.Equal(t, hSaveResp{Return: "m@s2", Quota: 7}, *got)
	}
	_, f := serveRaw(t, svc, envelope(core.V11, `<c:save xmlns:c="`+ns+`"><c:name>n</c:name></c:save>`))
	require.NotNil(t, f)
	assert.Contains(t, f.Reason, "missing header {urn:soapwire:headers}Session")
}
