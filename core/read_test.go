package core_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
)

var versions = []core.Version{core.V11, core.V12}

// envOf replaces {ns} with v's envelope namespace.
func envOf(v core.Version, s string) string { return strings.ReplaceAll(s, "{ns}", v.Namespace()) }

// wrap builds an envelope (prefix s, namespace {ns}); header "" means no Header.
func wrap(header, body string) string {
	h := ""
	if header != "" {
		h = "<s:Header>" + header + "</s:Header>"
	}
	return `<s:Envelope xmlns:s="{ns}">` + h + "<s:Body>" + body + "</s:Body></s:Envelope>"
}

const reqBody = `<m:Get xmlns:m="urn:m"><m:id>7</m:id></m:Get>`

// readAll reads a message and consumes its body, returning the first error.
func readAll(in string, lim core.Limits) (*core.Message, error) {
	m, err := core.ReadMessage(strings.NewReader(in), lim)
	if err != nil {
		return nil, err
	}
	return m, m.Body().Discard()
}

// requireFault asserts err is a *core.Fault with code and a reason containing reason.
func requireFault(t *testing.T, err error, code core.Code, reason string) *core.Fault {
	t.Helper()
	require.Error(t, err)
	var f *core.Fault
	require.True(t, errors.As(err, &f), "not a fault: %v", err)
	assert.Equal(t, code, f.Code, "code of %v", err)
	assert.Contains(t, f.Reason, reason)
	assert.False(t, f.Remote, "a read error is a local fault")
	return f
}

type readCase struct {
	name   string
	in     string       // {ns} is the envelope namespace
	want   string       // a part of the fault reason
	only   core.Version // 0: both versions
	lazily bool         // detected only when the body is consumed
}

