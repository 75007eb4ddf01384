package core_test

import (
	"bytes"
	"encoding/xml"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/coretest"
)

// xop:Include in header blocks: checked when the package is read, a Binary
// decoded from the block is its part, and the block is written as read into
// an MTOM package (its parts carried); refused outside MTOM.

// xhToken is a header block holding a Binary.
type xhToken struct {
	XMLName xml.Name    `xml:"urn:example:h Token"`
	Value   core.Binary `xml:"urn:example:h value"`
}

// xhEnvelope is a 1.1 envelope with the header block block and a body
// naming img@x.
func xhEnvelope(block string) string {
	return `<s:Envelope xmlns:s="` + core.NamespaceV11 + `" xmlns:xop="` + core.NamespaceXOP + `"><s:Header>` + block +
		`</s:Header><s:Body><p:Upload xmlns:p="urn:example:pk">` + xoInclude("cid:img@x") + `</p:Upload></s:Body></s:Envelope>`
}

// xhBlock is a header block whose value holds inner.
func xhBlock(inner string) string {
	return `<h:Token xmlns:h="urn:example:h"><h:value>` + inner + `</h:value></h:Token>`
}

// xhRead reads an MTOM package: the envelope, img@x and key@x.
func xhRead(t *testing.T, env string) (*core.Message, error) {
	t.Helper()
	pkg := pkPackage(
		pkPart{`Content-Type: application/xop+xml; charset=UTF-8; type="text/xml"` + "\r\nContent-ID: <root@x>\r\n", env},
		pkPart{"Content-Type: image/png\r\nContent-ID: <img@x>\r\n", "PNG"},
		pkPart{"Content-Type: application/octet-stream\r\nContent-ID: <key@x>\r\n", "KEY bytes"},
	)
	m, err := core.ReadPackage(strings.NewReader(pkg), `multipart/related; type="application/xop+xml"; boundary=B; start="<root@x>"; start-info="text/xml"`, core.Limits{})
	if m != nil {
		t.Cleanup(func() { m.Close() })
	}
	return m, err
}

func TestXOPHeaderIncludeResolves(t *testing.T) {
	m, err := xhRead(t, xhEnvelope(xhBlock(`<xop:Include href="cid:key@x"/>`)))
	require.NoError(t, err)
	require.Len(t, m.Envelope.Headers, 1)
	var tok xhToken
	require.NoError(t, m.Envelope.Headers[0].Decode(&tok))
	assert.Same(t, m.Attachment("key@x"), tok.Value.Attachment(), "the Binary is its part")
	assert.Equal(t, "KEY bytes", string(coretest.PartBytes(t, tok.Value.Attachment())))
	assert.Contains(t, string(m.Envelope.Headers[0].XML), `<xop:Include href="cid:key@x"/>`, "the block's XML as read")

	// written again as MTOM: the block as read, each part once
	wire, ct := pkWire(t, m)
	s := string(wire)
	assert.Equal(t, 1, strings.Count(s, `href="cid:key@x"`))
	assert.Equal(t, 1, strings.Count(s, "Content-ID: <key@x>"))
	assert.Equal(t, 1, strings.Count(s, "KEY bytes"))
	back, err := core.ReadPackage(bytes.NewReader(wire), ct, core.Limits{})
	require.NoError(t, err)
	defer back.Close()
	tok = xhToken{}
	require.NoError(t, back.Envelope.Headers[0].Decode(&tok))
	assert.Same(t, back.Attachment("key@x"), tok.Value.Attachment())
	require.NoError(t, back.Body().Discard())
}

// A block copied into another MTOM message carries its part with it.
func TestXOPHeaderIncludeCarriedIntoAnotherMessage(t *testing.T) {
	m, err := xhRead(t, xhEnvelope(xhBlock(`<xop:Include href="cid:key@x"/>`)))
	require.NoError(t, err)
	require.NoError(t, m.Body().Discard())
	out := core.NewMessage(core.V11, core.RawBody([]byte(`<p:Done xmlns:p="urn:example:pk"/>`)))
	out.Packaging = core.MTOM
	out.Envelope.Headers = append(out.Envelope.Headers, m.Envelope.Headers[0])
	wire, ct := pkWire(t, out)
	assert.Equal(t, 1, strings.Count(string(wire), "Content-ID: <key@x>"), "the part the block names, added")
	assert.NotContains(t, string(wire), "Content-ID: <img@x>", "only what the envelope names")
	back, err := core.ReadPackage(bytes.NewReader(wire), ct, core.Limits{})
	require.NoError(t, err)
	defer back.Close()
	var tok xhToken
	require.NoError(t, back.Envelope.Headers[0].Decode(&tok))
	assert.Equal(t, "KEY bytes", string(coretest.PartBytes(t, tok.Value.Attachment())))
}

