package interop_test

import (
	"encoding/xml"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/internal/interop"
)

// checkCases calls every case of c in version v with client at endpoint,
// and compares what it printed with what the case wants, after adjust
// (a peer's known way of reading; nil for none).
func checkCases(t *testing.T, client interop.Client, endpoint string, c interop.Contract, v core.Version, adjust func(name string, want interop.Values) interop.Values) {
	t.Helper()
	cases := interop.Cases(c, v)
	got := client.Call(t, endpoint, interop.Calls(cases)...)
	for i, cs := range cases {
		want := cs.Want
		if adjust != nil {
			want = adjust(cs.Name, want)
		}
		assert.Equal(t, want, got[i].Normalized(), "%s: %s called %s", client.Name(), cs.Name, endpoint)
	}
}

// TestGSOAP: the gSOAP client and server built from each contract
// (Headers too) agree on every operation in every version the contract
// has: the values come back exact, header blocks included, and fail's
// fault detail is decoded into its typed CalcFault.
func TestGSOAP(t *testing.T) {
	t.Parallel()
	peerTest(t)
	for _, c := range append(interop.Contracts(), interop.Headers) {
		t.Run(string(c), func(t *testing.T) {
			srv := interop.GSOAPServer(t, c)
			client := interop.GSOAPClient(t, c)
			for _, v := range c.Versions() {
				t.Run(v.String(), func(t *testing.T) {
					checkCases(t, client, srv.URL, c, v, nil)
				})
			}
		})
	}
}

// calcReply is what the strictness test reads of the gSOAP server's reply.
type calcReply struct {
	Body struct {
		Add *struct {
			Result string `xml:"urn:soapwire:interop:calc result"`
		} `xml:"urn:soapwire:interop:calc addResponse"`
		Echo *struct {
			Return string `xml:"urn:soapwire:interop:calc return"`
		} `xml:"urn:soapwire:interop:calc echoStringResponse"`
		Struct *struct {
			Return struct {
				Name    string `xml:"urn:soapwire:interop:calc name"`
				Age     string `xml:"urn:soapwire:interop:calc age"`
				Address struct {
					City string `xml:"urn:soapwire:interop:calc city"`
				} `xml:"urn:soapwire:interop:calc address"`
			} `xml:"urn:soapwire:interop:calc return"`
		} `xml:"urn:soapwire:interop:calc echoStructResponse"`
		Fault *struct {
			Code   string `xml:"faultcode"`
			String string `xml:"faultstring"`
		} `xml:"http://schemas.xmlsoap.org/soap/envelope/ Fault"`
	} `xml:"Body"`
}

func readCalcReply(t *testing.T, r interop.Reply) calcReply {
	t.Helper()
	var got calcReply
	require.NoError(t, xml.Unmarshal([]byte(r.Body), &got), "reply (HTTP %d): %s", r.Status, r.Body)
	return got
}

// TestGSOAPJudgesElementForm proves the gSOAP server built from the
// qualified contract is the strict judge issue 20 needs: raw requests from
// Go, no peer client involved. Children in the schema's namespace (by a
// prefix or a default namespace) get the right values; unqualified
// children are skipped as unknown elements, so the server answers HTTP 200
// with zero and empty values and no fault, which is the silent wrong
// answer a client that ignores elementFormDefault gets. With Strict the
// same request is refused with a fault.
func TestGSOAPJudgesElementForm(t *testing.T) {
	t.Parallel()
	peerTest(t)
	c := interop.Qualified
	ns := c.Namespace()
	lenient := interop.GSOAPServer(t, c)
	strict := interop.GSOAPServer(t, c, interop.Strict())

	add := map[string]string{
		"prefixed":    `<c:add xmlns:c="` + ns + `"><c:a>40</c:a><c:b>2</c:b></c:add>`,
		"default ns":  `<add xmlns="` + ns + `"><a>40</a><b>2</b></add>`,
		"unqualified": `<c:add xmlns:c="` + ns + `"><a>40</a><b>2</b></c:add>`,
		"no ns":       `<c:add xmlns:c="` + ns + `"><a xmlns="">40</a><b xmlns="">2</b></c:add>`,
	}
	for _, v := range c.Versions() {
		t.Run(v.String(), func(t *testing.T) {
			for _, form := range []string{"prefixed", "default ns"} {
				r := interop.Post(t, lenient.URL, v, c.Action("add"), add[form])
				assert.Equal(t, 200, r.Status, form)
				got := readCalcReply(t, r)
				require.NotNil(t, got.Body.Add, "%s: %s", form, r.Body)
				assert.Equal(t, "42", got.Body.Add.Result, "%s: the qualified result", form)
				assert.Contains(t, r.Header.Get("Content-Type"), v.MediaType())
			}
			for _, form := range []string{"unqualified", "no ns"} {
				r := interop.Post(t, lenient.URL, v, c.Action("add"), add[form])
				assert.Equal(t, 200, r.Status, "%s: gSOAP answers no fault: %s", form, r.Body)
				got := readCalcReply(t, r)
				require.NotNil(t, got.Body.Add, "%s: %s", form, r.Body)
				assert.Equal(t, "0", got.Body.Add.Result, "%s: 40 + 2 read as absent + absent", form)
			}

			r := interop.Post(t, lenient.URL, v, c.Action("echoString"), `<c:echoString xmlns:c="`+ns+`"><s>hello</s></c:echoString>`)
			got := readCalcReply(t, r)
			require.NotNil(t, got.Body.Echo, r.Body)
			assert.Empty(t, got.Body.Echo.Return, "an unqualified s reads as empty")

			r = interop.Post(t, lenient.URL, v, c.Action("echoStruct"), `<c:echoStruct xmlns:c="`+ns+`"><c:person>`+
				`<name>Ada</name><age>36</age><address><street>s</street><city>London</city></address><c:note>n</c:note></c:person></c:echoStruct>`)
			got = readCalcReply(t, r)
			require.NotNil(t, got.Body.Struct, r.Body)
			assert.Empty(t, got.Body.Struct.Return.Name, "unqualified person children read as absent: %s", r.Body)
			assert.Equal(t, "0", got.Body.Struct.Return.Age)
			assert.Contains(t, r.Body, ">n</", "the one qualified child, note, is read")

			r = interop.Post(t, lenient.URL, v, c.Action("echoStruct"), `<c:echoStruct xmlns:c="`+ns+`"><c:person>`+
				`<c:name>Ada</c:name><c:age>36</c:age><c:address><c:street>s</c:street><c:city>London</c:city></c:address><c:note>n</c:note></c:person></c:echoStruct>`)
			got = readCalcReply(t, r)
			require.NotNil(t, got.Body.Struct, r.Body)
			assert.Equal(t, "Ada", got.Body.Struct.Return.Name)
			assert.Equal(t, "36", got.Body.Struct.Return.Age)
			assert.Equal(t, "London", got.Body.Struct.Return.Address.City)

			// Strict refuses the unqualified form and still answers the
			// qualified one.
			r = interop.Post(t, strict.URL, v, c.Action("add"), add["unqualified"])
			assert.NotEqual(t, 200, r.Status, "strict gSOAP refuses: %s", r.Body)
			assert.Contains(t, r.Body, "Fault>")
			r = interop.Post(t, strict.URL, v, c.Action("add"), add["prefixed"])
			assert.Equal(t, 200, r.Status, r.Body)
			got = readCalcReply(t, r)
			require.NotNil(t, got.Body.Add, r.Body)
			assert.Equal(t, "42", got.Body.Add.Result)
		})
	}
}