// refusals are envelopes every version refuses with a Sender fault.
var refusals = []readCase{
	{name: "doctype", in: `<!DOCTYPE s:Envelope [<!ENTITY e "x">]>` + wrap("", ""), want: "document type declarations"},
	{name: "pi before root", in: `<?php echo 1?>` + wrap("", ""), want: "processing instruction <?php?>"},
	{name: "pi in header", in: wrap(`<h:a xmlns:h="urn:h"><?x y?></h:a>`, ""), want: "processing instruction"},
	{name: "pi in body", in: wrap("", `<m:a xmlns:m="urn:m"><?x y?></m:a>`), want: "processing instruction", lazily: true},
	{name: "pi after root", in: wrap("", "") + `<?x y?>`, want: "processing instruction"},
	{name: "xml declaration late", in: "\n" + `<?xml version="1.0"?>` + wrap("", ""), want: "XML declaration not at the start"},
	{name: "unbound element prefix", in: wrap("", `<x:a/>`), want: `unbound namespace prefix "x"`},
	{name: "unbound element prefix in header", in: wrap(`<x:a/>`, ""), want: `unbound namespace prefix "x"`},
	{name: "unbound envelope prefix", in: `<s:Envelope><s:Body/></s:Envelope>`, want: `unbound namespace prefix "s"`},
	{name: "unbound attribute prefix", in: wrap("", `<a xmlns="urn:a" x:b="1"/>`), want: `unbound namespace prefix "x"`},
	{name: "unbound attribute prefix in header", in: wrap(`<a xmlns="urn:a" x:b="1"/>`, ""), want: `unbound namespace prefix "x"`},
	{name: "unbound 1.1 faultcode prefix", in: wrap("", `<s:Fault><faultcode>zz:Client</faultcode><faultstring>x</faultstring></s:Fault>`), want: `unbound prefix "zz"`, only: core.V11},
	{name: "unbound 1.2 code prefix", in: wrap("", `<s:Fault><s:Code><s:Value>zz:Sender</s:Value></s:Code><s:Reason><s:Text xml:lang="en">x</s:Text></s:Reason></s:Fault>`), want: `unbound prefix "zz"`, only: core.V12},
	{name: "unbound 1.2 subcode prefix", in: wrap("", `<s:Fault><s:Code><s:Value>s:Sender</s:Value><s:Subcode><s:Value>zz:Auth</s:Value></s:Subcode></s:Code><s:Reason><s:Text xml:lang="en">x</s:Text></s:Reason></s:Fault>`), want: `unbound prefix "zz"`, only: core.V12},
	{name: "duplicate attribute", in: wrap("", `<a xmlns="urn:a" b="1" b="2"/>`), want: "duplicate attribute b"},
	{name: "duplicate prefixed attribute", in: wrap(`<h:a xmlns:h="urn:h" h:b="1" h:b="2"/>`, ""), want: "duplicate attribute h:b"},
	{name: "duplicate expanded attribute", in: wrap("", `<a xmlns="urn:a" xmlns:p="urn:x" xmlns:q="urn:x" p:b="1" q:b="2"/>`), want: "duplicate attribute q:b"},
	{name: "duplicate namespace declaration", in: wrap("", `<a xmlns:p="urn:x" xmlns:p="urn:y" xmlns="urn:a"/>`), want: "duplicate namespace declaration"},
	{name: "mismatched end tag", in: wrap("", `<m:a xmlns:m="urn:m"></m:b>`), want: "closed by </m:b>", lazily: true},
	{name: "mismatched end tag prefix", in: wrap(`<h:a xmlns:h="urn:h" xmlns:g="urn:h"></g:a>`, ""), want: "closed by </g:a>"},
	{name: "mismatched Envelope end", in: `<s:Envelope xmlns:s="{ns}"><s:Body></s:Body></s:Envelopx>`, want: "closed by"},
	{name: "missing end tags", in: `<s:Envelope xmlns:s="{ns}"><s:Body>`, want: "unexpected end of input inside <s:Body>"},
	{name: "element after Envelope", in: wrap("", "") + `<x/>`, want: "content after the root element"},
	{name: "text after Envelope", in: wrap("", "") + `junk`, want: "text outside the root element"},
	{name: "text after Envelope with a body", in: wrap("", reqBody) + ` junk`, want: "text outside the root element", lazily: true},
	{name: "second Envelope", in: wrap("", reqBody) + wrap("", ""), want: "content after the root element", lazily: true},
	{name: "invalid UTF-8 in body", in: wrap("", "<a xmlns=\"urn:a\">\xff</a>"), want: "invalid UTF-8", lazily: true},
	{name: "invalid UTF-8 in header", in: wrap("<a xmlns=\"urn:a\">\xc3\x28</a>", ""), want: "invalid UTF-8"},
	{name: "invalid UTF-8 in a name", in: wrap("", "<a\xff xmlns=\"urn:a\"/>"), want: "invalid XML name"},
	{name: "U+0001 in text", in: wrap("", "<a xmlns=\"urn:a\">x\x01y</a>"), want: "illegal character code U+0001", lazily: true},
	{name: "U+0001 in attribute", in: wrap("<a xmlns=\"urn:a\" b=\"\x01\"/>", ""), want: "illegal character code U+0001"},
	{name: "&#1; in attribute", in: wrap("", `<a xmlns="urn:a" b="&#1;"/>`), want: "illegal character code U+0001"},
	{name: "U+FFFE in text", in: wrap("", `<a xmlns="urn:a">&#xFFFE;</a>`), want: "U+FFFE", lazily: true},
	{name: "root not Envelope", in: `<s:Body xmlns:s="{ns}"/>`, want: "not a SOAP Envelope"},
	{name: "root not an element", in: `   <!-- only a comment -->`, want: "no root element"},
	{name: "empty input", in: ``, want: "no root element"},
	{name: "Header not first", in: `<s:Envelope xmlns:s="{ns}"><x:a xmlns:x="urn:x"/><s:Header/><s:Body/></s:Envelope>`, want: "the Header must be the first child"},
	{name: "Header after Body", in: `<s:Envelope xmlns:s="{ns}"><s:Body/><s:Header/></s:Envelope>`, want: "after the Body (WS-I BP R1011)"},
	{name: "two Headers", in: `<s:Envelope xmlns:s="{ns}"><s:Header/><s:Header/><s:Body/></s:Envelope>`, want: "a second Header"},
	{name: "no Body", in: `<s:Envelope xmlns:s="{ns}"><s:Header/></s:Envelope>`, want: "has no Body"},
	{name: "empty Envelope", in: `<s:Envelope xmlns:s="{ns}"/>`, want: "has no Body"},
	{name: "Body in another namespace", in: `<s:Envelope xmlns:s="{ns}"><b:Body xmlns:b="urn:b"/></s:Envelope>`, want: "where the Header or the Body was expected"},
	{name: "two Bodies", in: `<s:Envelope xmlns:s="{ns}"><s:Body/><s:Body/></s:Envelope>`, want: "two Bodies"},
	{name: "two Bodies after content", in: `<s:Envelope xmlns:s="{ns}"><s:Body>` + reqBody + `</s:Body><s:Body/></s:Envelope>`, want: "two Bodies", lazily: true},
	{name: "element after Body", in: `<s:Envelope xmlns:s="{ns}"><s:Body>` + reqBody + `</s:Body><x:t xmlns:x="urn:x"/></s:Envelope>`, want: "R1011", lazily: true},
	{name: "text after Body", in: `<s:Envelope xmlns:s="{ns}"><s:Body/>trailer</s:Envelope>`, want: "text directly in the Envelope"},
	{name: "two Faults", in: wrap("", fault11+fault11), want: "two Faults", only: core.V11},
	{name: "two Faults 1.2", in: wrap("", fault12+fault12), want: "two Faults", only: core.V12},
	{name: "Fault then a sibling", in: wrap("", fault11+reqBody), want: "only child", only: core.V11},
	{name: "Fault then a sibling 1.2", in: wrap("", fault12+reqBody), want: "only child", only: core.V12},
	{name: "sibling then a Fault", in: wrap("", reqBody+fault11), want: "only child", only: core.V11, lazily: true},
	{name: "sibling then a Fault 1.2", in: wrap("", reqBody+fault12), want: "only child", only: core.V12, lazily: true},
	{name: "Fault without a code", in: wrap("", `<s:Fault><faultstring>x</faultstring></s:Fault>`), want: "without a fault code", only: core.V11},
	{name: "Fault without a code 1.2", in: wrap("", `<s:Fault><s:Reason><s:Text xml:lang="en">x</s:Text></s:Reason></s:Fault>`), want: "without a fault code", only: core.V12},
	{name: "unknown 1.1 fault code", in: wrap("", `<s:Fault><faultcode>s:Sender</faultcode><faultstring>x</faultstring></s:Fault>`), want: "unknown fault code", only: core.V11},
	{name: "unknown 1.2 fault code", in: wrap("", `<s:Fault><s:Code><s:Value>s:Client</s:Value></s:Code><s:Reason><s:Text xml:lang="en">x</s:Text></s:Reason></s:Fault>`), want: "unknown fault code", only: core.V12},
	{name: "text in Fault", in: wrap("", `<s:Fault>oops</s:Fault>`), want: "text directly in the Fault"},
	{name: "text in Envelope", in: `<s:Envelope xmlns:s="{ns}">hello<s:Body/></s:Envelope>`, want: "text directly in the Envelope"},
	{name: "text in Header", in: wrap(`hello`, ""), want: "text directly in the Header"},
	{name: "text in Body", in: wrap("", `hello`), want: "text directly in the Body"},
	{name: "text in Body after a child", in: wrap("", reqBody+`hello`), want: "text directly in the Body", lazily: true},
	{name: "unqualified header block", in: wrap(`<Token>x</Token>`, ""), want: "header block <Token> is not namespace-qualified"},
	{name: "mustUnderstand true in 1.1", in: wrap(`<h:a xmlns:h="urn:h" s:mustUnderstand="true"/>`, ""), want: `SOAP 1.1 allows "1" or "0"`, only: core.V11},
	{name: "mustUnderstand false in 1.1", in: wrap(`<h:a xmlns:h="urn:h" s:mustUnderstand="false"/>`, ""), want: `mustUnderstand="false"`, only: core.V11},
	{name: "mustUnderstand yes", in: wrap(`<h:a xmlns:h="urn:h" s:mustUnderstand="yes"/>`, ""), want: `mustUnderstand="yes" on header block {urn:h}a is not a boolean`},
	{name: "mustUnderstand empty", in: wrap(`<h:a xmlns:h="urn:h" s:mustUnderstand=""/>`, ""), want: `is not a boolean`},
	{name: "relay yes", in: wrap(`<h:a xmlns:h="urn:h" s:relay="yes"/>`, ""), want: `relay="yes" on header block {urn:h}a is not a boolean`, only: core.V12},
	{name: "relay 2", in: wrap(`<h:a xmlns:h="urn:h" s:relay="2"/>`, ""), want: `is not a boolean`, only: core.V12},
	{name: "undeclaring a prefix", in: wrap("", `<p:a xmlns:p="urn:p"><b xmlns:p=""/></p:a>`), want: "cannot be undeclared", lazily: true},
	{name: "binding xmlns", in: wrap("", `<a xmlns="urn:a" xmlns:xmlns="urn:x"/>`), want: "the prefix xmlns cannot be declared"},
}

