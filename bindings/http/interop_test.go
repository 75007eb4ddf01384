package http_test

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soaphttp "github.com/soapwire/soapwire/bindings/http"
	"github.com/soapwire/soapwire/core"
)

// TestInteropClients runs real SOAP clients against a core/rpc Service
// (document/literal) served by NewHandler: each fetches "?wsdl", binds the
// SOAP 1.1 or 1.2 port and calls every operation, sending its own request
// shapes (quoted SOAPAction, suds' Soapaction spelling, zeep's
// single-quoted XML declaration, node-soap's 1.2 action only in the
// Content-Type, prefixes of their own). gSOAP is TestInteropGSOAP.
func TestInteropClients(t *testing.T) {
	t.Parallel() // mostly waiting for peer processes
	if testing.Short() {
		t.Skip("interop peers take seconds to start (-short)")
	}
	clients := []struct {
		name    string
		version core.Version
		need    func(t *testing.T) []string // the command, after checking the peer is there
		dir     string
	}{
		{"zeep/soap11", core.V11, func(t *testing.T) []string {
			needPython(t, "zeep")
			return []string{python, "zeep_client.py", "", "soap11"}
		}, "testdata/python"},
		{"zeep/soap12", core.V12, func(t *testing.T) []string {
			needPython(t, "zeep")
			return []string{python, "zeep_client.py", "", "soap12"}
		}, "testdata/python"},
		{"suds/soap11", core.V11, func(t *testing.T) []string {
			needPython(t, "suds")
			return []string{python, "suds_client.py", ""}
		}, "testdata/python"},
		{"node-soap/soap11", core.V11, func(t *testing.T) []string {
			return []string{needNodeSoap(t), "client.js", "", "soap11"}
		}, nodeSoapDir},
		{"node-soap/soap12", core.V12, func(t *testing.T) []string {
			return []string{needNodeSoap(t), "client.js", "", "soap12"}
		}, nodeSoapDir},
	}
	for _, c := range clients {
		t.Run(c.name, func(t *testing.T) {
			argv := c.need(t)
			rec := &recorder{h: newInteropService()}
			srv := serve(t, rec, soaphttp.WithDescriber(newInteropService()))
			argv[2] = srv.URL + "/interop?wsdl"
			cmd := exec.CommandContext(t.Context(), argv[0], argv[1:]...)
			cmd.Dir = c.dir
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			require.NoError(t, err, "%s failed: %s", c.name, stderr.String())
			var r interopResult
			require.NoError(t, json.Unmarshal(out, &r), "output: %s", out)
			r.check(t)
			if c.name == "zeep/soap12" {
				assert.Equal(t, []string{"{" + interopNS + "}Refused"}, r.Fail.Subcodes, "the 1.2 subcode reached zeep")
			}
			v := c.version.String()
			assert.Equal(t, []string{
				v + " " + interopNS + "#echoString",
				v + " " + interopNS + "#add",
				v + " " + interopNS + "#echoStruct",
				v + " " + interopNS + "#fail",
			}, rec.calls(), "the version and action of each request")
		})
	}
}
