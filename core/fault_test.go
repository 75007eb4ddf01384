package core_test

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
)

// readFault reads an envelope whose body is the given Fault XML.
func readFault(t *testing.T, v core.Version, env string) *core.Fault {
	t.Helper()
	m, err := readAll(envOf(v, env), core.Limits{})
	require.NoError(t, err)
	f := m.Fault()
	require.NotNil(t, f)
	assert.True(t, f.Remote, "a fault read from an envelope is remote")
	assert.Equal(t, v, f.Version)
	return f
}

func TestReadFault11(t *testing.T) {
	cases := []struct {
		name string
		body string
		want core.Fault
	}{
		{"client", `<faultcode>s:Client</faultcode><faultstring>bad</faultstring>`, core.Fault{Code: core.CodeSender, Reason: "bad"}},
		{"server", `<faultcode>s:Server</faultcode><faultstring>down</faultstring>`, core.Fault{Code: core.CodeReceiver, Reason: "down"}},
		{"mustUnderstand", `<faultcode>s:MustUnderstand</faultcode><faultstring>x</faultstring>`, core.Fault{Code: core.CodeMustUnderstand, Reason: "x"}},
		{"versionMismatch", `<faultcode>s:VersionMismatch</faultcode><faultstring>x</faultstring>`, core.Fault{Code: core.CodeVersionMismatch, Reason: "x"}},
		{"dotted subcodes", `<faultcode>s:Client.Auth.Expired</faultcode><faultstring>x</faultstring>`,
			core.Fault{Code: core.CodeSender, Subcodes: []xml.Name{{Local: "Auth"}, {Local: "Expired"}}, Reason: "x"}},
		{"other prefix for the envelope namespace", `<faultcode xmlns:e="{ns}">e:Client</faultcode><faultstring>x</faultstring>`, core.Fault{Code: core.CodeSender, Reason: "x"}},
		{"custom code: a Sender refinement", `<faultcode xmlns:c="urn:custom">c:Busy</faultcode><faultstring>x</faultstring>`,
			core.Fault{Code: core.CodeSender, Subcodes: []xml.Name{{Space: "urn:custom", Local: "Busy"}}, Reason: "x"}},
		{"wsa:ActionMismatch", `<faultcode xmlns:w="` + core.NamespaceAddressing + `">w:ActionMismatch</faultcode><faultstring>x</faultstring>`,
			core.Fault{Code: core.CodeSender, Subcodes: []xml.Name{{Space: core.NamespaceAddressing, Local: "ActionMismatch"}}, Reason: "x"}},
		{"wsa:EndpointUnavailable is a Receiver fault", `<faultcode xmlns:w="` + core.NamespaceAddressing + `">w:EndpointUnavailable</faultcode><faultstring>x</faultstring>`,
			core.Fault{Code: core.CodeReceiver, Subcodes: []xml.Name{{Space: core.NamespaceAddressing, Local: "EndpointUnavailable"}}, Reason: "x"}},
		{"rpc:BadArguments", `<faultcode xmlns:r="` + core.NamespaceRPC + `">r:BadArguments</faultcode><faultstring>x</faultstring>`,
			core.Fault{Code: core.CodeSender, Subcodes: []xml.Name{{Space: core.NamespaceRPC, Local: "BadArguments"}}, Reason: "x"}},
		{"enc:MissingID", `<faultcode xmlns:e="` + core.EncodingStyleV12 + `">e:MissingID</faultcode><faultstring>x</faultstring>`,
			core.Fault{Code: core.CodeSender, Subcodes: []xml.Name{{Space: core.EncodingStyleV12, Local: "MissingID"}}, Reason: "x"}},
		{"unqualified SOAP code", `<faultcode>Server</faultcode><faultstring>x</faultstring>`,
			core.Fault{Code: core.CodeReceiver, Subcodes: []xml.Name{{Local: "Server"}}, Reason: "x"}},
		{"lang, actor, detail", `<faultcode> s:Client </faultcode><faultstring xml:lang="fr"> mauvais </faultstring><faultactor>urn:node</faultactor>` +
			`<detail>why <e:info xmlns:e="urn:e" e:n="1">more</e:info></detail>`,
			core.Fault{Code: core.CodeSender, Reason: "mauvais", Lang: "fr", Node: "urn:node", Detail: []byte(`why <e:info xmlns:s="{ns}" xmlns:e="urn:e" e:n="1">more</e:info>`)}},
		{"qualified children and unknown ones", `<s:faultcode>s:Client</s:faultcode><s:faultstring>x</s:faultstring><ext xmlns="urn:x">ignored</ext>`,
			core.Fault{Code: core.CodeSender, Reason: "x"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := readFault(t, core.V11, wrap("", `<s:Fault>`+tc.body+`</s:Fault>`))
			assert.Equal(t, tc.want.Code, f.Code)
			assert.Equal(t, tc.want.Subcodes, f.Subcodes)
			assert.Equal(t, tc.want.Reason, f.Reason)
			assert.Equal(t, tc.want.Lang, f.Lang)
			assert.Equal(t, tc.want.Node, f.Node)
			assert.Equal(t, envOf(core.V11, string(tc.want.Detail)), string(f.Detail))
		})
	}
}

