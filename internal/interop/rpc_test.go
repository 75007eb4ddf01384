package interop_test

import (
	"encoding/xml"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soaphttp "github.com/soapwire/soapwire/bindings/http"
	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/rpc"
	"github.com/soapwire/soapwire/internal/interop"
)

// The code-first Go types of the calculator contracts' operations: the
// elements of calc-qualified.wsdl (wrapped) and calc-bare.wsdl (bare), as
// struct tags say them. Person's attributes (@id, @country) have no place
// in code-first structs; the calls send Persons without them.
type calcAddress struct {
	Street string `xml:"street"`
	City   string `xml:"city"`
}

type calcPerson struct {
	Name     string      `xml:"name"`
	Age      int32       `xml:"age"`
	Address  calcAddress `xml:"address"`
	Tags     []string    `xml:"tags"`
	Nickname *string     `xml:"nickname"`
	Note     *string     `xml:"note,nillable"`
}

type calcEchoString struct {
	S string `xml:"s"`
}

type calcEchoStringResponse struct {
	Return string `xml:"return"`
}

type calcAdd struct {
	A int32 `xml:"a"`
	B int32 `xml:"b"`
}

type calcAddResponse struct {
	Result int32 `xml:"result"`
}

type calcEchoStruct struct {
	Person calcPerson `xml:"person"`
}

type calcEchoStructResponse struct {
	Return calcPerson `xml:"return"`
}

type calcFail struct {
	Code string `xml:"code"`
}

type calcFailResponse struct{}

// CalcFault is the fault detail of both contracts.
type CalcFault struct {
	XMLName xml.Name
	Code    string `xml:"code"`
	Message string `xml:"message"`
}

type bareEchoText struct {
	Text string `xml:"EchoText"`
}

type bareEchoedText struct {
	Text string `xml:"EchoedText"`
}

type bareOperands struct {
	Operands calcAdd `xml:"Operands"`
}

type bareSum struct {
	Sum int32 `xml:"Sum"`
}

type bareTraveller struct {
	Person calcPerson `xml:"Traveller"`
}

type bareReturned struct {
	Person calcPerson `xml:"Returned"`
}

type bareFailCode struct {
	Code string `xml:"FailCode"`
}

type bareFailAck struct {
	Ack string `xml:"FailAck"`
}

func strPtr(s string) *string { return &s }

// grace is interop's plainPerson as a Go value.
var grace = calcPerson{Name: "Grace", Age: 85, Address: calcAddress{City: "Arlington"},
	Nickname: strPtr("Amazing Grace"), Note: strPtr("COBOL")}

