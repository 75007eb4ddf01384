package core_test

import (
	"bytes"
	"encoding/base64"
	"encoding/xml"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/coretest"
)

// XOP: xop:Include resolved when an MTOM body is read; Binary.

// xoEnvelope is a 1.1 envelope whose body holds inner inside <p:Upload>.
func xoEnvelope(inner string) string {
	return `<s:Envelope xmlns:s="` + core.NamespaceV11 + `"><s:Body><p:Upload xmlns:p="urn:example:pk" xmlns:xop="` +
		core.NamespaceXOP + `">` + inner + `</p:Upload></s:Body></s:Envelope>`
}

// xoInclude is <p:data> holding an xop:Include of href.
func xoInclude(href string) string {
	return `<p:data><xop:Include href="` + href + `"/></p:data>`
}

// xoRead reads an MTOM package (root envelope, then part img@x holding
// data) with lim.
func xoRead(t testing.TB, envelope string, data []byte, lim core.Limits) (*core.Message, error) {
	t.Helper()
	pkg := pkPackage(
		pkPart{`Content-Type: application/xop+xml; charset=UTF-8; type="text/xml"` + "\r\nContent-ID: <root@x>\r\n", envelope},
		pkPart{"Content-Type: image/png\r\nContent-ID: <img@x>\r\n", string(data)},
	)
	return core.ReadPackage(strings.NewReader(pkg), `multipart/related; type="application/xop+xml"; boundary=B; start="<root@x>"; start-info="text/xml"`, lim)
}

func TestXOPTokens(t *testing.T) {
	data := pkData(200 << 10) // several chunks
	want := base64.StdEncoding.EncodeToString(data)
	m, err := xoRead(t, xoEnvelope(xoInclude("cid:img@x")+`<p:name>a</p:name>`), data, core.Limits{})
	require.NoError(t, err)
	defer m.Close()
	var text strings.Builder
	chunks, maxChunk := 0, 0
	var names []string
	for {
		tok, err := m.Body().Next()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		switch tok.Kind {
		case core.StartElement:
			names = append(names, string(tok.Name.Local))
		case core.CharData:
			if len(names) == 2 {
				text.Write(tok.Text)
				chunks++
				maxChunk = max(maxChunk, len(tok.Text))
			}
		}
	}
	assert.Equal(t, []string{"Upload", "data", "name"}, names, "the xop:Include is gone")
	assert.Equal(t, want, text.String())
	assert.Greater(t, chunks, 1, "a large part comes in several text tokens")
	assert.LessOrEqual(t, maxChunk, 64<<10, "no token holds the whole part")
}

func TestXOPTokenDecodeWriteTo(t *testing.T) {
	data := pkData(5000)
	want := base64.StdEncoding.EncodeToString(data)
	env := xoEnvelope(xoInclude("cid:img@x"))

	m, err := xoRead(t, env, data, core.Limits{})
	require.NoError(t, err)
	var text strings.Builder
	for {
		tok, err := m.Body().Token()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		if cd, ok := tok.(xml.CharData); ok {
			text.Write(cd)
		}
	}
	assert.Equal(t, want, text.String(), "Token")

	m, err = xoRead(t, env, data, core.Limits{})
	require.NoError(t, err)
	var v struct {
		Data string `xml:"urn:example:pk data"`
	}
	require.NoError(t, m.Body().Decode(&v))
	assert.Equal(t, want, v.Data, "Decode into a string")

	m, err = xoRead(t, env, data, core.Limits{})
	require.NoError(t, err)
	var out bytes.Buffer
	_, err = m.Body().WriteTo(&out)
	require.NoError(t, err)
	assert.Contains(t, out.String(), "<p:data>"+want+"</p:data>", "WriteTo")
	assert.NotContains(t, out.String(), "Include")
}

