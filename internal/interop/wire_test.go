package interop_test

import (
	"bytes"
	"encoding/xml"
	"io"
	"mime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/internal/interop"
)

// bodyElements returns the names of the elements inside a request's SOAP
// Body, in document order, with their namespaces resolved.
func bodyElements(t *testing.T, envelope []byte) []xml.Name {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(envelope))
	var names []xml.Name
	depth, inBody := 0, false
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		require.NoError(t, err, "%s", envelope)
		switch el := tok.(type) {
		case xml.StartElement:
			depth++
			if inBody {
				names = append(names, el.Name)
			}
			if depth == 2 && el.Name.Local == "Body" {
				inBody = true
			}
		case xml.EndElement:
			if depth == 2 && el.Name.Local == "Body" {
				inBody = false
			}
			depth--
		}
	}
	return names
}

// rootPrefix returns the prefix of the envelope's root element as written.
func rootPrefix(envelope []byte) string {
	s := string(envelope)
	i := strings.Index(s, "Envelope")
	j := strings.LastIndex(s[:max(i, 0)], "<")
	if i < 0 || j < 0 {
		return ""
	}
	return strings.TrimSuffix(s[j+1:i], ":")
}

// TestWireForms records what each peer client sends the gSOAP server for
// the qualified contract and checks what issue 20 relies on: every element
// of the body is in the schema's namespace (each peer qualifies), the
// envelope and media type are of the port's version, and the action is the
// contract's, quoted in SOAPAction for 1.1 and in the Content-Type for 1.2
// (as a SOAPAction header too by some). The forms seen are logged.
func TestWireForms(t *testing.T) {
	t.Parallel()
	peerTest(t)
	c := interop.Qualified
	srv := interop.GSOAPServer(t, c)
	clients := []struct {
		name     string
		client   func(t testing.TB) interop.Client
		versions []core.Version
	}{
		{"gSOAP", func(t testing.TB) interop.Client { return interop.GSOAPClient(t, c) }, c.Versions()},
		{"zeep", func(t testing.TB) interop.Client { return interop.Zeep(t, srv.WSDL) }, c.Versions()},
		{"suds", func(t testing.TB) interop.Client { return interop.Suds(t, srv.WSDL) }, []core.Version{core.V11}},
		{"node-soap", func(t testing.TB) interop.Client { return interop.NodeSoap(t, srv.WSDL) }, c.Versions()},
	}
	for _, cl := range clients {
		t.Run(cl.name, func(t *testing.T) {
			client := cl.client(t)
			for _, v := range cl.versions {
				t.Run(v.String(), func(t *testing.T) {
					rec := interop.Record(t, srv.URL)
					cases := interop.Cases(c, v)
					got := client.Call(t, rec.URL+"/"+string(c), interop.Calls(cases)...)
					for i := range cases {
						assert.False(t, got[i].Err() != "", "%s: %s", cases[i].Name, got[i].Err())
					}
					ex := rec.Exchanges()
					require.Len(t, ex, len(cases))
					for i, e := range ex {
						op := cases[i].Op
						names := bodyElements(t, e.Request)
						require.NotEmpty(t, names, "%s", e.Request)
						assert.Equal(t, xml.Name{Space: c.Namespace(), Local: op}, names[0])
						for _, n := range names {
							assert.Equal(t, c.Namespace(), n.Space, "%s: <%s> is not qualified:\n%s", op, n.Local, e.Request)
						}
						assert.Contains(t, string(e.Request), v.Namespace(), "the envelope's version")
						mt, params, err := mime.ParseMediaType(e.Header.Get("Content-Type"))
						require.NoError(t, err)
						assert.Equal(t, v.MediaType(), mt)
						action := e.Header.Get("SOAPAction")
						if v == core.V11 {
							assert.Equal(t, `"`+c.Action(op)+`"`, action)
						} else {
							assert.Equal(t, c.Action(op), params["action"])
						}
						if op == "add" || op == "echoStruct" {
							t.Logf("%s SOAP %s: envelope prefix %q, Content-Type %q, SOAPAction %q, body:\n%s",
								cl.name, v, rootPrefix(e.Request), e.Header.Get("Content-Type"), action, e.Request)
						}
						if cl.name == "gSOAP" && (op == "echoStruct" || op == "fail") {
							t.Logf("gSOAP's reply (HTTP %d, %s):\n%s", e.Status, e.ReplyHeader.Get("Content-Type"), e.Reply)
						}
					}
				})
			}
		})
	}
}

// TestWireFormsEncoded records what each peer client sends the gSOAP server
// for the rpc/encoded contract: the operation's element in the contract's
// namespace, its part accessors and everything below them unqualified,
// SOAP 1.1 with the quoted action. How each writes xsi:type and the SOAP-ENC arrays is logged.
func TestWireFormsEncoded(t *testing.T) {
	t.Parallel()
	peerTest(t)
	c := interop.Encoded
	srv := interop.GSOAPServer(t, c)
	clients := []func(t testing.TB) interop.Client{
		func(t testing.TB) interop.Client { return interop.GSOAPClient(t, c) },
		func(t testing.TB) interop.Client { return interop.Zeep(t, srv.WSDL) },
		func(t testing.TB) interop.Client { return interop.Suds(t, srv.WSDL) },
		func(t testing.TB) interop.Client { return interop.NodeSoap(t, srv.WSDL) },
	}
	for _, mk := range clients {
		client := mk(t)
		t.Run(client.Name(), func(t *testing.T) {
			rec := interop.Record(t, srv.URL)
			cases := interop.Cases(c, core.V11)
			client.Call(t, rec.URL+"/"+string(c), interop.Calls(cases)...)
			ex := rec.Exchanges()
			require.Len(t, ex, len(cases))
			for i, e := range ex {
				op := cases[i].Op
				names := bodyElements(t, e.Request)
				require.NotEmpty(t, names, "%s", e.Request)
				assert.Equal(t, xml.Name{Space: c.Namespace(), Local: op}, names[0])
				assert.Contains(t, string(e.Request), core.NamespaceV11)
				assert.Equal(t, `"`+c.Action(op)+`"`, e.Header.Get("SOAPAction"))
				for _, n := range names[1:] {
					assert.Empty(t, n.Space, "%s: the accessor <%s> is qualified:\n%s", op, n.Local, e.Request)
				}
				if op == "sumArray" || op == "echoStruct" {
					t.Logf("%s %s:\n%s", client.Name(), op, e.Request)
				}
			}
		})
	}
}