const (
	fault11 = `<s:Fault><faultcode>s:Client</faultcode><faultstring>bad</faultstring></s:Fault>`
	fault12 = `<s:Fault><s:Code><s:Value>s:Sender</s:Value></s:Code><s:Reason><s:Text xml:lang="en">bad</s:Text></s:Reason></s:Fault>`
)

// accepted are envelopes every version (or the one given) reads.
var accepted = []readCase{
	{name: "plain", in: wrap("", reqBody)},
	{name: "declaration double quotes", in: `<?xml version="1.0" encoding="UTF-8"?>` + wrap("", reqBody)},
	{name: "declaration single quotes", in: `<?xml version='1.0' encoding='utf-8'?>` + wrap("", reqBody)},
	{name: "declaration and newline", in: "<?xml version=\"1.0\"?>\n" + wrap("", reqBody)},
	{name: "declaration us-ascii", in: `<?xml version="1.0" encoding="US-ASCII" standalone="yes"?>` + wrap("", reqBody)},
	{name: "comments and whitespace around", in: "<!-- a -->\n" + wrap("", reqBody) + "\n<!-- after -->\n\t "},
	{name: "comments everywhere", in: `<s:Envelope xmlns:s="{ns}"><!--1--><s:Header><!--2--><h:a xmlns:h="urn:h"><!--3--></h:a></s:Header><!--4--><s:Body><!--5-->` + reqBody + `<!--6--></s:Body><!--7--></s:Envelope>`},
	{name: "empty Header and Body", in: `<s:Envelope xmlns:s="{ns}"><s:Header/><s:Body/></s:Envelope>`},
	{name: "CDATA", in: wrap("", `<a xmlns="urn:a"><![CDATA[<not markup> & ]]></a>`)},
	{name: "CDATA ending in ] before text with >", in: wrap("", `<a xmlns="urn:a"><![CDATA[]]]>]></a>`)}, // written out, "]" + "]>" must not make "]]>"
	{name: "default namespace envelope", in: `<Envelope xmlns="{ns}"><Header><h:a xmlns:h="urn:h"/></Header><Body><b xmlns="urn:b"/></Body></Envelope>`},
	{name: "mustUnderstand 0 and 1", in: wrap(`<h:a xmlns:h="urn:h" s:mustUnderstand="1"/><h:b xmlns:h="urn:h" s:mustUnderstand="0"/>`, "")},
	{name: "mustUnderstand with spaces", in: wrap(`<h:a xmlns:h="urn:h" s:mustUnderstand=" 1 "/>`, "")},
	{name: "mustUnderstand true in 1.2", in: wrap(`<h:a xmlns:h="urn:h" s:mustUnderstand="true"/><h:b xmlns:h="urn:h" s:mustUnderstand="false"/>`, ""), only: core.V12},
	{name: "relay in 1.2", in: wrap(`<h:a xmlns:h="urn:h" s:relay="true"/><h:b xmlns:h="urn:h" s:relay="0"/>`, ""), only: core.V12},
	{name: "relay is not a 1.1 attribute", in: wrap(`<h:a xmlns:h="urn:h" s:relay="maybe"/>`, ""), only: core.V11},
	{name: "other version's mustUnderstand is ignored", in: strings.ReplaceAll(wrap(`<h:a xmlns:h="urn:h" o:mustUnderstand="yes"/>`, ""), "<s:Envelope ", `<s:Envelope xmlns:o="urn:other" `)},
	{name: "fault", in: wrap("", fault11), only: core.V11},
	{name: "fault 1.2", in: wrap("", fault12), only: core.V12},
	{name: "xml prefix is implicit", in: wrap("", `<a xmlns="urn:a" xml:lang="en" xmlns:xml="http://www.w3.org/XML/1998/namespace"/>`)},
}