func TestXOPDiscardDoesNotReadParts(t *testing.T) {
	data := pkData(5000)
	lim := core.Limits{SpoolThreshold: 2000} // the root in memory, the part in a file
	env := xoEnvelope(xoInclude("cid:img@x"))
	m, err := xoRead(t, env, data, lim)
	require.NoError(t, err)
	require.True(t, m.Attachments[0].Spooled())
	require.NoError(t, m.Close()) // the part cannot be read any more
	assert.NoError(t, m.Body().Discard(), "Discard checks the Include without reading its part")

	m, err = xoRead(t, env, data, lim)
	require.NoError(t, err)
	require.NoError(t, m.Close())
	_, err = m.Verdict(nil, nil)
	assert.NoError(t, err, "the verdict does not read parts")

	m, err = xoRead(t, env, data, lim)
	require.NoError(t, err)
	require.NoError(t, m.Close())
	_, err = m.Body().WriteTo(io.Discard)
	require.Error(t, err, "WriteTo reads the part (the test can fail)")
	assert.ErrorIs(t, err, core.ErrAttachmentClosed)
}

func TestXOPRefusals(t *testing.T) {
	for _, tc := range []struct{ name, inner string }{
		{"no such part", xoInclude("cid:other@x")},
		{"not cid", xoInclude("http://example.com/img")},
		{"no href", `<p:data><xop:Include/></p:data>`},
		{"unqualified attribute", `<p:data><xop:Include href="cid:img@x" size="3"/></p:data>`},
		{"child element", `<p:data><xop:Include href="cid:img@x"><p:x/></xop:Include></p:data>`},
		{"text inside", `<p:data><xop:Include href="cid:img@x">AAAA</xop:Include></p:data>`},
		{"text before", `<p:data>AAAA<xop:Include href="cid:img@x"/></p:data>`},
		{"text after", `<p:data><xop:Include href="cid:img@x"/>AAAA</p:data>`},
		{"element after", `<p:data><xop:Include href="cid:img@x"/><p:x/></p:data>`},
		{"two includes", `<p:data><xop:Include href="cid:img@x"/><xop:Include href="cid:img@x"/></p:data>`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, consume := range []struct {
				name string
				fn   func(*core.Message) error
			}{
				{"Discard", func(m *core.Message) error { return m.Body().Discard() }},
				{"WriteTo", func(m *core.Message) error { _, err := m.Body().WriteTo(io.Discard); return err }},
				{"Decode", func(m *core.Message) error {
					var v struct {
						Data core.Binary `xml:"urn:example:pk data"`
					}
					return m.Body().Decode(&v)
				}},
			} {
				m, err := xoRead(t, xoEnvelope(tc.inner), []byte("PNG"), core.Limits{})
				require.NoError(t, err)
				f := pkFault(t, consume.fn(m), nil)
				assert.Contains(t, f.Reason, "Include", consume.name)
			}
		})
	}
	t.Run("Include directly in the Body", func(t *testing.T) {
		env := `<s:Envelope xmlns:s="` + core.NamespaceV11 + `"><s:Body><p:x xmlns:p="urn:p"/><xop:Include xmlns:xop="` +
			core.NamespaceXOP + `" href="cid:img@x"/></s:Body></s:Envelope>`
		m, err := xoRead(t, env, []byte("PNG"), core.Limits{})
		require.NoError(t, err)
		pkFault(t, m.Body().Discard(), nil)
	})
	t.Run("qualified attribute allowed", func(t *testing.T) {
		m, err := xoRead(t, xoEnvelope(`<p:data><xop:Include href="cid:img@x" p:note="x"/></p:data>`), []byte("PNG"), core.Limits{})
		require.NoError(t, err)
		var v struct {
			Data string `xml:"urn:example:pk data"`
		}
		require.NoError(t, m.Body().Decode(&v))
		assert.Equal(t, base64.StdEncoding.EncodeToString([]byte("PNG")), v.Data)
	})
	t.Run("white space around", func(t *testing.T) {
		m, err := xoRead(t, xoEnvelope("<p:data>\n  <xop:Include href=\"cid:img@x\">\n</xop:Include>\n</p:data>"), []byte("PNG"), core.Limits{})
		require.NoError(t, err)
		var v struct {
			Data core.Binary `xml:"urn:example:pk data"`
		}
		require.NoError(t, m.Body().Decode(&v))
		assert.Same(t, m.Attachment("img@x"), v.Data.Attachment())
	})
	t.Run("not an XOP package", func(t *testing.T) {
		env := xoEnvelope(xoInclude("cid:img@x"))
		m, err := core.ReadMessage(strings.NewReader(env), core.Limits{})
		require.NoError(t, err)
		f := pkFault(t, m.Body().Discard(), nil)
		assert.Contains(t, f.Reason, "not an XOP package")
		pkg := pkPackage(pkPart{"Content-Type: text/xml\r\n", env}, pkPart{"Content-ID: <img@x>\r\n", "PNG"})
		m, err = core.ReadPackage(strings.NewReader(pkg), "multipart/related; boundary=B", core.Limits{})
		require.NoError(t, err)
		assert.Equal(t, core.SwA, m.Packaging)
		f = pkFault(t, m.Body().Discard(), nil)
		assert.Contains(t, f.Reason, "not an XOP package")
	})
}