// TestRPCCallQualified: rpc.Call with calc-qualified.wsdl's forms
// (WithQualified) gets the right values from the gSOAP server built from
// it, in both versions, where the default unqualified form got zeros: 40 +
// 2 read as absent + absent is 0 with HTTP 200. A reply that lacks a
// required element (gSOAP echoes the person it read as absent without its
// required children) is an error naming it, not a zero Person. The fault's
// detail decodes into CalcFault.
func TestRPCCallQualified(t *testing.T) {
	t.Parallel()
	peerTest(t)
	c := interop.Qualified
	for _, strict := range []bool{false, true} {
		var opts []interop.ServerOption
		if strict {
			opts = append(opts, interop.Strict())
		}
		srv := interop.GSOAPServer(t, c, opts...)
		for _, v := range c.Versions() {
			t.Run(map[bool]string{false: "gSOAP", true: "gSOAP strict"}[strict]+"/"+v.String(), func(t *testing.T) {
				ctx := t.Context()
				tr := soaphttp.NewTransport(srv.URL)
				qualified := rpc.NewClient(tr, c.Namespace(), rpc.WithQualified(true), rpc.WithVersion(v))

				sum, err := rpc.Call[calcAddResponse](ctx, qualified, "add", calcAdd{A: 40, B: 2})
				require.NoError(t, err)
				assert.Equal(t, int32(42), sum.Result)

				s, err := rpc.Call[calcEchoStringResponse](ctx, qualified, "echoString", calcEchoString{S: interop.Text})
				require.NoError(t, err)
				assert.Equal(t, interop.Text, s.Return)

				p, err := rpc.Call[calcEchoStructResponse](ctx, qualified, "echoStruct", calcEchoStruct{Person: grace})
				require.NoError(t, err)
				assert.Equal(t, grace, p.Return)

				withNil := grace
				withNil.Note, withNil.Tags = nil, []string{"mathematics", "poetry"}
				p, err = rpc.Call[calcEchoStructResponse](ctx, qualified, "echoStruct", calcEchoStruct{Person: withNil})
				require.NoError(t, err)
				assert.Equal(t, withNil, p.Return, "a nil note comes back nil, the tags in order")

				_, err = rpc.Call[calcFailResponse](ctx, qualified, "fail", calcFail{Code: "E42"})
				var f *core.Fault
				require.ErrorAs(t, err, &f)
				assert.Equal(t, map[core.Version]core.Code{core.V11: core.CodeSender, core.V12: core.CodeSender}[v], f.Code)
				assert.Equal(t, "calc refused: E42", f.Reason)
				var detail CalcFault
				require.NoError(t, xml.Unmarshal(f.Detail, &detail), "%s", f.Detail)
				assert.Equal(t, CalcFault{XMLName: xml.Name{Space: c.Namespace(), Local: "CalcFault"}, Code: "E42", Message: "failure E42 as asked"}, detail)

				// The default, unqualified form: the lenient gSOAP reads the
				// arguments as absent and answers zeros (the silent wrong
				// answer WithQualified prevents); the strict one refuses.
				lenient := rpc.NewClient(tr, c.Namespace(), rpc.WithVersion(v))
				sum, err = rpc.Call[calcAddResponse](ctx, lenient, "add", calcAdd{A: 40, B: 2})
				if strict {
					// refused: gSOAP's strict validation fails before the
					// operation runs, so it answers a SOAP 1.2 fault (HTTP
					// 400) whatever the request's version
					require.Error(t, err)
					assert.Nil(t, sum)
				} else {
					require.NoError(t, err)
					assert.Equal(t, int32(0), sum.Result, "40 + 2 unqualified: gSOAP read absent + absent")
				}
				p, err = rpc.Call[calcEchoStructResponse](ctx, lenient, "echoStruct", calcEchoStruct{Person: grace})
				require.Error(t, err)
				assert.Nil(t, p)
				if !strict {
					assert.Contains(t, err.Error(), "/echoStructResponse/return: missing element name",
						"gSOAP's reply of the person it read as absent lacks the required name: an error, not a zero Person")
				}
			})
		}
	}
}

// TestRPCCallBare: rpc.Call in document/literal bare style with
// calc-bare.wsdl's forms gets the right values from the gSOAP server and
// from spyne's, the strict judges, in both versions.
func TestRPCCallBare(t *testing.T) {
	t.Parallel()
	peerTest(t)
	c := interop.Bare
	for _, srv := range []*interop.Server{interop.GSOAPServer(t, c, interop.Strict()), interop.SpyneServer(t, c)} {
		for _, v := range c.Versions() {
			t.Run(srv.Name+"/"+v.String(), func(t *testing.T) {
				ctx := t.Context()
				client := rpc.NewClient(soaphttp.NewTransport(srv.Endpoint(v)), c.Namespace(),
					rpc.WithStyle(rpc.DocumentBare), rpc.WithQualified(true), rpc.WithVersion(v), rpc.WithSOAPAction("{ns}#{op}"))

				s, err := rpc.Call[bareEchoedText](ctx, client, "echoString", bareEchoText{Text: interop.Text})
				require.NoError(t, err)
				assert.Equal(t, interop.Text, s.Text)

				sum, err := rpc.Call[bareSum](ctx, client, "add", bareOperands{Operands: calcAdd{A: 40, B: 2}})
				require.NoError(t, err)
				assert.Equal(t, int32(42), sum.Sum)

				p, err := rpc.Call[bareReturned](ctx, client, "echoStruct", bareTraveller{Person: grace})
				require.NoError(t, err)
				assert.Equal(t, grace, p.Person)

				_, err = rpc.Call[bareFailAck](ctx, client, "fail", bareFailCode{Code: "E42"})
				var f *core.Fault
				require.ErrorAs(t, err, &f)
				assert.Equal(t, core.CodeSender, f.Code)
				assert.Equal(t, "calc refused: E42", f.Reason)
				var detail CalcFault
				require.NoError(t, xml.Unmarshal(f.Detail, &detail), "%s", f.Detail)
				assert.Equal(t, "E42", detail.Code)
				assert.Equal(t, "failure E42 as asked", detail.Message)
			})
		}
	}
}
