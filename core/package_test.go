package core_test

import (
	"bytes"
	"errors"
	"io"
	"mime"
	"net/textproto"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/coretest"
)

// Helpers and tests of MIME packages (MTOM/XOP, SwA): ReadPackage, WriteTo,
// ContentType, Attachment, Close. Names start with pk.

const pkBody = `<p:Upload xmlns:p="urn:example:pk"><p:name>invoice.pdf</p:name></p:Upload>`

// pkData is n bytes of a pattern that shows a shifted or cut copy.
func pkData(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + i/251)
	}
	return b
}

// pkMessage is a message of version v with packaging p and the given
// attachments.
func pkMessage(v core.Version, p core.Packaging, atts ...*core.Attachment) *core.Message {
	m := core.NewMessage(v, core.RawBody([]byte(pkBody)))
	m.Action = "urn:example:pk:Upload"
	m.Packaging = p
	m.Attachments = atts
	return m
}

// pkWire writes m and returns its bytes and Content-Type.
func pkWire(t testing.TB, m *core.Message) ([]byte, string) {
	t.Helper()
	ct := m.ContentType()
	var buf bytes.Buffer
	n, err := m.WriteTo(&buf)
	require.NoError(t, err)
	require.Equal(t, int64(buf.Len()), n)
	require.Equal(t, ct, m.ContentType(), "ContentType is fixed once chosen")
	return buf.Bytes(), ct
}

// pkDirEmpty asserts that dir holds no file.
func pkDirEmpty(t testing.TB, dir string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, ents, "files left in the spool folder")
}

func TestPackageRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    core.Version
		p    core.Packaging
	}{
		{"MTOM11", core.V11, core.MTOM}, {"MTOM12", core.V12, core.MTOM},
		{"SwA11", core.V11, core.SwA}, {"SwA12", core.V12, core.SwA},
	} {
		t.Run(tc.name, func(t *testing.T) {
			small := core.BytesAttachment("image/png", pkData(1000))
			small.Header = textproto.MIMEHeader{"Content-Description": {"a scan"}}
			bigData := pkData(3<<20 + 17)
			big := core.NewAttachment("application/pdf", func() (io.ReadCloser, error) {
				return io.NopCloser(bytes.NewReader(bigData)), nil
			}, int64(len(bigData)))
			empty := core.BytesAttachment("text/plain; charset=utf-8", nil)
			m := pkMessage(tc.v, tc.p, small, big, empty)
			wire, ct := pkWire(t, m)

			dir := t.TempDir()
			got, err := core.ReadPackage(bytes.NewReader(wire), ct, core.Limits{SpoolDir: dir})
			require.NoError(t, err)
			assert.Equal(t, tc.p, got.Packaging)
			assert.Equal(t, tc.v, got.Version())
			if tc.v == core.V12 {
				assert.Equal(t, "urn:example:pk:Upload", got.Action, "the 1.2 action parameter")
			} else {
				assert.Empty(t, got.Action, "1.1 carries its action in the transport (SOAPAction)")
			}
			require.Len(t, got.Attachments, 3)
			for i, want := range []*core.Attachment{small, big, empty} {
				a := got.Attachments[i]
				assert.Equal(t, want.ID, a.ID)
				assert.Equal(t, want.Type, a.Type)
				assert.Equal(t, want.Size(), a.Size())
				assert.Same(t, a, got.Attachment("cid:"+want.ID))
			}
			assert.Equal(t, "a scan", got.Attachments[0].Header.Get("Content-Description"))
			assert.Equal(t, pkData(1000), coretest.PartBytes(t, got.Attachments[0]))
			assert.False(t, got.Attachments[0].Spooled())
			assert.True(t, got.Attachments[1].Spooled(), "3 MiB is beyond the 1 MiB spool threshold")
			assert.Equal(t, bigData, coretest.PartBytes(t, got.Attachments[1]))
			assert.Equal(t, bigData, coretest.PartBytes(t, got.Attachments[1]), "a spooled part opens twice")
			assert.Empty(t, coretest.PartBytes(t, got.Attachments[2]))
			var body struct {
				Name string `xml:"urn:example:pk name"`
			}
			require.NoError(t, got.Body().Decode(&body))
			assert.Equal(t, "invoice.pdf", body.Name)

			require.NoError(t, got.Close())
			require.NoError(t, got.Close(), "Close is idempotent")
			pkDirEmpty(t, dir)
			_, err = got.Attachments[1].Open()
			assert.ErrorIs(t, err, core.ErrAttachmentClosed)
			assert.Equal(t, pkData(1000), coretest.PartBytes(t, got.Attachments[0]), "a part in memory outlives Close")
		})
	}
}