func TestReadFault12(t *testing.T) {
	const reason = `<s:Reason><s:Text xml:lang="en">bad</s:Text></s:Reason>`
	cases := []struct {
		name string
		env  string
		want core.Fault
	}{
		{"sender", wrap("", `<s:Fault><s:Code><s:Value>s:Sender</s:Value></s:Code>`+reason+`</s:Fault>`), core.Fault{Code: core.CodeSender, Reason: "bad", Lang: "en"}},
		{"receiver", wrap("", `<s:Fault><s:Code><s:Value>s:Receiver</s:Value></s:Code>`+reason+`</s:Fault>`), core.Fault{Code: core.CodeReceiver, Reason: "bad", Lang: "en"}},
		{"dataEncodingUnknown", wrap("", `<s:Fault><s:Code><s:Value>s:DataEncodingUnknown</s:Value></s:Code>`+reason+`</s:Fault>`), core.Fault{Code: core.CodeDataEncodingUnknown, Reason: "bad", Lang: "en"}},
		{"subcodes from every scope",
			`<s:Envelope xmlns:s="{ns}" xmlns:a="urn:a"><s:Body xmlns:b="urn:b"><s:Fault xmlns:c="urn:c"><s:Code><s:Value>s:Sender</s:Value>` +
				`<s:Subcode><s:Value>a:One</s:Value><s:Subcode xmlns:d="urn:d"><s:Value>b:Two</s:Value><s:Subcode><s:Value>c:Three</s:Value>` +
				`<s:Subcode><s:Value>d:Four</s:Value><s:Subcode><s:Value xmlns:e="urn:e"> e:Five </s:Value></s:Subcode></s:Subcode></s:Subcode></s:Subcode></s:Subcode></s:Code>` +
				reason + `</s:Fault></s:Body></s:Envelope>`,
			core.Fault{Code: core.CodeSender, Reason: "bad", Lang: "en", Subcodes: []xml.Name{
				{Space: "urn:a", Local: "One"}, {Space: "urn:b", Local: "Two"}, {Space: "urn:c", Local: "Three"}, {Space: "urn:d", Local: "Four"}, {Space: "urn:e", Local: "Five"},
			}}},
		{"reason texts, node, role, detail", wrap("", `<s:Fault><s:Code><s:Value>s:Receiver</s:Value></s:Code>`+
			`<s:Reason><s:Text xml:lang="en-US">broken</s:Text><s:Text xml:lang="de">kaputt</s:Text><s:Text xml:lang="ja">壊れた</s:Text></s:Reason>`+
			`<s:Node>urn:node</s:Node><s:Role>urn:role</s:Role><s:Detail><e:why xmlns:e="urn:e">disk</e:why></s:Detail></s:Fault>`),
			core.Fault{Code: core.CodeReceiver, Reason: "broken", Lang: "en-US", Node: "urn:node", Role: "urn:role",
				Translations: []core.Text{{Lang: "de", Text: "kaputt"}, {Lang: "ja", Text: "壊れた"}},
				Detail:       []byte(`<e:why xmlns:s="{ns}" xmlns:e="urn:e">disk</e:why>`)}},
		{"not understood", `<s:Envelope xmlns:s="{ns}"><s:Header><s:NotUnderstood xmlns:h="urn:h" qname="h:sec"/><s:NotUnderstood xmlns:g="urn:g" qname="g:t"/></s:Header>` +
			`<s:Body><s:Fault><s:Code><s:Value>s:MustUnderstand</s:Value></s:Code>` + reason + `</s:Fault></s:Body></s:Envelope>`,
			core.Fault{Code: core.CodeMustUnderstand, Reason: "bad", Lang: "en", NotUnderstood: []xml.Name{{Space: "urn:h", Local: "sec"}, {Space: "urn:g", Local: "t"}}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := readFault(t, core.V12, tc.env)
			assert.Equal(t, tc.want.Code, f.Code)
			assert.Equal(t, tc.want.Subcodes, f.Subcodes)
			assert.Equal(t, tc.want.Reason, f.Reason)
			assert.Equal(t, tc.want.Lang, f.Lang)
			assert.Equal(t, tc.want.Translations, f.Translations)
			assert.Equal(t, tc.want.Node, f.Node)
			assert.Equal(t, tc.want.Role, f.Role)
			assert.Equal(t, tc.want.NotUnderstood, f.NotUnderstood)
			if tc.want.Detail != nil {
				assert.Equal(t, envOf(core.V12, string(tc.want.Detail)), string(f.Detail))
			}
		})
	}
}