func TestReadRefusesWithSenderFault(t *testing.T) {
	for _, v := range versions {
		for _, tc := range refusals {
			if tc.only != 0 && tc.only != v {
				continue
			}
			t.Run(v.String()+"/"+tc.name, func(t *testing.T) {
				in := envOf(v, tc.in)
				m, err := core.ReadMessage(strings.NewReader(in), core.Limits{})
				if tc.lazily {
					require.NoError(t, err, "found before the body is read")
					err = m.Body().Discard()
				}
				requireFault(t, err, core.CodeSender, tc.want)
				assert.True(t, errors.Is(err, &core.Fault{Code: core.CodeSender}))
			})
		}
	}
}

func TestReadAccepts(t *testing.T) {
	for _, v := range versions {
		for _, tc := range accepted {
			if tc.only != 0 && tc.only != v {
				continue
			}
			t.Run(v.String()+"/"+tc.name, func(t *testing.T) {
				m, err := readAll(envOf(v, tc.in), core.Limits{})
				require.NoError(t, err)
				assert.Equal(t, v, m.Version())
			})
		}
	}
}

func TestReadTruncatedEverywhere(t *testing.T) {
	for _, v := range versions {
		full := envOf(v, `<?xml version="1.0"?><s:Envelope xmlns:s="{ns}"><s:Header><h:a xmlns:h="urn:h" s:mustUnderstand="1">x</h:a></s:Header><s:Body>`+reqBody+`</s:Body></s:Envelope>`)
		_, err := readAll(full, core.Limits{})
		require.NoError(t, err)
		for n := 0; n < len(full); n++ {
			_, err := readAll(full[:n], core.Limits{})
			f := requireFault(t, err, core.CodeSender, "")
			assert.NotEmpty(t, f.Reason, "cut at %d", n)
		}
	}
}