// xoDoc is a body struct with a Binary.
type xoDoc struct {
	XMLName xml.Name    `xml:"urn:example:pk Upload"`
	Name    string      `xml:"urn:example:pk name"`
	Doc     core.Binary `xml:"urn:example:pk doc"`
}

func TestBinaryRoundTrip(t *testing.T) {
	for _, p := range []core.Packaging{core.MTOM, core.SwA, core.Inline} {
		t.Run(p.String(), func(t *testing.T) {
			data := pkData(3<<20 + 5)
			m := core.NewMessage(core.V12, core.Body{})
			m.Packaging = p
			doc := m.AttachBinary(core.BytesAttachment("application/pdf", data))
			doc.ContentType = "application/pdf"
			m.Envelope.Body = core.ValueBody(&xoDoc{Name: "invoice", Doc: doc})
			wire, ct := pkWire(t, m)
			switch p {
			case core.MTOM:
				assert.Contains(t, string(wire), `<Include xmlns="`+core.NamespaceXOP+`" href="cid:`+doc.Attachment().ID+`">`)
			case core.SwA:
				assert.Contains(t, string(wire), `>cid:`+doc.Attachment().ID+`</doc>`)
			case core.Inline:
				assert.True(t, strings.HasPrefix(string(wire), "<"), "no package")
				assert.Contains(t, string(wire), base64.StdEncoding.EncodeToString(data[:3000]))
			}
			assert.Less(t, len(wire), 5<<20)
			dir := t.TempDir()
			got, err := core.ReadPackage(bytes.NewReader(wire), ct, core.Limits{SpoolDir: dir})
			require.NoError(t, err)
			var v xoDoc
			require.NoError(t, got.Body().Decode(&v))
			assert.Equal(t, "invoice", v.Name)
			assert.Equal(t, "application/pdf", v.Doc.ContentType)
			rc, err := v.Doc.Open()
			require.NoError(t, err)
			b, err := io.ReadAll(rc)
			require.NoError(t, err)
			assert.Equal(t, data, b)
			if p != core.Inline {
				assert.Same(t, got.Attachments[0], v.Doc.Attachment(), "the part itself, not a copy")
			} else {
				assert.True(t, v.Doc.Attachment().Spooled(), "3 MiB inline is spooled")
			}
			require.NoError(t, got.Close())
			pkDirEmpty(t, dir)
			_, err = v.Doc.Open()
			assert.ErrorIs(t, err, core.ErrAttachmentClosed)
		})
	}
}

func TestBinaryInlineWhiteSpaceAndRefusals(t *testing.T) {
	read := func(t *testing.T, inner string, lim core.Limits) (xoDoc, error) {
		env := `<s:Envelope xmlns:s="` + core.NamespaceV11 + `"><s:Body><p:Upload xmlns:p="urn:example:pk">` + inner + `</p:Upload></s:Body></s:Envelope>`
		m, err := core.ReadMessage(strings.NewReader(env), lim)
		require.NoError(t, err)
		var v xoDoc
		return v, m.Body().Decode(&v)
	}
	v, err := read(t, "<p:doc>\n UE5H\n SQ==\n</p:doc>", core.Limits{})
	require.NoError(t, err)
	assert.Equal(t, "PNGI", string(coretest.PartBytes(t, v.Doc.Attachment())))
	v, err = read(t, "<p:doc></p:doc>", core.Limits{})
	require.NoError(t, err)
	assert.Equal(t, int64(0), v.Doc.Attachment().Size())
	for name, inner := range map[string]string{
		"not base64":    "<p:doc>!!!!</p:doc>",
		"cut short":     "<p:doc>UE5</p:doc>",
		"after padding": "<p:doc>SQ==UE5H</p:doc>",
		"element":       "<p:doc><p:x/></p:doc>",
		"unknown cid":   "<p:doc>cid:nothing@x</p:doc>",
	} {
		_, err := read(t, inner, core.Limits{})
		pkFault(t, err, nil)
		_ = name
	}
	_, err = read(t, "<p:doc>"+base64.StdEncoding.EncodeToString(pkData(1001))+"</p:doc>", core.Limits{MaxPartBytes: 1000})
	pkFault(t, err, core.ErrTooLarge)
	_, err = read(t, "<p:doc>"+base64.StdEncoding.EncodeToString(pkData(1000))+"</p:doc>", core.Limits{MaxPartBytes: 1000})
	require.NoError(t, err)
}