func TestPackageContentType(t *testing.T) {
	for _, tc := range []struct {
		name      string
		v         core.Version
		p         core.Packaging
		typ       string
		startInfo string
		root      string // the root part's Content-Type
	}{
		{"MTOM11", core.V11, core.MTOM, "application/xop+xml", "text/xml", `application/xop+xml; charset=UTF-8; type="text/xml"`},
		{"MTOM12", core.V12, core.MTOM, "application/xop+xml", `application/soap+xml; action="urn:example:pk:Upload"`,
			`application/xop+xml; charset=UTF-8; type="application/soap+xml; action=\"urn:example:pk:Upload\""`},
		{"SwA11", core.V11, core.SwA, "text/xml", "", "text/xml; charset=UTF-8"},
		{"SwA12", core.V12, core.SwA, "application/soap+xml", "", `application/soap+xml; charset=UTF-8; action="urn:example:pk:Upload"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := pkMessage(tc.v, tc.p, core.BytesAttachment("image/png", []byte("png")))
			wire, ct := pkWire(t, m)
			mt, params, err := mime.ParseMediaType(ct)
			require.NoError(t, err)
			assert.Equal(t, "multipart/related", mt)
			assert.Equal(t, tc.typ, params["type"])
			assert.Equal(t, tc.startInfo, params["start-info"])
			require.NotEmpty(t, params["boundary"])
			require.True(t, strings.HasPrefix(params["start"], "<") && strings.HasSuffix(params["start"], ">"))
			head := "--" + params["boundary"] + "\r\nContent-Type: " + tc.root +
				"\r\nContent-Transfer-Encoding: binary\r\nContent-ID: " + params["start"] + "\r\n\r\n<"
			assert.True(t, strings.HasPrefix(string(wire), head), "%q", wire[:min(len(wire), 300)])
			att := "\r\n--" + params["boundary"] + "\r\nContent-Type: image/png\r\nContent-Transfer-Encoding: binary\r\nContent-ID: <" +
				m.Attachments[0].ID + ">\r\n\r\npng\r\n--" + params["boundary"] + "--\r\n"
			assert.True(t, strings.HasSuffix(string(wire), att), "%q", wire)
		})
	}
	t.Run("Inline", func(t *testing.T) {
		m := pkMessage(core.V11, core.Inline)
		assert.Equal(t, "text/xml; charset=utf-8", m.ContentType())
		m = pkMessage(core.V12, core.Inline)
		assert.Equal(t, `application/soap+xml; charset=utf-8; action="urn:example:pk:Upload"`, m.ContentType())
		m.Action = `urn:a"b\c`
		_, params, err := mime.ParseMediaType(m.ContentType())
		require.NoError(t, err)
		assert.Equal(t, `urn:a"b\c`, params["action"])
		m.Action = ""
		assert.Equal(t, "application/soap+xml; charset=utf-8", m.ContentType())
	})
}

func TestPackageInlineWithAttachmentsFails(t *testing.T) {
	m := pkMessage(core.V11, core.Inline, core.BytesAttachment("image/png", []byte("x")))
	_, err := m.WriteTo(io.Discard)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Packaging")
}

func TestPackageWriteRefusesHeaderInjection(t *testing.T) {
	a := core.BytesAttachment("image/png\r\nX-Evil: 1", []byte("x"))
	_, err := pkMessage(core.V11, core.SwA, a).WriteTo(io.Discard)
	require.Error(t, err)
	b := core.BytesAttachment("image/png", []byte("x"))
	b.Header = textproto.MIMEHeader{"X-Note": {"a\nb"}}
	_, err = pkMessage(core.V11, core.SwA, b).WriteTo(io.Discard)
	require.Error(t, err)
	c := core.BytesAttachment("image/png", []byte("x"))
	c.ID = "a>b"
	_, err = pkMessage(core.V11, core.SwA, c).WriteTo(io.Discard)
	require.Error(t, err)
}