func TestReadVersionMismatch(t *testing.T) {
	for _, in := range []string{
		`<s:Envelope xmlns:s="urn:not-soap"><s:Body/></s:Envelope>`,
		`<Envelope><Body/></Envelope>`,
		`<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope"><s:Body/></s:Envelope>`, // no trailing slash
	} {
		_, err := core.ReadMessage(strings.NewReader(in), core.Limits{})
		f := requireFault(t, err, core.CodeVersionMismatch, "is not SOAP 1.1 or 1.2")
		assert.True(t, errors.Is(err, &core.Fault{Code: core.CodeVersionMismatch}))
		assert.False(t, errors.Is(err, &core.Fault{Code: core.CodeSender}))
		assert.Zero(t, f.Version)
	}
}

// utf16 encodes s with a byte order mark.
func utf16(s string, big bool) []byte {
	var out []byte
	if big {
		out = []byte{0xFE, 0xFF}
	} else {
		out = []byte{0xFF, 0xFE}
	}
	for _, r := range s {
		units := []uint16{uint16(r)}
		if r > 0xFFFF {
			r -= 0x10000
			units = []uint16{uint16(0xD800 + (r >> 10)), uint16(0xDC00 + (r & 0x3FF))}
		}
		for _, u := range units {
			if big {
				out = append(out, byte(u>>8), byte(u))
			} else {
				out = append(out, byte(u), byte(u>>8))
			}
		}
	}
	return out
}