func TestBinaryInlineSpoolClosed(t *testing.T) {
	dir := t.TempDir()
	data := pkData(100 << 10)
	env := `<s:Envelope xmlns:s="` + core.NamespaceV11 + `"><s:Body><p:Upload xmlns:p="urn:example:pk"><p:doc>` +
		base64.StdEncoding.EncodeToString(data) + `</p:doc></p:Upload></s:Body></s:Envelope>`
	m, err := core.ReadMessage(strings.NewReader(env), core.Limits{SpoolThreshold: 10 << 10, SpoolDir: dir})
	require.NoError(t, err)
	var v xoDoc
	require.NoError(t, m.Body().Decode(&v))
	assert.True(t, v.Doc.Attachment().Spooled())
	assert.Equal(t, data, coretest.PartBytes(t, v.Doc.Attachment()))
	require.NoError(t, m.Close())
	pkDirEmpty(t, dir)
	_, err = v.Doc.Open()
	assert.ErrorIs(t, err, core.ErrAttachmentClosed, "the message's Close releases a decoded value's spool")
}

func TestBinaryWithoutContext(t *testing.T) {
	var v xoDoc
	require.NoError(t, xml.Unmarshal([]byte(`<Upload xmlns="urn:example:pk"><doc>UE5H</doc></Upload>`), &v))
	assert.Equal(t, "PNG", string(coretest.PartBytes(t, v.Doc.Attachment())))
	out, err := xml.Marshal(v)
	require.NoError(t, err)
	assert.Contains(t, string(out), ">UE5H</doc>", "a decoded Binary is written inline")
	var zero core.Binary
	rc, err := zero.Open()
	require.NoError(t, err)
	b, _ := io.ReadAll(rc)
	assert.Empty(t, b)
}

func TestBinaryUnderInlineNeedsNoPackage(t *testing.T) {
	m := core.NewMessage(core.V11, core.Body{})
	doc := m.AttachBinary(core.BytesAttachment("", []byte("PNG")))
	assert.Same(t, doc.Attachment(), m.AttachBinary(doc.Attachment()).Attachment())
	assert.Len(t, m.Attachments, 1, "attached once")
	m.Envelope.Body = core.ValueBody(&xoDoc{Doc: doc})
	var out bytes.Buffer
	_, err := m.WriteTo(&out)
	require.NoError(t, err)
	assert.Contains(t, out.String(), ">UE5H</doc>")
	m.Attachments = append(m.Attachments, core.BytesAttachment("", nil))
	_, err = m.WriteTo(io.Discard)
	assert.Error(t, err, "an attachment no Binary stands for needs a package")
}

func TestXOPSpoolFilesGone(t *testing.T) {
	// nothing is left in SpoolDir even without Close (files are unlinked
	// as soon as they are made)
	dir := t.TempDir()
	wire, ct := pkWire(t, pkMessage(core.V11, core.MTOM, core.BytesAttachment("x/y", pkData(3<<20))))
	m, err := core.ReadPackage(bytes.NewReader(wire), ct, core.Limits{SpoolDir: dir})
	require.NoError(t, err)
	require.True(t, m.Attachments[0].Spooled())
	ents, _ := os.ReadDir(dir)
	assert.Empty(t, ents)
	m.Close()
}