func TestPackageWriteSizeMismatch(t *testing.T) {
	a := core.NewAttachment("image/png", func() (io.ReadCloser, error) {
		return io.NopCloser(strings.NewReader("short")), nil
	}, 10)
	_, err := pkMessage(core.V11, core.MTOM, a).WriteTo(io.Discard)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "10")
	failing := core.NewAttachment("image/png", func() (io.ReadCloser, error) { return nil, errors.New("gone") }, -1)
	_, err = pkMessage(core.V11, core.MTOM, failing).WriteTo(io.Discard)
	require.ErrorContains(t, err, "gone")
}

// pkEnvelope is a plain envelope of version v holding pkBody.
func pkEnvelope(v core.Version) string {
	return `<s:Envelope xmlns:s="` + v.Namespace() + `"><s:Body>` + pkBody + `</s:Body></s:Envelope>`
}

// pkPart is one part of a hand-made package: its header lines and body.
type pkPart struct {
	header string // "Name: value\r\n" lines
	body   string
}

// pkPackage joins parts with boundary B, closed unless open.
func pkPackage(parts ...pkPart) string {
	var b strings.Builder
	for _, p := range parts {
		b.WriteString("--B\r\n" + p.header + "\r\n" + p.body + "\r\n")
	}
	b.WriteString("--B--\r\n")
	return b.String()
}

func TestReadPackageRootByStart(t *testing.T) {
	pkg := pkPackage(
		pkPart{"Content-Type: image/png\r\nContent-ID: <img@x>\r\n", "PNG"},
		pkPart{"Content-Type: text/xml; charset=utf-8\r\nContent-ID: <root@x>\r\n", pkEnvelope(core.V11)},
		pkPart{"Content-Type: application/pdf\r\nContent-ID: <doc%20one@x>\r\nContent-Transfer-Encoding: base64\r\nContent-Location: doc.pdf\r\n", "UERG\r\nLTEu\r\nNw=="},
	)
	m, err := core.ReadPackage(strings.NewReader(pkg), `multipart/related; boundary=B; type="text/xml"; start="<root@x>"`, core.Limits{})
	require.NoError(t, err)
	defer m.Close()
	assert.Equal(t, core.SwA, m.Packaging)
	require.Len(t, m.Attachments, 2)
	assert.Equal(t, "PNG", string(coretest.PartBytes(t, m.Attachment("img@x"))))
	assert.Equal(t, "PNG", string(coretest.PartBytes(t, m.Attachment("<img@x>"))))
	assert.Equal(t, "PDF-1.7", string(coretest.PartBytes(t, m.Attachment("cid:doc%2520one@x"))), "a cid: URL is %%-unescaped")
	assert.Equal(t, "PDF-1.7", string(coretest.PartBytes(t, m.Attachment("doc%20one@x"))))
	assert.Equal(t, "doc.pdf", m.Attachment("doc%20one@x").Header.Get("Content-Location"))
	assert.Empty(t, m.Attachment("doc%20one@x").Header.Get("Content-Transfer-Encoding"), "the bytes are decoded")
	assert.Nil(t, m.Attachment("cid:nothing@x"))
	assert.Equal(t, "Upload", m.Body().Name().Local)
}

func TestReadPackageRootFirstByDefault(t *testing.T) {
	pkg := pkPackage(
		pkPart{"Content-Type: application/xop+xml; charset=UTF-8; type=\"application/soap+xml\"\r\n", pkEnvelope(core.V12)},
		pkPart{"Content-Type: image/png\r\nContent-ID: <img@x>\r\nContent-Transfer-Encoding: quoted-printable\r\n", "P=3DNG"},
	)
	m, err := core.ReadPackage(strings.NewReader(pkg), `multipart/related; boundary="B"; type="application/xop+xml"; start-info="application/soap+xml; action=\"urn:a\""`, core.Limits{})
	require.NoError(t, err)
	defer m.Close()
	assert.Equal(t, core.MTOM, m.Packaging)
	assert.Equal(t, "urn:a", m.Action, "the start-info's action")
	assert.Equal(t, "P=NG", string(coretest.PartBytes(t, m.Attachment("img@x"))))
}

func TestReadPackageNotMultipart(t *testing.T) {
	m, err := core.ReadPackage(strings.NewReader(pkEnvelope(core.V11)), "text/xml; charset=utf-8", core.Limits{})
	require.NoError(t, err)
	assert.Equal(t, core.Inline, m.Packaging)
	assert.Empty(t, m.Attachments)
	assert.Equal(t, "Upload", m.Body().Name().Local)
	utf16 := []byte{}
	for _, r := range pkEnvelope(core.V11) {
		utf16 = append(utf16, byte(r), 0)
	}
	m, err = core.ReadPackage(bytes.NewReader(utf16), "text/xml; charset=utf-16le", core.Limits{})
	require.NoError(t, err, "the charset reaches CharsetReader")
	assert.Equal(t, "Upload", m.Body().Name().Local)
}

