package xsd_test

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/xsd"
)

const mimeSchema = `<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xmime="http://www.w3.org/2005/05/xmlmime"
  xmlns:tns="urn:docs" targetNamespace="urn:docs" elementFormDefault="qualified">
  <xs:import namespace="http://www.w3.org/2005/05/xmlmime"/>
  <xs:simpleType name="Blob"><xs:restriction base="xs:base64Binary"><xs:maxLength value="100"/></xs:restriction></xs:simpleType>
  <xs:complexType name="Tagged"><xs:simpleContent><xs:extension base="xs:base64Binary">
    <xs:attribute ref="xmime:contentType"/></xs:extension></xs:simpleContent></xs:complexType>
  <xs:element name="doc" type="xs:base64Binary" xmime:expectedContentTypes=" application/pdf, image/* "/>
  <xs:element name="derived" type="tns:Blob" xmime:expectedContentTypes="*/*"/>
  <xs:element name="plain" type="xs:base64Binary"/>
  <xs:element name="hex" type="xs:hexBinary" xmime:expectedContentTypes="*/*"/>
  <xs:element name="typed" type="xmime:base64Binary"/>
  <xs:element name="tagged" type="tns:Tagged"/>
  <xs:element name="holder"><xs:complexType><xs:sequence>
    <xs:element name="local" type="xs:base64Binary" xmime:expectedContentTypes="text/plain"/>
  </xs:sequence></xs:complexType></xs:element>
</xs:schema>`

func loadMime(t *testing.T) *xsd.Set {
	t.Helper()
	set, err := xsd.Load(t.Context(), xsd.MapLoader{"docs.xsd": []byte(mimeSchema)}, "docs.xsd")
	require.NoError(t, err)
	return set
}

// TestXMLMimeSchema: xmime:expectedContentTypes is read on global and
// local element declarations (trimmed); MIMEBinary is true for a
// base64Binary element (or one of a restriction of it) that carries it, or
// whose type has an xmime:contentType attribute (xmime:base64Binary, a
// type of the contract's own), and false for a plain base64Binary element
// and a hexBinary one.
func TestXMLMimeSchema(t *testing.T) {
	set := loadMime(t)
	el := func(local string) *xsd.Element {
		e := set.Element(q("urn:docs", local))
		require.NotNil(t, e, local)
		return e
	}
	assert.Equal(t, "application/pdf, image/*", el("doc").ExpectedContentTypes)
	assert.Equal(t, "", el("plain").ExpectedContentTypes)
	for local, want := range map[string]bool{"doc": true, "derived": true, "plain": false, "hex": false, "typed": true, "tagged": true} {
		assert.Equal(t, want, el(local).MIMEBinary(), local)
	}
	assert.True(t, xsd.IsBase64(el("derived").Type))
	assert.False(t, xsd.IsBase64(el("hex").Type))
	assert.True(t, xsd.IsBase64(el("typed").Type), "xmime:base64Binary: simple content of base64Binary")
	require.NotNil(t, xsd.ContentTypeAttribute(el("typed").Type))
	assert.Nil(t, xsd.ContentTypeAttribute(el("doc").Type))
	holder := el("holder").Type.(*xsd.ComplexType)
	local := holder.EffectiveParticle().Group.Particles[0].Element
	assert.Equal(t, "text/plain", local.ExpectedContentTypes)
	assert.True(t, local.MIMEBinary())
}

func encodeBinary(t *testing.T, p core.Packaging, b core.Binary) ([]byte, []*core.Attachment) {
	t.Helper()
	var buf bytes.Buffer
	e := xsd.NewEncoder(&buf)
	e.SetPackaging(p)
	require.NoError(t, e.Binary("urn:docs", "doc", xsd.NewSimples().Builtin(xsd.KindBase64Binary), b))
	require.NoError(t, e.Flush())
	return buf.Bytes(), e.Attachments()
}

// TestEncoderBinary: Encoder.Binary writes a core.Binary as an xop:Include
// naming its attachment under MTOM (Attachments lists it), as base64 under
// Inline and SwA, with its ContentType as xmime:contentType; the zero
// Binary is an empty element.
func TestEncoderBinary(t *testing.T) {
	a := core.BytesAttachment("application/pdf", []byte("%PDF-1.7 <&>"))
	b := core.NewBinary(a)
	b.ContentType = "application/pdf"
	out, atts := encodeBinary(t, core.MTOM, b)
	assert.Equal(t, `<ns0:doc xmlns:ns0="urn:docs" xmlns:ns1="http://www.w3.org/2005/05/xmlmime" ns1:contentType="application/pdf">`+
		`<ns2:Include xmlns:ns2="http://www.w3.org/2004/08/xop/include" href="cid:`+a.ID+`"/></ns0:doc>`, string(out))
	assert.Equal(t, []*core.Attachment{a}, atts)
	for _, p := range []core.Packaging{core.Inline, core.SwA} {
		out, atts = encodeBinary(t, p, core.NewBinary(a))
		assert.Equal(t, `<ns0:doc xmlns:ns0="urn:docs">JVBERi0xLjcgPCY+</ns0:doc>`, string(out), p)
		assert.Empty(t, atts)
	}
	out, atts = encodeBinary(t, core.MTOM, core.Binary{})
	assert.Equal(t, `<ns0:doc xmlns:ns0="urn:docs"/>`, string(out))
	assert.Empty(t, atts)
}

