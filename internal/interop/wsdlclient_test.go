package interop_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soaphttp "github.com/soapwire/soapwire/bindings/http"
	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/wsdl"
	"github.com/soapwire/soapwire/core/xsd"
	"github.com/soapwire/soapwire/internal/interop"
)

// loadContract loads one of the harness's contracts with core/wsdl.
func loadContract(t testing.TB, c interop.Contract) *wsdl.Contract {
	t.Helper()
	path := c.Path()
	ct, err := wsdl.Load(context.Background(), xsd.FSLoader(os.DirFS(filepath.Dir(path))), filepath.Base(path))
	require.NoError(t, err)
	return ct
}

// callWSDLClient makes a case's call with core/wsdl's run-time client of
// contract c at endpoint, and returns what it read in the harness's form.
func callWSDLClient(t *testing.T, ct *wsdl.Contract, c interop.Contract, endpoint string, cs interop.Case) interop.Values {
	t.Helper()
	rt := soaphttp.NewTransport(endpoint)
	t.Cleanup(rt.CloseIdleConnections)
	cl, err := wsdl.NewClient(ct, rt, wsdl.WithVersion(cs.Version))
	require.NoError(t, err)
	sig, err := cl.Operation(cs.Op)
	require.NoError(t, err)
	args := map[string]any{}
	for k, v := range cs.Args {
		args[k] = v
	}
	in, err := xsd.Unflatten(args)
	require.NoError(t, err)
	var input any = in
	prefix := ""
	if !sig.Input.Wrapped && sig.Style == wsdl.Document && len(sig.Input.Params) == 1 {
		input = in[sig.Input.Params[0].Element.Name.Local] // a bare part: the element's value
		prefix = sig.Output.Params[0].Element.Name.Local
	}
	var tree *xsd.Value
	err = cl.Call(t.Context(), cs.Op, input, &tree)
	var fe *wsdl.FaultError
	if errors.As(err, &fe) {
		return faultValues(fe, cs.Version)
	}
	require.NoError(t, err, "%s %s", c, cs.Name)
	out := interop.Values{}
	for k, v := range tree.Paths() {
		if prefix != "" {
			k = prefix + "." + k
		}
		if v == nil {
			out[k] = interop.Nil
			continue
		}
		out[k] = *v
	}
	if prefix != "" && len(tree.Elems) == 0 && len(tree.Attrs) == 0 {
		out = interop.Values{prefix: tree.Text}
	}
	return out
}

// faultValues is a declared fault in the harness's form.
func faultValues(fe *wsdl.FaultError, v core.Version) interop.Values {
	code := map[core.Code]string{core.CodeSender: "Sender", core.CodeReceiver: "Receiver"}[fe.Fault.Code]
	if v == core.V11 {
		code = map[core.Code]string{core.CodeSender: "Client", core.CodeReceiver: "Server"}[fe.Fault.Code]
	}
	out := interop.Values{"fault.code": code, "fault.string": fe.Fault.Reason}
	for k, x := range fe.Detail.Paths() {
		if x != nil {
			out["fault.detail."+fe.Detail.Name.Local+"."+k] = *x
		}
	}
	return out
}

// TestWSDLClientPeers: core/wsdl's run-time client, given only the
// contract, gets every case's values right from gSOAP's strict server of
// each contract (both versions) and from spyne's (wrapped and bare), the
// declared fault with its detail included.
func TestWSDLClientPeers(t *testing.T) {
	t.Parallel()
	peerTest(t)
	servers := []struct {
		name  string
		c     interop.Contract
		start func(t testing.TB, c interop.Contract) *interop.Server
	}{
		{"gSOAP", interop.Qualified, func(t testing.TB, c interop.Contract) *interop.Server {
			return interop.GSOAPServer(t, c, interop.Strict())
		}},
		{"gSOAP", interop.Bare, func(t testing.TB, c interop.Contract) *interop.Server {
			return interop.GSOAPServer(t, c, interop.Strict())
		}},
		{"gSOAP", interop.Encoded, func(t testing.TB, c interop.Contract) *interop.Server {
			return interop.GSOAPServer(t, c, interop.Strict())
		}},
		{"spyne", interop.Qualified, interop.SpyneServer},
		{"spyne", interop.Bare, interop.SpyneServer},
	}
	for _, s := range servers {
		t.Run(s.name+"/"+string(s.c), func(t *testing.T) {
			srv := s.start(t, s.c)
			ct := loadContract(t, s.c)
			for _, v := range s.c.Versions() {
				for _, cs := range interop.Cases(s.c, v) {
					got := callWSDLClient(t, ct, s.c, srv.Endpoint(v), cs)
					assert.Equal(t, cs.Want, got.Normalized(), "%s %s %s", s.c, v, cs.Name)
				}
			}
		})
	}
}