// pkFault asserts err is a Sender fault with target in its chain.
func pkFault(t testing.TB, err error, target error) *core.Fault {
	t.Helper()
	require.Error(t, err)
	var f *core.Fault
	require.True(t, errors.As(err, &f), "%v is not a *Fault", err)
	assert.Equal(t, core.CodeSender, f.Code, "%v", f)
	if target != nil {
		assert.ErrorIs(t, err, target, "%v", f)
	}
	return f
}

func TestReadPackageRefusals(t *testing.T) {
	env := pkEnvelope(core.V11)
	root := pkPart{"Content-Type: text/xml\r\nContent-ID: <r@x>\r\n", env}
	for _, tc := range []struct {
		name, ct, pkg string
		want          error
	}{
		{"no boundary", `multipart/related; type="text/xml"`, pkPackage(root), core.ErrMalformed},
		{"bad content type", `multipart/related; boundary=`, pkPackage(root), core.ErrMalformed},
		{"no parts", `multipart/related; boundary=B`, "--B--\r\n", core.ErrMalformed},
		{"empty", `multipart/related; boundary=B`, "", core.ErrMalformed},
		{"never closed", `multipart/related; boundary=B`, "--B\r\nContent-Type: text/xml\r\n\r\n" + env, core.ErrMalformed},
		{"cut in the header", `multipart/related; boundary=B`, "--B\r\nContent-Type: text/xml\r\n", core.ErrMalformed},
		{"start names no part", `multipart/related; boundary=B; start="<other@x>"`, pkPackage(root), core.ErrMalformed},
		{"two parts one id", `multipart/related; boundary=B`, pkPackage(root, pkPart{"Content-ID: <r@x>\r\n", "x"}), core.ErrMalformed},
		{"unknown transfer encoding", `multipart/related; boundary=B`, pkPackage(root, pkPart{"Content-Transfer-Encoding: x-uu\r\n", "x"}), core.ErrMalformed},
		{"header name with a space", `multipart/related; boundary=B`, pkPackage(root, pkPart{"X Y: z\r\n", "x"}), core.ErrMalformed},
		{"bad base64", `multipart/related; boundary=B`, pkPackage(root, pkPart{"Content-Transfer-Encoding: base64\r\n", "!!!"}), core.ErrMalformed},
		{"root not SOAP", `multipart/related; boundary=B`, pkPackage(pkPart{"Content-Type: image/png\r\n", env}), core.ErrMalformed},
		{"root not XML", `multipart/related; boundary=B`, pkPackage(pkPart{"Content-Type: text/xml\r\n", "hello"}), core.ErrNotEnvelope},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := core.ReadPackage(strings.NewReader(tc.pkg), tc.ct, core.Limits{})
			pkFault(t, err, tc.want)
		})
	}
}

func TestReadPackageVersionMismatch(t *testing.T) {
	pkg := pkPackage(pkPart{"Content-Type: application/soap+xml\r\n", pkEnvelope(core.V11)})
	_, err := core.ReadPackage(strings.NewReader(pkg), `multipart/related; boundary=B`, core.Limits{})
	var f *core.Fault
	require.ErrorAs(t, err, &f)
	assert.Equal(t, core.CodeVersionMismatch, f.Code)
	assert.Equal(t, core.V12, f.Version, "answered in the media type's version")
	pkg = pkPackage(pkPart{`Content-Type: application/xop+xml; type="text/xml"` + "\r\n", pkEnvelope(core.V12)})
	_, err = core.ReadPackage(strings.NewReader(pkg), `multipart/related; boundary=B`, core.Limits{})
	require.ErrorAs(t, err, &f)
	assert.Equal(t, core.CodeVersionMismatch, f.Code)
	assert.Equal(t, core.V11, f.Version)
}