// writeRead writes f as the body of an envelope of version v and reads it back.
func writeRead(t *testing.T, v core.Version, f *core.Fault) (*core.Fault, string) {
	t.Helper()
	var buf bytes.Buffer
	_, err := (&core.Envelope{Version: v, Body: core.FaultBody(f)}).WriteTo(&buf)
	require.NoError(t, err)
	out := buf.String()
	m, err := readAll(out, core.Limits{})
	require.NoError(t, err, "%s", out)
	got := m.Fault()
	require.NotNil(t, got, "%s", out)
	assert.True(t, got.Remote)
	return got, out
}

func TestWriteFaultBothVersions(t *testing.T) {
	full := &core.Fault{
		Code:          core.CodeSender,
		Subcodes:      []xml.Name{{Space: "urn:app", Local: "Auth"}, {Space: "urn:app2", Local: "Expired"}},
		Reason:        "token expired",
		Lang:          "en-GB",
		Translations:  []core.Text{{Lang: "fr", Text: "jeton expiré"}},
		Node:          "urn:node",
		Role:          "urn:role",
		Detail:        []byte(`<d:info xmlns:d="urn:d">at 12:00</d:info>`),
		NotUnderstood: []xml.Name{{Space: "urn:h", Local: "sec"}},
		Cause:         errors.New("internal: secret table t_users"),
	}
	got, out := writeRead(t, core.V12, full)
	assert.Equal(t, full.Code, got.Code)
	assert.Equal(t, full.Subcodes, got.Subcodes)
	assert.Equal(t, full.Reason, got.Reason)
	assert.Equal(t, full.Lang, got.Lang)
	assert.Equal(t, full.Translations, got.Translations)
	assert.Equal(t, full.Node, got.Node)
	assert.Equal(t, full.Role, got.Role)
	assert.Equal(t, full.NotUnderstood, got.NotUnderstood)
	assertSameXML(t, full.Detail, got.Detail)
	assert.Nil(t, got.Cause)
	assert.NotContains(t, out, "secret", "Cause is never written")

	got, out = writeRead(t, core.V11, full)
	assert.Equal(t, core.CodeSender, got.Code)
	assert.Equal(t, full.Subcodes[:1], got.Subcodes, "1.1 carries the first subcode, as the faultcode")
	assert.Contains(t, out, `<faultcode xmlns:fc="urn:app">fc:Auth</faultcode>`)
	assert.Equal(t, full.Reason, got.Reason)
	assert.Equal(t, full.Lang, got.Lang)
	assert.Empty(t, got.Translations, "1.1 has one faultstring")
	assert.Equal(t, full.Node, got.Node, "faultactor")
	assert.Empty(t, got.Role, "1.1 has no Role")
	assert.Empty(t, got.NotUnderstood)
	assert.NotContains(t, out, "NotUnderstood")
	assertSameXML(t, full.Detail, got.Detail)
	assert.NotContains(t, out, "secret")

	for _, c := range []core.Code{core.CodeReceiver, core.CodeSender, core.CodeMustUnderstand, core.CodeVersionMismatch} {
		for _, v := range versions {
			got, _ := writeRead(t, v, &core.Fault{Code: c, Reason: "r"})
			assert.Equal(t, c, got.Code, "%s %s", v, c)
		}
	}
	got, out = writeRead(t, core.V11, &core.Fault{Code: core.CodeDataEncodingUnknown, Reason: "r"})
	assert.Equal(t, core.CodeSender, got.Code, "1.1 has no DataEncodingUnknown: Client")
	assert.Contains(t, out, "soap:Client")
	got, _ = writeRead(t, core.V12, &core.Fault{Code: core.CodeDataEncodingUnknown, Reason: "r"})
	assert.Equal(t, core.CodeDataEncodingUnknown, got.Code)
}