func TestReadEncodings(t *testing.T) {
	const text = "héllo € 𝄞 日本"
	type payload struct {
		Text string `xml:"urn:m text"`
	}
	for _, v := range versions {
		doc := func(decl string) string {
			return envOf(v, decl+wrap("", `<m:Get xmlns:m="urn:m"><m:text>`+text+`</m:text></m:Get>`))
		}
		cases := []struct {
			name string
			in   []byte
		}{
			{"utf-8", []byte(doc(`<?xml version="1.0" encoding="utf-8"?>`))},
			{"utf-8 BOM", append([]byte{0xEF, 0xBB, 0xBF}, doc(`<?xml version="1.0" encoding="UTF-8"?>`)...)},
			{"utf-8 BOM no declaration", append([]byte{0xEF, 0xBB, 0xBF}, doc("")...)},
			{"utf-16 LE", utf16(doc(`<?xml version="1.0" encoding="UTF-16"?>`), false)},
			{"utf-16 BE", utf16(doc(`<?xml version="1.0" encoding="UTF-16"?>`), true)},
			{"utf-16 BE no declaration", utf16(doc(""), true)},
		}
		for _, tc := range cases {
			t.Run(v.String()+"/"+tc.name, func(t *testing.T) {
				m, err := core.ReadMessage(strings.NewReader(string(tc.in)), core.Limits{})
				require.NoError(t, err)
				var p payload
				require.NoError(t, m.Body().Decode(&p))
				assert.Equal(t, text, p.Text)
			})
		}
		refused := []struct{ name, in, want string }{
			{"latin-1 declared", doc(`<?xml version="1.0" encoding="ISO-8859-1"?>`), `unsupported encoding "ISO-8859-1"`},
			{"utf-16 declared without BOM", doc(`<?xml version="1.0" encoding="UTF-16"?>`), `unsupported encoding "UTF-16"`},
			{"utf-16 truncated", string(utf16(doc(""), false)[:41]), "truncated UTF-16"},
			{"utf-16 lone surrogate", string(append(utf16(`<a`, false), 0x00, 0xD8, 0x41, 0x00)), "surrogate"},
		}
		for _, tc := range refused {
			t.Run(v.String()+"/"+tc.name, func(t *testing.T) {
				_, err := readAll(tc.in, core.Limits{})
				requireFault(t, err, core.CodeSender, tc.want)
			})
		}
	}
}

func TestReadSenderFaultCarriesVersion(t *testing.T) {
	for _, v := range versions {
		_, err := core.ReadMessage(strings.NewReader(envOf(v, wrap("", "text"))), core.Limits{})
		f := requireFault(t, err, core.CodeSender, "text directly in the Body")
		assert.Equal(t, v, f.Version, "a fault answering a %s envelope is written in %s", v, v)
	}
}

func TestReadErrorIsSticky(t *testing.T) {
	in := envOf(core.V12, wrap("", reqBody+`<x:y xmlns:x="urn:x"/>`+`</bad>`))
	m, err := core.ReadMessage(strings.NewReader(in), core.Limits{})
	require.NoError(t, err)
	err1 := m.Body().Discard()
	require.Error(t, err1)
	assert.Equal(t, err1, m.Body().Discard())
	_, err = m.Body().Token()
	assert.Equal(t, err1, err)
}