func decodeBinary(t *testing.T, r xsd.TokenReader, nillable bool) (core.Binary, bool, error) {
	t.Helper()
	d := xsd.NewDecoder(r)
	st, err := d.Element("urn:docs", "doc")
	require.NoError(t, err)
	simple := xsd.NewSimples().Builtin(xsd.KindBase64Binary)
	if nillable {
		return d.BinaryNillable(st, simple)
	}
	b, err := d.Binary(st, simple)
	return b, false, err
}

func bytesOf(t *testing.T, b core.Binary) string {
	t.Helper()
	rc, err := b.Open()
	require.NoError(t, err)
	defer rc.Close()
	data, err := io.ReadAll(rc)
	require.NoError(t, err)
	return string(data)
}

// TestDecoderBinary: Decoder.Binary reads base64 text (white space
// allowed) from any reader, the xmime:contentType attribute into
// ContentType; xsi:nil on a nillable element; refuses bad base64, a child
// element, another attribute and xsi:nil where not nillable, naming the
// element.
func TestDecoderBinary(t *testing.T) {
	const ns = `xmlns="urn:docs" xmlns:m="http://www.w3.org/2005/05/xmlmime" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"`
	b, _, err := decodeBinary(t, xsd.BytesReader([]byte(`<doc `+ns+` m:contentType="text/plain">aGVs
	bG8=</doc>`)), false)
	require.NoError(t, err)
	assert.Equal(t, "hello", bytesOf(t, b))
	assert.Equal(t, "text/plain", b.ContentType)
	_, isNil, err := decodeBinary(t, xsd.BytesReader([]byte(`<doc `+ns+` xsi:nil="true"/>`)), true)
	require.NoError(t, err)
	assert.True(t, isNil)
	for _, bad := range []struct{ in, want string }{
		{`<doc ` + ns + `>a*b=</doc>`, "doc"},
		{`<doc ` + ns + `><x/></doc>`, "not allowed inside a simple value"},
		{`<doc ` + ns + ` other="1">aGk=</doc>`, "attribute other"},
		{`<doc ` + ns + ` xsi:nil="true"/>`, "not nillable"},
	} {
		_, _, err := decodeBinary(t, xsd.BytesReader([]byte(bad.in)), false)
		require.Error(t, err, bad.in)
		assert.Contains(t, err.Error(), bad.want, bad.in)
		var ve *xsd.ValueError
		assert.True(t, errors.As(err, &ve), bad.in)
	}
}

// TestDecoderBinaryFromPart: reading an MTOM message's body, Decoder.Binary
// takes the xop:Include's part itself (the same *core.Attachment: no
// copy), and the decoder reads on after it; inline base64 in the same
// message is decoded.
func TestDecoderBinaryFromPart(t *testing.T) {
	part := core.BytesAttachment("application/pdf", []byte(strings.Repeat("pdf!", 1000)))
	m := core.NewMessage(core.V11, core.RawBody([]byte(`<ns0:up xmlns:ns0="urn:docs"><ns0:doc>`+
		`<xop:Include xmlns:xop="http://www.w3.org/2004/08/xop/include" href="cid:`+part.ID+`"/></ns0:doc>`+
		`<ns0:doc>aGk=</ns0:doc></ns0:up>`)))
	m.Packaging = core.MTOM
	m.Attachments = append(m.Attachments, part)
	var buf bytes.Buffer
	_, err := m.WriteTo(&buf)
	require.NoError(t, err)
	got, err := core.ReadPackage(&buf, m.ContentType(), core.Limits{})
	require.NoError(t, err)
	defer got.Close()
	d := xsd.NewDecoder(got.Body())
	_, err = d.Element("urn:docs", "up")
	require.NoError(t, err)
	simple := xsd.NewSimples().Builtin(xsd.KindBase64Binary)
	st, err := d.Child("urn:docs", "doc")
	require.NoError(t, err)
	b, err := d.Binary(st, simple)
	require.NoError(t, err)
	assert.Same(t, got.Attachment(part.ID), b.Attachment(), "the part itself")
	assert.Equal(t, strings.Repeat("pdf!", 1000), bytesOf(t, b))
	st, err = d.Child("urn:docs", "doc")
	require.NoError(t, err)
	b, err = d.Binary(st, simple)
	require.NoError(t, err)
	assert.Equal(t, "hi", bytesOf(t, b))
	require.NoError(t, d.End(""))
	require.NoError(t, d.Rest())
}
