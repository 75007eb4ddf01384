package interop_test

import (
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soaphttp "github.com/soapwire/soapwire/bindings/http"
	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/wsdl"
	"github.com/soapwire/soapwire/internal/interop"
	"github.com/soapwire/soapwire/internal/interop/gencalc/encoded"
)

// TestGeneratedClientPeers: the client soapwire gen made of each contract
// (internal/interop/gencalc) calls the gSOAP server built from the same
// WSDL (strict: it refuses what it does not expect), spyne's server of the
// document contracts and node-soap's server of them, in every version the
// contract has, and gets every case's values right: markup and non-ASCII
// text, the empty string, negative numbers and the edges of xsd:int, a
// struct with attributes, a list, an optional element and a nil one,
// SOAP-ENC arrays, header blocks (calc-headers: a Session argument sent,
// the Trace result read, none when no Session went); fail's fault comes as
// the contract's typed error (errors.As), its detail decoded. node-soap cannot serve the rpc/encoded
// contract (TestGeneratedClientNodeSoapEncoded).
func TestGeneratedClientPeers(t *testing.T) {
	t.Parallel()
	peerTest(t)
	servers := []struct {
		name  string
		c     interop.Contract
		start func(t testing.TB, c interop.Contract) *interop.Server
	}{
		{"gSOAP", interop.Qualified, strictGSOAP},
		{"gSOAP", interop.Bare, strictGSOAP},
		{"gSOAP", interop.Encoded, strictGSOAP},
		{"gSOAP", interop.Headers, strictGSOAP},
		{"spyne", interop.Qualified, interop.SpyneServer},
		{"spyne", interop.Bare, interop.SpyneServer},
		{"spyne", interop.Headers, interop.SpyneServer},
		{"node-soap", interop.Qualified, interop.NodeSoapServer},
		{"node-soap", interop.Bare, interop.NodeSoapServer},
		{"node-soap", interop.Headers, interop.NodeSoapServer},
	}
	for _, s := range servers {
		t.Run(s.name+"/"+string(s.c), func(t *testing.T) {
			srv := s.start(t, s.c)
			for _, v := range s.c.Versions() {
				rt := soaphttp.NewTransport(srv.Endpoint(v))
				t.Cleanup(rt.CloseIdleConnections)
				for _, cs := range interop.Cases(s.c, v) {
					got := genCallers[s.c](t.Context(), rt, cs)
					assert.Equal(t, cs.Want, got.Normalized(), "%s %s %s", s.c, v, cs.Name)
				}
			}
		})
	}
}

// TestGeneratedClientNodeSoapEncoded: node-soap cannot serve the rpc/encoded
// contract. It writes the rpc accessors of its replies qualified, in the
// wrapper's namespace (<tns:addResponse><tns:result>), where rpc accessors
// are unqualified, without xsi:type, and echoes a SOAP-ENC array with a
// soapenc prefix it does not declare. The generated client refuses such a
// reply, naming the accessor, rather than read a value the contract does
// not put there (gSOAP's client reads 0 and "" from it, with no error);
// the test shows the refusal and skips.
func TestGeneratedClientNodeSoapEncoded(t *testing.T) {
	t.Parallel()
	peerTest(t)
	c := interop.Encoded
	srv := interop.NodeSoapServer(t, c)
	rt := soaphttp.NewTransport(srv.URL)
	t.Cleanup(rt.CloseIdleConnections)
	_, err := encoded.NewCalcEncodedSoap11Client(rt).Add(t.Context(), &encoded.AddRequest{A: 40, B: 2})
	var re *wsdl.ReplyError
	require.ErrorAs(t, err, &re)
	assert.Contains(t, err.Error(), "found {urn:soapwire:interop:calc-encoded}result: the schema wants it in no namespace (unqualified)")
	t.Skip("node-soap cannot serve rpc/encoded: it qualifies rpc accessors and writes no xsi:type (the generated client refuses its replies, naming the accessor)")
}

func strictGSOAP(t testing.TB, c interop.Contract) *interop.Server {
	return interop.GSOAPServer(t, c, interop.Strict())
}

// TestGeneratedServerPeers: the server soapwire gen made of each contract,
// an implementation of its generated interface behind bindings/http,
// answers the gSOAP client built from the same WSDL, zeep, suds and
// node-soap (each loading the server's own ?wsdl), in every version the
// contract has, with every case's values, calc-headers' header blocks
// read by the implementation and answered; fail's typed fault reaches each
// client with its detail.
func TestGeneratedServerPeers(t *testing.T) {
	t.Parallel()
	peerTest(t)
	for _, c := range append(interop.Contracts(), interop.Headers) {
		t.Run(string(c), func(t *testing.T) {
			srv := httptest.NewServer(soaphttp.NewHandler(genServers[c]()))
			t.Cleanup(srv.Close)
			endpoint := srv.URL + "/" + string(c)
			wsdlURL := endpoint + "?wsdl"
			for _, v := range c.Versions() {
				t.Run(v.String(), func(t *testing.T) {
					checkCases(t, interop.GSOAPClient(t, c), endpoint, c, v, nil)
					checkCases(t, interop.Zeep(t, wsdlURL), "", c, v, nil)
					checkCases(t, interop.NodeSoap(t, wsdlURL), "", c, v,
						func(name string, want interop.Values) interop.Values { return nodeSoapAtGenerated(c, name, want) })
					if v == core.V11 {
						checkCases(t, interop.Suds(t, wsdlURL), "", c, v, nil)
					}
				})
			}
		})
	}
}

// nodeSoapAtGenerated is what node-soap reads from a generated server
// where it differs from the cases: it drops an element read as xsi:nil
// from its result (as from any server), and it writes Person.tags of the
// rpc/encoded contract, a SOAP-ENC array, as repeated elements with text,
// which the contract does not allow: the generated server refuses that
// echoStruct with a Sender fault (rpc:BadArguments) naming the accessor,
// where gSOAP reads the tags as an empty array and answers without them.
func nodeSoapAtGenerated(c interop.Contract, name string, want interop.Values) interop.Values {
	want = want.WithoutNil()
	if c == interop.Encoded && name == "echoStruct" {
		return interop.Values{"fault.code": "BadArguments",
			"fault.string": "echoStruct/person/tags: text is not allowed in a value of element content"}
	}
	return want
}