func TestCustom11FaultCodeRoundTrips(t *testing.T) {
	f := readFault(t, core.V11, wrap("", `<s:Fault><faultcode xmlns:c="urn:custom">c:Busy</faultcode><faultstring>later</faultstring></s:Fault>`))
	got, out := writeRead(t, core.V11, f)
	assert.Equal(t, []xml.Name{{Space: "urn:custom", Local: "Busy"}}, got.Subcodes)
	assert.Contains(t, out, `xmlns:fc="urn:custom">fc:Busy</faultcode>`)

	// an unqualified faultcode (no default namespace) stays unqualified
	f = readFault(t, core.V11, wrap("", `<s:Fault><faultcode>Client</faultcode><faultstring>x</faultstring></s:Fault>`))
	assert.Equal(t, []xml.Name{{Local: "Client"}}, f.Subcodes)
	got, _ = writeRead(t, core.V11, f)
	assert.Equal(t, f.Subcodes, got.Subcodes)
}

func TestVersionMismatchUpgradeHeader(t *testing.T) {
	_, err := core.ReadEnvelope(strings.NewReader(`<e:Envelope xmlns:e="urn:soap-2"><e:Body/></e:Envelope>`), core.Limits{})
	f := core.FaultOf(err)
	require.Equal(t, core.CodeVersionMismatch, f.Code)

	var buf bytes.Buffer
	_, err = (&core.Envelope{Version: core.V12, Body: core.FaultBody(f)}).WriteTo(&buf)
	require.NoError(t, err)
	// re-read with encoding/xml: Header/Upgrade/SupportedEnvelope qnames resolve
	d := xml.NewDecoder(bytes.NewReader(buf.Bytes()))
	var supported []xml.Name
	var path []string
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		switch tok := tok.(type) {
		case xml.StartElement:
			path = append(path, tok.Name.Local)
			if tok.Name.Space == core.NamespaceV12 && tok.Name.Local == "SupportedEnvelope" {
				assert.Equal(t, []string{"Envelope", "Header", "Upgrade", "SupportedEnvelope"}, path)
				scope := map[string]string{}
				var qname string
				for _, a := range tok.Attr {
					if a.Name.Space == "xmlns" {
						scope[a.Name.Local] = a.Value
					} else if a.Name.Local == "qname" {
						qname = a.Value
					}
				}
				p, l, _ := strings.Cut(qname, ":")
				supported = append(supported, xml.Name{Space: scope[p], Local: l})
			}
		case xml.EndElement:
			path = path[:len(path)-1]
		}
	}
	assert.ElementsMatch(t, []xml.Name{{Space: core.NamespaceV12, Local: "Envelope"}, {Space: core.NamespaceV11, Local: "Envelope"}}, supported)

	got, _ := writeRead(t, core.V12, f)
	assert.Equal(t, core.CodeVersionMismatch, got.Code)
	_, out := writeRead(t, core.V11, f)
	assert.NotContains(t, out, "Upgrade", "1.1 has no Upgrade header")
}