func TestReadPackageActionMismatch(t *testing.T) {
	env := `<s:Envelope xmlns:s="` + core.NamespaceV12 + `" xmlns:wsa="` + core.NamespaceAddressing +
		`"><s:Header><wsa:Action>urn:one</wsa:Action></s:Header><s:Body>` + pkBody + `</s:Body></s:Envelope>`
	pkg := pkPackage(pkPart{`Content-Type: application/soap+xml; action="urn:two"` + "\r\n", env})
	_, err := core.ReadPackage(strings.NewReader(pkg), `multipart/related; boundary=B`, core.Limits{})
	f := pkFault(t, err, nil)
	assert.Contains(t, f.Reason, "urn:two")
}

func TestReadPackageLimits(t *testing.T) {
	env := pkEnvelope(core.V11)
	root := pkPart{"Content-Type: text/xml\r\n", env}
	ct := `multipart/related; boundary=B`
	t.Run("parts", func(t *testing.T) {
		parts := []pkPart{root}
		for range 3 {
			parts = append(parts, pkPart{"", "x"})
		}
		m, err := core.ReadPackage(strings.NewReader(pkPackage(parts...)), ct, core.Limits{MaxParts: 4})
		require.NoError(t, err)
		assert.Len(t, m.Attachments, 3)
		parts = append(parts, pkPart{"", "x"})
		_, err = core.ReadPackage(strings.NewReader(pkPackage(parts...)), ct, core.Limits{MaxParts: 4})
		pkFault(t, err, core.ErrLimit)
	})
	t.Run("part bytes", func(t *testing.T) {
		for _, spool := range []int64{0, 10} { // in memory, spooled
			dir := t.TempDir()
			lim := core.Limits{MaxPartBytes: 1000, SpoolThreshold: spool, SpoolDir: dir}
			m, err := core.ReadPackage(strings.NewReader(pkPackage(root, pkPart{"", strings.Repeat("x", 1000)})), ct, lim)
			require.NoError(t, err)
			assert.Equal(t, int64(1000), m.Attachments[0].Size())
			m.Close()
			_, err = core.ReadPackage(strings.NewReader(pkPackage(root, pkPart{"", strings.Repeat("x", 1001)})), ct, lim)
			pkFault(t, err, core.ErrTooLarge)
			pkDirEmpty(t, dir)
		}
	})
	t.Run("root bytes", func(t *testing.T) {
		_, err := core.ReadPackage(strings.NewReader(pkPackage(root)), ct, core.Limits{MaxBytes: int64(len(env) - 1), MaxPartBytes: -1})
		pkFault(t, err, core.ErrTooLarge)
	})
	t.Run("package bytes", func(t *testing.T) {
		pkg := pkPackage(root, pkPart{"", strings.Repeat("x", 500)}, pkPart{"", strings.Repeat("y", 500)})
		_, err := core.ReadPackage(strings.NewReader(pkg), ct, core.Limits{MaxPackageBytes: int64(len(pkg))})
		require.NoError(t, err)
		_, err = core.ReadPackage(strings.NewReader(pkg), ct, core.Limits{MaxPackageBytes: int64(len(pkg) - 40)})
		pkFault(t, err, core.ErrTooLarge)
	})
	t.Run("part header", func(t *testing.T) {
		hdr := "X-Pad: " + strings.Repeat("h", 200) + "\r\n"
		pkg := pkPackage(root, pkPart{hdr, "x"})
		_, err := core.ReadPackage(strings.NewReader(pkg), ct, core.Limits{MaxPartHeaderBytes: 220})
		require.NoError(t, err)
		_, err = core.ReadPackage(strings.NewReader(pkg), ct, core.Limits{MaxPartHeaderBytes: 200})
		pkFault(t, err, core.ErrLimit)
	})
}

func TestReadPackageSpoolThresholdOff(t *testing.T) {
	dir := t.TempDir()
	wire, ct := pkWire(t, pkMessage(core.V11, core.MTOM, core.BytesAttachment("x/y", pkData(2<<20))))
	m, err := core.ReadPackage(bytes.NewReader(wire), ct, core.Limits{SpoolThreshold: -1, SpoolDir: dir})
	require.NoError(t, err)
	assert.False(t, m.Attachments[0].Spooled())
	assert.Equal(t, pkData(2<<20), coretest.PartBytes(t, m.Attachments[0]))
}

func TestNewContentID(t *testing.T) {
	a, b := core.NewContentID(), core.NewContentID()
	assert.NotEqual(t, a, b)
	assert.Regexp(t, `^[0-9a-f]{32}@soapwire$`, a)
	assert.NotEqual(t, core.BytesAttachment("", nil).ID, core.BytesAttachment("", nil).ID)
}