func TestDefaultLimits(t *testing.T) {
	assert.Equal(t, core.Limits{
		MaxBytes: 16 << 20, MaxHeaderBytes: 64 << 10, MaxDepth: 128, MaxAttrs: 64, MaxNSDecls: 32, MaxNameLen: 256,
		MaxParts: 100, MaxPartBytes: 16 << 20, MaxPackageBytes: 64 << 20, MaxPartHeaderBytes: 8 << 10, SpoolThreshold: 1 << 20,
	}, core.DefaultLimits())
	u := core.Unlimited()
	assert.Equal(t, core.Limits{-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, ""}, u)
}

// limitCase builds an input that needs exactly n of a limit.
type limitCase struct {
	name string
	doc  func(n int) string // {ns} is the envelope namespace
	set  func(l *core.Limits, n int)
	n    int // a value to test around
	def  int // the default
}

func nested(n int) string {
	return strings.Repeat(`<a xmlns="urn:a">`, n) + strings.Repeat(`</a>`, n)
}

func attrs(n int) string {
	var b strings.Builder
	b.WriteString(`<a xmlns="urn:a"`)
	for i := range n {
		fmt.Fprintf(&b, ` a%d="v"`, i)
	}
	b.WriteString(`/>`)
	return b.String()
}

func decls(n int) string {
	var b strings.Builder
	b.WriteString(`<a`)
	for i := range n {
		fmt.Fprintf(&b, ` xmlns:p%d="urn:p%d"`, i, i)
	}
	b.WriteString(`/>`)
	return b.String()
}

var limitCases = []limitCase{
	{name: "depth", doc: func(n int) string { return wrap("", nested(n-2)) }, set: func(l *core.Limits, n int) { l.MaxDepth = n }, n: 10, def: 128},
	{name: "depth in header", doc: func(n int) string { return wrap(strings.Replace(nested(n-2), "urn:a", "urn:h", 1), "") }, set: func(l *core.Limits, n int) { l.MaxDepth = n }, n: 10, def: 128},
	{name: "attributes", doc: func(n int) string { return wrap("", attrs(n)) }, set: func(l *core.Limits, n int) { l.MaxAttrs = n }, n: 5, def: 64},
	{name: "attributes in header", doc: func(n int) string { return wrap(attrs(n), "") }, set: func(l *core.Limits, n int) { l.MaxAttrs = n }, n: 5, def: 64},
	{name: "namespace declarations", doc: func(n int) string { return wrap("", decls(n)) }, set: func(l *core.Limits, n int) { l.MaxNSDecls = n }, n: 5, def: 32},
	{name: "local name", doc: func(n int) string {
		x := strings.Repeat("x", n)
		return wrap("", `<`+x+` xmlns="urn:a"/>`)
	}, set: func(l *core.Limits, n int) { l.MaxNameLen = n }, n: 20, def: 256},
	{name: "prefix", doc: func(n int) string {
		p := strings.Repeat("p", n)
		return wrap("", `<`+p+`:a xmlns:`+p+`="urn:a"/>`)
	}, set: func(l *core.Limits, n int) { l.MaxNameLen = n }, n: 20, def: 256},
	{name: "attribute name", doc: func(n int) string {
		return wrap("", `<a xmlns="urn:a" `+strings.Repeat("b", n)+`="1"/>`)
	}, set: func(l *core.Limits, n int) { l.MaxNameLen = n }, n: 20, def: 256},
}