// replyServer answers its i-th request with the SOAP envelope of version
// v holding bodies[i] (a client's calls of one run come in order), and a
// request beyond them with HTTP 500.
func replyServer(t *testing.T, v core.Version, bodies ...string) string {
	t.Helper()
	var mu sync.Mutex
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		mu.Lock()
		i := n
		n++
		mu.Unlock()
		if i >= len(bodies) {
			http.Error(w, "no more replies", http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", v.MediaType()+"; charset=utf-8")
		io.WriteString(w, interop.Envelope(v, bodies[i]))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestGSOAPClientJudgesElementForm: the other half of issue 20's silent
// wrong answer. A server of the qualified contract that answers add with
// an unqualified <result> is read by the gSOAP client as result 0, with no
// error; zeep, suds and node-soap read 42 from it as from the qualified
// reply, so only gSOAP shows the mistake. A reply without <result> at all
// also reads as 0 in gSOAP (it does not check required elements) and as
// absent in the others.
func TestGSOAPClientJudgesElementForm(t *testing.T) {
	t.Parallel()
	peerTest(t)
	c := interop.Qualified
	ns := c.Namespace()
	replies := map[string]string{
		"qualified":   `<c:addResponse xmlns:c="` + ns + `"><c:result>42</c:result></c:addResponse>`,
		"unqualified": `<c:addResponse xmlns:c="` + ns + `"><result>42</result></c:addResponse>`,
		"missing":     `<c:addResponse xmlns:c="` + ns + `"/>`,
	}
	wsdl := interop.ContractAt(t, c, "http://127.0.0.1:1/unused")
	clients := []struct {
		client   interop.Client
		versions []core.Version
		want     map[string]interop.Values
	}{
		{interop.GSOAPClient(t, c), c.Versions(), map[string]interop.Values{
			"qualified": {"result": "42"}, "unqualified": {"result": "0"}, "missing": {"result": "0"}}},
		{interop.Zeep(t, wsdl), c.Versions(), map[string]interop.Values{
			"qualified": {"result": "42"}, "unqualified": {"result": "42"}, "missing": {}}},
		{interop.Suds(t, wsdl), []core.Version{core.V11}, map[string]interop.Values{
			"qualified": {"result": "42"}, "unqualified": {"result": "42"}, "missing": {}}},
		{interop.NodeSoap(t, wsdl), c.Versions(), map[string]interop.Values{
			"qualified": {"result": "42"}, "unqualified": {"result": "42"}, "missing": {}}},
	}
	forms := []string{"qualified", "unqualified", "missing"}
	for _, cl := range clients {
		t.Run(cl.client.Name(), func(t *testing.T) {
			for _, v := range cl.versions {
				var bodies []string
				var calls []interop.Call
				for _, form := range forms {
					bodies = append(bodies, replies[form])
					calls = append(calls, interop.Call{Op: "add", Args: interop.Args{"a": 40, "b": 2}, Version: v})
				}
				got := cl.client.Call(t, replyServer(t, v, bodies...), calls...)
				for i, form := range forms {
					assert.Equal(t, cl.want[form], got[i], "SOAP %s, %s reply", v, form)
				}
			}
		})
	}
}
