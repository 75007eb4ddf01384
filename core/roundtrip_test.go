package core_test

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
)

// canonXML renders an XML fragment as a namespace-resolved token stream:
// names as {uri}local, attributes sorted, xmlns declarations and prefixes
// ignored, adjacent text merged, whitespace-only text between top-level
// children dropped.
func canonXML(raw []byte) (string, error) {
	d := xml.NewDecoder(io.MultiReader(strings.NewReader("<canon-root>"), bytes.NewReader(raw), strings.NewReader("</canon-root>")))
	var b strings.Builder
	var text []byte
	depth := 0
	flush := func() {
		if len(text) > 0 && (depth > 1 || strings.TrimSpace(string(text)) != "") {
			fmt.Fprintf(&b, "T%q\n", text)
		}
		text = text[:0]
	}
	for {
		tok, err := d.Token()
		if err == io.EOF {
			flush()
			return b.String(), nil
		}
		if err != nil {
			return "", err
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			flush()
			depth++
			var as []string
			for _, a := range tok.Attr {
				if a.Name.Space == "xmlns" || (a.Name.Space == "" && a.Name.Local == "xmlns") {
					continue
				}
				as = append(as, fmt.Sprintf("{%s}%s=%q", a.Name.Space, a.Name.Local, a.Value))
			}
			slices.Sort(as)
			fmt.Fprintf(&b, "S{%s}%s %s\n", tok.Name.Space, tok.Name.Local, strings.Join(as, " "))
		case xml.EndElement:
			flush()
			depth--
			fmt.Fprintf(&b, "E{%s}%s\n", tok.Name.Space, tok.Name.Local)
		case xml.CharData:
			text = append(text, tok...)
		case xml.Comment:
			flush()
			fmt.Fprintf(&b, "C%q\n", []byte(tok))
		}
	}
}

// canonical reads in as a message and renders everything it says: version,
// addressing, header blocks (fields and canonical XML) and the body (its
// canonical XML, or the fault's fields). It consumes the body.
func canonical(in []byte, lim core.Limits) (string, error) {
	m, err := core.ReadMessage(bytes.NewReader(in), lim)
	if err != nil {
		return "", err
	}
	return canonicalMessage(m)
}

func canonicalMessage(m *core.Message) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "version %s\naction %q id %q relatesTo %q to %q replyTo %q faultTo %q\n",
		m.Version(), m.Action, m.ID, m.RelatesTo, m.To, m.ReplyTo, m.FaultTo)
	for _, h := range m.Envelope.Headers {
		x, err := canonXML(h.XML)
		if err != nil {
			return "", fmt.Errorf("header block %v: %w", h.Name, err)
		}
		fmt.Fprintf(&b, "header %v role %q mu %v relay %v enc %q\n%s", h.Name, h.Role, h.MustUnderstand, h.Relay, h.EncodingStyle, x)
	}
	body := m.Body()
	if f := body.Fault(); f != nil {
		detail, err := canonXML(f.Detail)
		if err != nil {
			return "", fmt.Errorf("fault detail: %w", err)
		}
		lang := f.Lang
		if lang == "" && m.Version() == core.V12 {
			lang = "en" // documented: "" is written as "en" in 1.2
		}
		fmt.Fprintf(&b, "fault %v subcodes %v reason %q lang %q translations %q node %q role %q notUnderstood %v detail %v\n%s",
			f.Code, f.Subcodes, f.Reason, lang, f.Translations, f.Node, f.Role, f.NotUnderstood, f.Detail != nil, detail)
		return b.String(), nil
	}
	fmt.Fprintf(&b, "body %v empty %v\n", body.Name(), body.IsEmpty())
	var buf bytes.Buffer
	if _, err := body.WriteTo(&buf); err != nil {
		return "", err
	}
	x, err := canonXML(buf.Bytes())
	if err != nil {
		return "", fmt.Errorf("body: %w", err)
	}
	b.WriteString(x)
	return b.String(), nil
}