// A block read with an include is written as read: under SwA or Inline it
// would name no part, so the write fails, saying so.
func TestXOPHeaderIncludeOnlyMTOM(t *testing.T) {
	for _, p := range []core.Packaging{core.SwA, core.Inline} {
		t.Run(p.String(), func(t *testing.T) {
			m, err := xhRead(t, xhEnvelope(xhBlock(`<xop:Include href="cid:key@x"/>`)))
			require.NoError(t, err)
			m.Packaging = p
			_, err = m.WriteTo(io.Discard)
			require.Error(t, err)
			assert.Contains(t, err.Error(), "header block {urn:example:h}Token holds an xop:Include")
			assert.Contains(t, err.Error(), "Packaging "+p.String())
		})
	}
}

func TestXOPHeaderIncludeRefusals(t *testing.T) {
	for _, tc := range []struct{ name, block, reason string }{
		{"no such part", xhBlock(`<xop:Include href="cid:other@x"/>`), "names the part <other@x>, which the package does not have"},
		{"empty cid", xhBlock(`<xop:Include href="cid:"/>`), "which the package does not have"},
		{"not cid", xhBlock(`<xop:Include href="http://example.com/k"/>`), "is not a cid: URL"},
		{"child element", xhBlock(`<xop:Include href="cid:key@x"><h:x/></xop:Include>`), "with a child element"},
		{"text inside", xhBlock(`<xop:Include href="cid:key@x">AAAA</xop:Include>`), "with text in it"},
		{"text beside", xhBlock(`AAAA<xop:Include href="cid:key@x"/>`), "beside other content"},
		{"element after", xhBlock(`<xop:Include href="cid:key@x"/><h:x/>`), "content beside an xop:Include"},
		{"the block itself", `<xop:Include href="cid:key@x"/>`, "as a header block"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := xhRead(t, xhEnvelope(tc.block))
			f := pkFault(t, err, nil)
			assert.Contains(t, f.Reason, "header block ")
			assert.Contains(t, f.Reason, tc.reason)
			assert.Equal(t, core.V11, f.Version)
		})
	}
	t.Run("not an XOP package", func(t *testing.T) {
		env := xhEnvelope(xhBlock(`<xop:Include href="cid:key@x"/>`))
		_, err := core.ReadMessage(strings.NewReader(env), core.Limits{})
		f := pkFault(t, err, nil)
		assert.Contains(t, f.Reason, "header block {urn:example:h}Token: an xop:Include in an envelope alone, not an XOP package (MTOM)")
		_, err = core.ReadMessageBytes([]byte(env), core.Limits{})
		pkFault(t, err, nil)
		_, err = core.ReadPackage(strings.NewReader(env), "text/xml", core.Limits{})
		pkFault(t, err, nil)
		pkg := pkPackage(pkPart{"Content-Type: text/xml\r\n", env}, pkPart{"Content-ID: <key@x>\r\n", "KEY"})
		_, err = core.ReadPackage(strings.NewReader(pkg), "multipart/related; boundary=B", core.Limits{})
		f = pkFault(t, err, nil)
		assert.Contains(t, f.Reason, "an xop:Include in an SwA package")
	})
}

// A block's includes are checked within the limits the package was read
// with, not the defaults: a block nested deeper than the default MaxDepth,
// or declaring (with the Envelope's) more namespaces than the default
// MaxNSDecls, read under raised limits, resolves.
func TestXOPHeaderIncludeUnderRaisedLimits(t *testing.T) {
	deep := strings.Repeat("<h:n>", 140) + `<xop:Include href="cid:key@x"/>` + strings.Repeat("</h:n>", 140)
	var decls strings.Builder
	for i := range 30 {
		decls.WriteString(` xmlns:e` + string(rune('a'+i%26)) + string(rune('a'+i/26)) + `="urn:e"`)
	}
	env := strings.Replace(xhEnvelope(`<h:Token xmlns:h="urn:example:h"`+strings.ReplaceAll(decls.String(), "xmlns:e", "xmlns:f")+`><h:value>`+deep+`</h:value></h:Token>`),
		"<s:Envelope ", "<s:Envelope"+decls.String()+" ", 1)
	pkg := pkPackage(
		pkPart{`Content-Type: application/xop+xml; charset=UTF-8; type="text/xml"` + "\r\n", env},
		pkPart{"Content-Type: image/png\r\nContent-ID: <img@x>\r\n", "PNG"},
		pkPart{"Content-Type: application/octet-stream\r\nContent-ID: <key@x>\r\n", "KEY bytes"},
	)
	m, err := core.ReadPackage(strings.NewReader(pkg), `multipart/related; type="application/xop+xml"; boundary=B`, core.Limits{MaxDepth: 200, MaxNSDecls: 40})
	require.NoError(t, err)
	defer m.Close()
	_, err = m.WriteTo(io.Discard)
	require.NoError(t, err)
}