func TestReadLimits(t *testing.T) {
	for _, v := range versions {
		for _, tc := range limitCases {
			t.Run(v.String()+"/"+tc.name, func(t *testing.T) {
				for _, n := range []int{tc.n, tc.def} {
					var under, over core.Limits
					tc.set(&under, n)
					tc.set(&over, n-1)
					in := envOf(v, tc.doc(n))
					_, err := readAll(in, under)
					require.NoError(t, err, "at the limit %d", n)
					_, err = readAll(in, over)
					requireFault(t, err, core.CodeSender, "")
					assert.ErrorIs(t, err, core.ErrLimit)
					assert.NotErrorIs(t, err, core.ErrTooLarge)
					if n == tc.def {
						_, err = readAll(in, core.Limits{})
						require.NoError(t, err, "the default is %d", n)
						_, err = readAll(envOf(v, tc.doc(n+1)), core.Limits{})
						assert.ErrorIs(t, err, core.ErrLimit, "the default is %d", n)
					}
					var unlimited core.Limits
					tc.set(&unlimited, -1)
					_, err = readAll(envOf(v, tc.doc(n*3)), unlimited)
					require.NoError(t, err, "a negative limit is no limit")
				}
			})
		}
	}
}

func TestReadMaxBytes(t *testing.T) {
	for _, v := range versions {
		in := envOf(v, wrap(`<h:a xmlns:h="urn:h">x</h:a>`, reqBody))
		n := int64(len(in))
		_, err := readAll(in, core.Limits{MaxBytes: n})
		require.NoError(t, err)
		_, err = readAll(in, core.Limits{MaxBytes: n - 1})
		f := requireFault(t, err, core.CodeSender, fmt.Sprintf("larger than %d bytes", n-1))
		assert.ErrorIs(t, f, core.ErrTooLarge)
		assert.NotErrorIs(t, f, core.ErrLimit)
		// cut inside the header: found by ReadMessage itself
		_, err = core.ReadMessage(strings.NewReader(in), core.Limits{MaxBytes: 60})
		assert.ErrorIs(t, err, core.ErrTooLarge)
	}
	big := envOf(core.V12, wrap("", `<a xmlns="urn:a">`+strings.Repeat("z", 16<<20)+`</a>`))
	_, err := readAll(big, core.Limits{})
	assert.ErrorIs(t, err, core.ErrTooLarge, "the default is 16 MiB")
	if testing.Short() {
		t.Log("-short: the 16 MiB read with no limit is skipped")
		return
	}
	_, err = readAll(big, core.Limits{MaxBytes: -1})
	require.NoError(t, err, "a negative limit is no limit")
}

func TestReadMaxHeaderBytes(t *testing.T) {
	for _, v := range versions {
		blocks := strings.Repeat(`<h:a xmlns:h="urn:h">0123456789</h:a>`, 10)
		in := envOf(v, wrap(blocks, reqBody))
		// the Header's bytes: its content and its end tag
		size := int64(len(blocks) + len("</s:Header>"))
		_, err := readAll(in, core.Limits{MaxHeaderBytes: size})
		require.NoError(t, err)
		_, err = readAll(in, core.Limits{MaxHeaderBytes: size - 1})
		requireFault(t, err, core.CodeSender, fmt.Sprintf("the Header is larger than %d bytes", size-1))
		assert.ErrorIs(t, err, core.ErrLimit)
		_, err = readAll(in, core.Limits{MaxHeaderBytes: -1})
		require.NoError(t, err)

		// a Fault is bounded by it too
		reason := strings.Repeat("r", 200)
		fin := envOf(v, wrap("", strings.ReplaceAll(map[core.Version]string{core.V11: fault11, core.V12: fault12}[v], "bad", reason)))
		_, err = readAll(fin, core.Limits{MaxHeaderBytes: 100})
		requireFault(t, err, core.CodeSender, "the Fault is larger than 100 bytes")
		assert.ErrorIs(t, err, core.ErrLimit)
		_, err = readAll(fin, core.Limits{MaxHeaderBytes: 1000})
		require.NoError(t, err)

		// the default: 64 KiB
		huge := envOf(v, wrap(`<h:a xmlns:h="urn:h">`+strings.Repeat("z", 64<<10)+`</h:a>`, ""))
		_, err = readAll(huge, core.Limits{})
		assert.ErrorIs(t, err, core.ErrLimit)
		_, err = readAll(huge, core.Limits{MaxHeaderBytes: 65 << 10})
		require.NoError(t, err)
	}
}