func TestFaultOf(t *testing.T) {
	assert.Nil(t, core.FaultOf(nil))

	f := core.SenderFault("missing %s", "id")
	assert.False(t, f.Remote)
	wrapped := fmt.Errorf("handler: %w", fmt.Errorf("decode: %w", f))
	assert.Same(t, f, core.FaultOf(wrapped))
	assert.ErrorIs(t, wrapped, &core.Fault{Code: core.CodeSender})
	assert.NotErrorIs(t, wrapped, &core.Fault{Code: core.CodeReceiver})
	assert.NotErrorIs(t, wrapped, &core.Fault{Code: core.CodeSender, Reason: "other"}, "a target with a reason is not a code match")
	assert.Contains(t, f.Error(), "Sender")
	assert.Contains(t, f.Error(), "missing id")

	plain := errors.New("pq: password authentication failed for user admin")
	pf := core.FaultOf(fmt.Errorf("store: %w", plain))
	assert.Equal(t, core.CodeReceiver, pf.Code)
	assert.Equal(t, core.InternalErrorReason, pf.Reason)
	assert.ErrorIs(t, pf, plain, "the cause stays in the chain")
	for _, v := range versions {
		var buf bytes.Buffer
		_, err := (&core.Envelope{Version: v, Body: core.FaultBody(pf)}).WriteTo(&buf)
		require.NoError(t, err)
		assert.NotContains(t, buf.String(), "password")
		assert.NotContains(t, buf.String(), "store")
		assert.Contains(t, buf.String(), core.InternalErrorReason)
	}

	rf := core.ReceiverFault("busy %d", 3)
	assert.Equal(t, core.CodeReceiver, rf.Code)
	assert.Equal(t, "busy 3", rf.Reason)
	assert.True(t, (&core.Fault{Subcodes: []xml.Name{{Space: "urn:a", Local: "x"}}}).HasSubcode(xml.Name{Space: "urn:a", Local: "x"}))
	assert.False(t, (&core.Fault{Subcodes: []xml.Name{{Space: "urn:a", Local: "x"}}}).HasSubcode(xml.Name{Local: "x"}))
}

func TestCodeNames(t *testing.T) {
	for c, want := range map[core.Code]string{core.CodeReceiver: "Receiver", core.CodeSender: "Sender", core.CodeMustUnderstand: "MustUnderstand",
		core.CodeVersionMismatch: "VersionMismatch", core.CodeDataEncodingUnknown: "DataEncodingUnknown"} {
		assert.Equal(t, want, c.String())
	}
}

// assertSameXML compares two fragments by their canonical form.
func assertSameXML(t *testing.T, want, got []byte) {
	t.Helper()
	cw, err := canonXML(want)
	require.NoError(t, err)
	cg, err := canonXML(got)
	require.NoError(t, err)
	assert.Equal(t, cw, cg)
}