// write reads in and writes it back (addressing included).
func rewrite(in []byte, lim core.Limits, o core.WriteOptions) ([]byte, error) {
	m, err := core.ReadMessage(bytes.NewReader(in), lim)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if _, err := m.Write(&buf, o); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// rereadLimits are the limits for reading what was written: namespace
// completion declares every prefix in scope on each header block and body
// child, so written headers may be larger than the ones read.
var rereadLimits = core.Limits{MaxHeaderBytes: -1, MaxNSDecls: -1}

// checkRoundTrip asserts that an accepted input writes, re-reads to the same
// canonical envelope, and that writing is a fixed point after one pass.
func checkRoundTrip(t testing.TB, in []byte, lim core.Limits, o core.WriteOptions) {
	t.Helper()
	want, err := canonical(in, lim)
	require.NoError(t, err)
	w1, err := rewrite(in, lim, o)
	require.NoError(t, err)
	got, err := canonical(w1, rereadLimits)
	require.NoError(t, err, "re-reading %s", w1)
	require.Equal(t, want, got, "input:\n%q\nwritten:\n%s", in, w1)
	w2, err := rewrite(w1, rereadLimits, o)
	require.NoError(t, err)
	w3, err := rewrite(w2, rereadLimits, o)
	require.NoError(t, err)
	// Header blocks and fault details are kept byte for byte and made
	// namespace-complete when read, so the first re-read may add the writer's
	// envelope prefix to them once; after that, writing is a fixed point.
	require.Equal(t, string(w2), string(w3), "writing is a fixed point")
}

func TestRoundTripAccepted(t *testing.T) {
	for _, v := range versions {
		for _, tc := range accepted {
			if tc.only != 0 && tc.only != v {
				continue
			}
			t.Run(v.String()+"/"+tc.name, func(t *testing.T) {
				checkRoundTrip(t, []byte(envOf(v, tc.in)), core.Limits{}, core.WriteOptions{})
			})
		}
	}
}

// roundTrips are richer envelopes: every part the reader understands.
var roundTrips = []readCase{
	{name: "rich", in: `<s:Envelope xmlns:s="{ns}" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:wsa="http://www.w3.org/2005/08/addressing">` +
		`<s:Header><wsa:MessageID>urn:uuid:1</wsa:MessageID><wsa:Action>urn:act</wsa:Action><wsa:ReplyTo><wsa:Address>mailto:a@example.com</wsa:Address></wsa:ReplyTo>` +
		`<h:sec xmlns:h="urn:h" s:mustUnderstand="1" s:actor="urn:r" s:role="urn:r" s:relay="true" s:encodingStyle="urn:e"><h:user xsi:type="xsd:string">bob &amp; alice</h:user><!-- c --></h:sec></s:Header>` +
		`<s:Body><m:Get xmlns:m="urn:m" m:a="&lt;&quot;&#9;&#10;&#13;"><m:id>7</m:id> <![CDATA[x]]>&#13;<m:e/></m:Get><m:Next xmlns:m="urn:n"/></s:Body></s:Envelope>`},
	{name: "fault", only: core.V11, in: `<s:Envelope xmlns:s="{ns}"><s:Body><s:Fault xmlns:e="urn:e"><faultcode>s:Client.Auth.Expired</faultcode><faultstring xml:lang="de">schlecht</faultstring><faultactor>urn:node</faultactor><detail>text<e:d e:x="1">y</e:d></detail></s:Fault></s:Body></s:Envelope>`},
	{name: "custom faultcode", only: core.V11, in: `<s:Envelope xmlns:s="{ns}"><s:Body><s:Fault><faultcode xmlns:c="urn:custom">c:Busy</faultcode><faultstring>try later</faultstring></s:Fault></s:Body></s:Envelope>`},
	{name: "fault", only: core.V12, in: `<s:Envelope xmlns:s="{ns}" xmlns:e="urn:e"><s:Header><s:NotUnderstood qname="e:sec" xmlns:e="urn:h"/><s:Upgrade><s:SupportedEnvelope qname="s:Envelope"/></s:Upgrade></s:Header><s:Body><s:Fault>` +
		`<s:Code><s:Value>s:Sender</s:Value><s:Subcode><s:Value>e:Auth</s:Value><s:Subcode><s:Value xmlns:f="urn:f">f:Expired</s:Value></s:Subcode></s:Subcode></s:Code>` +
		`<s:Reason><s:Text xml:lang="en">bad</s:Text><s:Text xml:lang="fr">mauvais</s:Text></s:Reason><s:Node>urn:node</s:Node><s:Role>urn:role</s:Role>` +
		`<s:Detail><e:d>1</e:d></s:Detail></s:Fault></s:Body></s:Envelope>`},
}

func TestRoundTripRich(t *testing.T) {
	for _, v := range versions {
		for _, tc := range roundTrips {
			if tc.only != 0 && tc.only != v {
				continue
			}
			for _, o := range []core.WriteOptions{{}, {Prefix: "env", XMLDeclaration: true}, {Prefix: "wsa"}, {Prefix: "s"}} {
				t.Run(fmt.Sprintf("%s/%s/%s", v, tc.name, o.Prefix), func(t *testing.T) {
					checkRoundTrip(t, []byte(envOf(v, tc.in)), core.Limits{}, o)
				})
			}
		}
	}
}

func TestCanonicalIgnoresPrefixesOnly(t *testing.T) {
	a := envOf(core.V12, `<s:Envelope xmlns:s="{ns}"><s:Body><m:a xmlns:m="urn:m" m:b="1"/></s:Body></s:Envelope>`)
	b := envOf(core.V12, `<Envelope xmlns="{ns}"><Body><a xmlns="urn:m" xmlns:q="urn:m" q:b="1"></a></Body></Envelope>`)
	c := envOf(core.V12, `<Envelope xmlns="{ns}"><Body><a xmlns="urn:m" xmlns:q="urn:m" q:b="2"></a></Body></Envelope>`)
	ca, err := canonical([]byte(a), core.Limits{})
	require.NoError(t, err)
	cb, err := canonical([]byte(b), core.Limits{})
	require.NoError(t, err)
	cc, err := canonical([]byte(c), core.Limits{})
	require.NoError(t, err)
	assert.Equal(t, ca, cb)
	assert.NotEqual(t, ca, cc, "the canonical form sees values")
}

func TestRoundTripBodyIsFixedAfterOnePass(t *testing.T) {
	for _, v := range versions {
		for _, o := range []core.WriteOptions{{}, {Prefix: "s"}, {Prefix: "env", XMLDeclaration: true}} {
			in := []byte(envOf(v, `<s:Envelope xmlns:s="{ns}" xmlns:x="urn:x"><s:Body><m:Get xmlns:m="urn:m" x:a="1"><m:id>7</m:id></m:Get><m:More xmlns:m="urn:m2"/></s:Body></s:Envelope>`))
			w1, err := rewrite(in, core.Limits{}, o)
			require.NoError(t, err)
			w2, err := rewrite(w1, core.Limits{}, o)
			require.NoError(t, err)
			assert.Equal(t, string(w1), string(w2), "write(read(write(read(x)))) == write(read(x))")
		}
	}
}
