package interop_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soaphttp "github.com/soapwire/soapwire/bindings/http"
	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/rpc"
	"github.com/soapwire/soapwire/core/wsdl"
	"github.com/soapwire/soapwire/core/xsd"
	"github.com/soapwire/soapwire/internal/interop"
)

// The Go types of a Service bound to calc-qualified.wsdl or calc-bare.wsdl:
// the codec maps them by their xml tags, attributes included.
type boundAddress struct {
	Country *string `xml:"country,attr"`
	Street  string  `xml:"street"`
	City    string  `xml:"city"`
}

type boundPerson struct {
	ID       *int32       `xml:"id,attr"`
	Name     string       `xml:"name"`
	Age      int32        `xml:"age"`
	Address  boundAddress `xml:"address"`
	Tags     []string     `xml:"tags"`
	Nickname *string      `xml:"nickname"`
	Note     *string      `xml:"note"`
}

type boundEchoStruct struct {
	Person boundPerson `xml:"person"`
}

type boundEchoStructResponse struct {
	Return boundPerson `xml:"return"`
}

type boundTraveller struct {
	Person boundPerson `xml:"Traveller"`
}

type boundReturned struct {
	Person boundPerson `xml:"Returned"`
}

type boundCalcFault struct {
	Code    string `xml:"code"`
	Message string `xml:"message"`
}

func calcFault(code string) error {
	return &rpc.DetailFault{Code: core.CodeSender, Reason: "calc refused: " + code,
		Detail: boundCalcFault{Code: code, Message: "failure " + code + " as asked"}}
}

// boundCalc returns a Service bound to contract c (Qualified or Bare) that
// answers as the harness's peer servers do.
func boundCalc(t testing.TB, c interop.Contract) *rpc.Service {
	t.Helper()
	ct := loadContract(t, c)
	svc := rpc.NewService(c.Namespace(), "Calc", rpc.WithContract(ct, ""))
	if c == interop.Bare {
		rpc.Register(svc, "echoString", func(_ context.Context, r *bareEchoText) (*bareEchoedText, error) {
			return &bareEchoedText{Text: r.Text}, nil
		})
		rpc.Register(svc, "add", func(_ context.Context, r *bareOperands) (*bareSum, error) {
			return &bareSum{Sum: r.Operands.A + r.Operands.B}, nil
		})
		rpc.Register(svc, "echoStruct", func(_ context.Context, r *boundTraveller) (*boundReturned, error) {
			return &boundReturned{Person: r.Person}, nil
		})
		rpc.Register(svc, "fail", func(_ context.Context, r *bareFailCode) (*bareFailAck, error) {
			return nil, calcFault(r.Code)
		})
		return svc
	}
	rpc.Register(svc, "echoString", func(_ context.Context, r *calcEchoString) (*calcEchoStringResponse, error) {
		return &calcEchoStringResponse{Return: r.S}, nil
	})
	rpc.Register(svc, "add", func(_ context.Context, r *calcAdd) (*calcAddResponse, error) {
		return &calcAddResponse{Result: r.A + r.B}, nil
	})
	rpc.Register(svc, "echoStruct", func(_ context.Context, r *boundEchoStruct) (*boundEchoStructResponse, error) {
		return &boundEchoStructResponse{Return: r.Person}, nil
	})
	rpc.Register(svc, "fail", func(_ context.Context, r *calcFail) (*calcFailResponse, error) {
		return nil, calcFault(r.Code)
	})
	return svc
}

