package http_test

import (
	"context"
	"encoding/xml"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/soapwire/soapwire/core"
)

// TestHandlerFaultInRequestVersion: a handler's fault whose Version is the
// other one is answered in the request's version (the form, the media type
// and the status of that version), its subcode and detail kept; a
// VersionMismatch a handler returns carries the Upgrade list it names.
func TestHandlerFaultInRequestVersion(t *testing.T) {
	sub := xml.Name{Space: "urn:app", Local: "Refused"}
	for _, v := range []core.Version{core.V11, core.V12} {
		other := core.V12
		if v == core.V12 {
			other = core.V11
		}
		t.Run(v.String(), func(t *testing.T) {
			srv := serve(t, core.HandlerFunc(func(_ context.Context, m *core.Message) (*core.Message, error) {
				if err := m.Body().Discard(); err != nil {
					return nil, err
				}
				return nil, &core.Fault{Code: core.CodeSender, Subcodes: []xml.Name{sub}, Reason: "no", Version: other,
					Detail: []byte(`<d:why xmlns:d="urn:d">because</d:why>`)}
			}))
			resp, data := post(t, srv.URL, map[string]string{"Content-Type": ctype(v)}, strings.NewReader(envelope(v, "", echoBody)))
			assert.Equal(t, map[core.Version]int{core.V11: 500, core.V12: 400}[v], resp.StatusCode)
			assert.Contains(t, resp.Header.Get("Content-Type"), map[core.Version]string{core.V11: "text/xml", core.V12: "application/soap+xml"}[v])
			m, f := readFault(t, data)
			assert.Equal(t, v, m.Version(), "%s", data)
			assert.Equal(t, core.CodeSender, f.Code)
			assert.Equal(t, []xml.Name{sub}, f.Subcodes)
			assert.Contains(t, string(f.Detail), "because")

			srv = serve(t, core.HandlerFunc(func(_ context.Context, m *core.Message) (*core.Message, error) {
				if err := m.Body().Discard(); err != nil {
					return nil, err
				}
				return nil, &core.Fault{Code: core.CodeVersionMismatch, Reason: "only the other", Version: other, Supported: []core.Version{other}}
			}))
			_, data = post(t, srv.URL, map[string]string{"Content-Type": ctype(v)}, strings.NewReader(envelope(v, "", echoBody)))
			m, f = readFault(t, data)
			assert.Equal(t, v, m.Version(), "%s", data)
			assert.Equal(t, core.CodeVersionMismatch, f.Code)
			assert.Equal(t, []core.Version{other}, f.Supported, "the Upgrade list: %s", data)
		})
	}
}
