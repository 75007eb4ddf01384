package gen_test

import (
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core/wsdl"
	"github.com/soapwire/soapwire/core/xsd"
	"github.com/soapwire/soapwire/gen"
)

// TestMIMEPartsNotDropped: a part the binding puts both in the soap:body
// and in a MIME part is not generated as if one of them were not there:
// GenerateWarnings names it, the client method fails naming it before
// sending, the server answers a Receiver fault naming it.
func TestMIMEPartsNotDropped(t *testing.T) {
	src, err := os.ReadFile("testdata/swa.wsdl")
	require.NoError(t, err)
	both := strings.Replace(string(src), `<soap:body parts="body" use="literal"/>`, `<soap:body parts="body scan" use="literal"/>`, 1)
	require.NotEqual(t, string(src), both)
	ct, err := wsdl.Load(t.Context(), xsd.FSLoader(fstest.MapFS{"swa.wsdl": {Data: []byte(both)}}), "swa.wsdl")
	require.NoError(t, err)
	files, warnings, err := gen.GenerateWarnings(ct)
	require.NoError(t, err)
	require.Len(t, warnings, 1)
	why := `the operation Archive puts the message part "scan" (input) both in the soap:body and in a MIME part, which soapwire gen does not generate`
	assert.Contains(t, warnings[0], why)
	for _, f := range files {
		switch f.Name {
		case "client.go":
			assert.Contains(t, string(f.Data), `, errors.New("wsdl: `+strings.ReplaceAll(why, `"`, `\"`))
		case "server.go":
			assert.Contains(t, string(f.Data), `return &core.Fault{Code: core.CodeReceiver, Reason: "`+strings.ReplaceAll(why, `"`, `\"`))
		}
	}

	// the contract as it is: no warning
	ct, err = wsdl.Load(t.Context(), xsd.FSLoader(os.DirFS("testdata")), "swa.wsdl")
	require.NoError(t, err)
	_, warnings, err = gen.GenerateWarnings(ct)
	require.NoError(t, err)
	assert.Empty(t, warnings)
}