// TestFaultCode11: how each fault is written as a SOAP 1.1 faultcode (WS-I
// BP 1.1 R1004/R1031: a SOAP 1.1 code or a namespace-qualified one, never
// the dot notation) and what reading it back gives.
func TestFaultCode11(t *testing.T) {
	const app = "urn:app"
	wsa := xml.Name{Space: core.NamespaceAddressing, Local: "ActionMismatch"}
	cases := []struct {
		name     string
		f        core.Fault
		code     string // the faultcode element written
		back     core.Code
		backSubs []xml.Name
	}{
		{"Sender", core.Fault{Code: core.CodeSender}, `<faultcode>soap:Client</faultcode>`, core.CodeSender, nil},
		{"Receiver", core.Fault{Code: core.CodeReceiver}, `<faultcode>soap:Server</faultcode>`, core.CodeReceiver, nil},
		{"DataEncodingUnknown", core.Fault{Code: core.CodeDataEncodingUnknown}, `<faultcode>soap:Client</faultcode>`, core.CodeSender, nil},
		{"wsa subcode", core.Fault{Code: core.CodeSender, Subcodes: []xml.Name{wsa}},
			`<faultcode xmlns:wsa="` + core.NamespaceAddressing + `">wsa:ActionMismatch</faultcode>`, core.CodeSender, []xml.Name{wsa}},
		{"rpc subcode", core.Fault{Code: core.CodeSender, Subcodes: []xml.Name{{Space: core.NamespaceRPC, Local: "BadArguments"}}},
			`<faultcode xmlns:rpc="` + core.NamespaceRPC + `">rpc:BadArguments</faultcode>`, core.CodeSender, []xml.Name{{Space: core.NamespaceRPC, Local: "BadArguments"}}},
		{"enc subcode", core.Fault{Code: core.CodeSender, Subcodes: []xml.Name{{Space: core.EncodingStyleV12, Local: "DuplicateID"}}},
			`<faultcode xmlns:enc="` + core.EncodingStyleV12 + `">enc:DuplicateID</faultcode>`, core.CodeSender, []xml.Name{{Space: core.EncodingStyleV12, Local: "DuplicateID"}}},
		{"application subcode", core.Fault{Code: core.CodeSender, Subcodes: []xml.Name{{Space: app, Local: "NoAccount"}}},
			`<faultcode xmlns:fc="urn:app">fc:NoAccount</faultcode>`, core.CodeSender, []xml.Name{{Space: app, Local: "NoAccount"}}},
		{"nested subcodes: the first", core.Fault{Code: core.CodeSender, Subcodes: []xml.Name{{Space: app, Local: "Auth"}, {Space: app, Local: "Expired"}}},
			`<faultcode xmlns:fc="urn:app">fc:Auth</faultcode>`, core.CodeSender, []xml.Name{{Space: app, Local: "Auth"}}},
		{"a subcode without a namespace is not written", core.Fault{Code: core.CodeSender, Subcodes: []xml.Name{{Local: "Auth"}, {Space: app, Local: "Expired"}}},
			`<faultcode xmlns:fc="urn:app">fc:Expired</faultcode>`, core.CodeSender, []xml.Name{{Space: app, Local: "Expired"}}},
		{"only subcodes without a namespace", core.Fault{Code: core.CodeReceiver, Subcodes: []xml.Name{{Local: "Busy"}}},
			`<faultcode>soap:Server</faultcode>`, core.CodeReceiver, nil},
		{"Receiver with an application subcode: its class does not travel", core.Fault{Code: core.CodeReceiver, Subcodes: []xml.Name{{Space: app, Local: "DiskFull"}}},
			`<faultcode xmlns:fc="urn:app">fc:DiskFull</faultcode>`, core.CodeSender, []xml.Name{{Space: app, Local: "DiskFull"}}},
		{"wsa:EndpointUnavailable keeps Receiver", core.Fault{Code: core.CodeReceiver, Subcodes: []xml.Name{{Space: core.NamespaceAddressing, Local: "EndpointUnavailable"}}},
			`<faultcode xmlns:wsa="` + core.NamespaceAddressing + `">wsa:EndpointUnavailable</faultcode>`, core.CodeReceiver, []xml.Name{{Space: core.NamespaceAddressing, Local: "EndpointUnavailable"}}},
		{"MustUnderstand keeps its code", core.Fault{Code: core.CodeMustUnderstand, Subcodes: []xml.Name{{Space: app, Local: "X"}}},
			`<faultcode>soap:MustUnderstand</faultcode>`, core.CodeMustUnderstand, nil},
		{"VersionMismatch keeps its code", core.Fault{Code: core.CodeVersionMismatch, Subcodes: []xml.Name{{Space: app, Local: "X"}}},
			`<faultcode>soap:VersionMismatch</faultcode>`, core.CodeVersionMismatch, nil},
		{"a subcode in the 1.1 envelope namespace is not written", core.Fault{Code: core.CodeSender, Subcodes: []xml.Name{{Space: core.NamespaceV11, Local: "Auth"}}},
			`<faultcode>soap:Client</faultcode>`, core.CodeSender, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := c.f
			f.Reason = "r"
			got, out := writeRead(t, core.V11, &f)
			assert.Contains(t, out, `<soap:Fault>`+c.code+`<faultstring>r</faultstring>`)
			assert.NotRegexp(t, `<faultcode>[^<]*\.`, out, "no dot notation")
			assert.Equal(t, c.back, got.Code)
			assert.Equal(t, c.backSubs, got.Subcodes)
			// written again in 1.1, it is the same
			_, again := writeRead(t, core.V11, got)
			assert.Contains(t, again, c.code)
		})
	}

	// a dotted code read from an older peer is relayed as it came
	f := readFault(t, core.V11, wrap("", `<s:Fault><faultcode>s:Server.userException</faultcode><faultstring>x</faultstring></s:Fault>`))
	assert.Equal(t, core.CodeReceiver, f.Code)
	assert.Equal(t, []xml.Name{{Local: "userException"}}, f.Subcodes)
	_, out := writeRead(t, core.V11, f)
	assert.Contains(t, out, `<faultcode>soap:Server.userException</faultcode>`)
	// and written in 1.2 as a Code with that subcode
	got, _ := writeRead(t, core.V12, f.WithVersion(core.V12))
	assert.Equal(t, core.CodeReceiver, got.Code)
	assert.Equal(t, []xml.Name{{Local: "userException"}}, got.Subcodes)
}