// TestBoundServicePeers: an rpc.Service bound to calc-qualified.wsdl, and
// one bound to calc-bare.wsdl, served over bindings/http, answers the
// gSOAP client built from the contract, zeep, suds and node-soap (each
// loading the Service's own ?wsdl) with the values of every case, in every
// version the contract has; the fault's detail decodes into the
// contract's CalcFault (gSOAP's typed detail included).
func TestBoundServicePeers(t *testing.T) {
	t.Parallel()
	peerTest(t)
	for _, c := range []interop.Contract{interop.Qualified, interop.Bare} {
		t.Run(string(c), func(t *testing.T) {
			srv := httptest.NewServer(soaphttp.NewHandler(boundCalc(t, c)))
			t.Cleanup(srv.Close)
			endpoint := srv.URL + "/" + string(c)
			wsdlURL := endpoint + "?wsdl"
			for _, v := range c.Versions() {
				t.Run(v.String(), func(t *testing.T) {
					checkCases(t, interop.GSOAPClient(t, c), endpoint, c, v, nil)
					checkCases(t, interop.Zeep(t, wsdlURL), "", c, v, nil)
					checkCases(t, interop.NodeSoap(t, wsdlURL), "", c, v,
						func(name string, want interop.Values) interop.Values { return want.WithoutNil() })
					if v == core.V11 {
						checkCases(t, interop.Suds(t, wsdlURL), "", c, v, nil)
					}
					// and soapwire's own run-time client, from the same ?wsdl
					for _, cs := range interop.Cases(c, v) {
						assert.Equal(t, cs.Want, callWSDLClient(t, loadURL(t, wsdlURL), c, endpoint, cs).Normalized(), "core/wsdl client: %s", cs.Name)
					}
				})
			}
		})
	}
}

// loadURL loads a contract from a URL on loopback.
func loadURL(t testing.TB, url string) *wsdl.Contract {
	t.Helper()
	ct, err := wsdl.Load(t.Context(), xsd.HTTPLoader(http.DefaultClient), url)
	require.NoError(t, err)
	return ct
}

// TestBoundClientPeers: an rpc.Client bound to the contract (WithContract)
// calls the strict gSOAP server and spyne's server with the Go types of
// the bound Service, attributes and a nil note included, in both
// versions, and gets every value back; the declared fault comes as a
// *wsdl.FaultError whose detail decodes into the contract's CalcFault.
func TestBoundClientPeers(t *testing.T) {
	t.Parallel()
	peerTest(t)
	id, gb := int32(1815), "GB"
	ada := boundPerson{ID: &id, Name: "Ada Lovelace", Age: 36,
		Address: boundAddress{Country: &gb, Street: "12 St James's Square", City: "London"}, Tags: []string{"mathematics", "poetry"}}
	for _, c := range []interop.Contract{interop.Qualified, interop.Bare} {
		ct := loadContract(t, c)
		for _, srv := range []*interop.Server{interop.GSOAPServer(t, c, interop.Strict()), interop.SpyneServer(t, c)} {
			for _, v := range c.Versions() {
				t.Run(string(c)+"/"+srv.Name+"/"+v.String(), func(t *testing.T) {
					ctx := t.Context()
					client := rpc.NewClient(soaphttp.NewTransport(srv.Endpoint(v)), c.Namespace(), rpc.WithContract(ct, ""), rpc.WithVersion(v))
					var err error
					var failErr error
					if c == interop.Bare {
						var sum *bareSum
						sum, err = rpc.Call[bareSum](ctx, client, "add", bareOperands{Operands: calcAdd{A: 40, B: 2}})
						require.NoError(t, err)
						assert.Equal(t, int32(42), sum.Sum)
						var p *boundReturned
						p, err = rpc.Call[boundReturned](ctx, client, "echoStruct", boundTraveller{Person: ada})
						require.NoError(t, err)
						assert.Equal(t, ada, p.Person)
						_, failErr = rpc.Call[bareFailAck](ctx, client, "fail", bareFailCode{Code: "E42"})
					} else {
						var sum *calcAddResponse
						sum, err = rpc.Call[calcAddResponse](ctx, client, "add", calcAdd{A: 40, B: 2})
						require.NoError(t, err)
						assert.Equal(t, int32(42), sum.Result)
						var p *boundEchoStructResponse
						p, err = rpc.Call[boundEchoStructResponse](ctx, client, "echoStruct", boundEchoStruct{Person: ada})
						require.NoError(t, err)
						assert.Equal(t, ada, p.Return)
						_, failErr = rpc.Call[calcFailResponse](ctx, client, "fail", calcFail{Code: "E42"})
					}
					var fe *wsdl.FaultError
					require.ErrorAs(t, failErr, &fe)
					var f *core.Fault
					require.ErrorAs(t, failErr, &f)
					assert.Equal(t, "calc refused: E42", f.Reason)
					var detail boundCalcFault
					require.NoError(t, fe.DecodeDetail(&detail))
					assert.Equal(t, boundCalcFault{Code: "E42", Message: "failure E42 as asked"}, detail)
				})
			}
		}
	}
}
