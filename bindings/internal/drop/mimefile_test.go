package drop_test

import (
	"bytes"
	"encoding/xml"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/bindings/internal/drop"
	"github.com/soapwire/soapwire/core"
)

// doc is a body with a Binary value.
type doc struct {
	XMLName xml.Name    `xml:"urn:t Doc"`
	Data    core.Binary `xml:"urn:t data"`
}

// packaged returns a message with id in packaging p holding data as a
// Binary part, and a second part.
func packaged(id string, p core.Packaging, data []byte) *core.Message {
	m := core.NewMessage(core.V12, core.Body{})
	m.ID, m.Action, m.Packaging = id, "urn:t/Doc", p
	b := m.AttachBinary(core.BytesAttachment("application/pdf", data))
	m.Attachments = append(m.Attachments, core.BytesAttachment("text/plain", []byte("note\r\n")))
	m.Envelope.Body = core.ValueBody(&doc{Data: b})
	return m
}

// mimeFile returns the file a Sender writes for m.
func mimeFile(t testing.TB, m *core.Message) []byte {
	t.Helper()
	var b bytes.Buffer
	_, err := io.Copy(&b, drop.MessageReader(m))
	require.NoError(t, err)
	return b.Bytes()
}

// dataOf decodes a received message's Binary and returns its bytes.
func dataOf(t *testing.T, m *core.Message) []byte {
	t.Helper()
	var v doc
	require.NoError(t, m.Body().Decode(&v))
	rc, err := v.Data.Open()
	require.NoError(t, err)
	defer rc.Close()
	b, err := io.ReadAll(rc)
	require.NoError(t, err)
	return b
}

// TestMIMEFile: a message with attachments is one MIME file (its header,
// then the package), taken at once, in memory or spooled, and received
// with its parts; a plain message is a plain envelope as before.
func TestMIMEFile(t *testing.T) {
	data := bytes.Repeat([]byte("%PDF\r\n\x00\xff"), 300<<10/8)
	for _, p := range []core.Packaging{core.MTOM, core.SwA} {
		for _, mem := range []int64{0, -1} {
			f := newFakeFS()
			pl, lb := newPoller(t, f, drop.Config{SpoolMemory: mem})
			m := packaged("urn:"+p.String(), p, data)
			file := mimeFile(t, m)
			assert.True(t, strings.HasPrefix(string(file), "MIME-Version: 1.0\r\nContent-Type: multipart/related; type="), "%.100q", file)
			assert.True(t, strings.HasSuffix(string(file), "--\r\n"))
			f.put("/ep/inbox/"+p.String()+".xml", file)
			d, err := pl.Receive(tctx(t))
			require.NoError(t, err)
			got := d.Message()
			assert.Equal(t, m.ID, got.ID)
			assert.Equal(t, p, got.Packaging)
			require.Len(t, got.Attachments, 2)
			assert.Equal(t, data, dataOf(t, got))
			require.NoError(t, d.Ack(tctx(t)))
			require.NoError(t, got.Close())
			assert.Zero(t, lb.count("looks unfinished"), "a whole MIME file is taken at once")
		}
	}

	// plain: no header
	plain := core.NewMessage(core.V12, core.RawBody([]byte(`<t:Ping xmlns:t="urn:t"/>`)))
	file := mimeFile(t, plain)
	assert.True(t, strings.HasPrefix(string(file), "<"), "%.40q", file)
}

// TestMIMEFileSettle: a MIME file cut before its closing delimiter looks
// unfinished (not taken while it may grow); when the rest arrives it is
// delivered whole; one that stays cut is taken once settled and parked
// with its Sender fault.
func TestMIMEFileSettle(t *testing.T) {
	f := newFakeFS()
	p, lb := newPoller(t, f, drop.Config{Settle: 100 * time.Millisecond})
	full := mimeFile(t, packaged("urn:grows", core.MTOM, []byte("0123456789")))
	cut := len(full) - 8 // the closing delimiter cut off
	file := f.put("/ep/inbox/grows.xml", full[:cut])
	nothing(t, p, 30*time.Millisecond)
	assert.Positive(t, lb.count("file looks unfinished"), lb.String())
	f.append(file, full[cut:])
	d, err := p.Receive(tctx(t))
	require.NoError(t, err)
	assert.Equal(t, "urn:grows", d.Message().ID)
	assert.Equal(t, []byte("0123456789"), dataOf(t, d.Message()))
	require.NoError(t, d.Ack(tctx(t)))

	// cut for good: parked once settled
	f.put("/ep/inbox/cut.xml", full[:cut])
	nothing(t, p, 500*time.Millisecond)
	require.Equal(t, []string{"cut.fault.xml", "cut.xml"}, f.names("/ep/failed"))
	fault := string(f.data("/ep/failed/cut.fault.xml"))
	assert.Contains(t, fault, "Sender")
	assert.Contains(t, fault, "never closed")
}

// TestMIMEFileRefusals: a MIME file that cannot be read is parked with its
// Sender fault; a package over MaxBytes but within MaxPackageBytes is
// delivered, a plain envelope over MaxBytes is not, nor a package over
// MaxPackageBytes.
func TestMIMEFileRefusals(t *testing.T) {
	const pkgType = "multipart/related; type=\"application/xop+xml\"; boundary=B"
	root := "--B\r\nContent-Type: application/xop+xml; type=\"application/soap+xml\"\r\n\r\n" + string(envelope(t, "urn:r", "r")) + "\r\n"
	for name, tc := range map[string]struct {
		file string
		want string
	}{
		"NoContentType":  {"MIME-Version: 1.0\r\n\r\n" + root + "--B--\r\n", "without a Content-Type"},
		"BrokenHeader":   {"MIME-Version: 1.0\r\nContent-Type: " + pkgType + "\r\n" + root + "--B--\r\n", "MIME header cannot be read"},
		"HugeHeader":     {"X-Big: " + strings.Repeat("x", drop.MaxFileHeaderBytes) + "\r\nContent-Type: " + pkgType + "\r\n\r\n" + root + "--B--\r\n", "MIME header is larger than"},
		"NoBoundary":     {"Content-Type: multipart/related\r\n\r\n" + root + "--B--\r\n", "without a boundary"},
		"RootNotSOAP":    {"Content-Type: " + pkgType + "\r\n\r\n--B\r\nContent-Type: text/plain\r\n\r\nhi\r\n--B--\r\n", "not a SOAP envelope"},
		"WrongInclude":   {"Content-Type: " + pkgType + "\r\n\r\n" + strings.Replace(root, "<t:Ping xmlns:t=\"urn:t\">r</t:Ping>", `<t:Ping xmlns:t="urn:t"><x:Include xmlns:x="http://www.w3.org/2004/08/xop/include" href="cid:none"/></t:Ping>`, 1) + "--B--\r\n", ""},
		"MediaTypeWrong": {"Content-Type: text/plain\r\n\r\n" + string(envelope(t, "urn:p", "p")), "is not multipart/related"},
	} {
		t.Run(name, func(t *testing.T) {
			f := newFakeFS()
			p, _ := newPoller(t, f, drop.Config{Settle: 10 * time.Millisecond})
			f.put("/ep/inbox/bad.xml", []byte(tc.file))
			if tc.want == "" {
				// read, but its body or version fails: the handler's Nack parks it
				d, err := p.Receive(tctx(t))
				if err == nil {
					berr := d.Message().Body().Discard()
					require.Error(t, berr)
					require.NoError(t, d.Nack(tctx(t), berr))
				}
			} else {
				nothing(t, p, 200*time.Millisecond)
			}
			require.Eventually(t, func() bool { return len(f.names("/ep/failed")) == 2 }, 5*time.Second, 5*time.Millisecond)
			fault := string(f.data("/ep/failed/bad.fault.xml"))
			assert.Contains(t, fault, "Sender")
			assert.Contains(t, fault, tc.want)
		})
	}

	// bounds
	lim := core.Limits{MaxBytes: 4 << 10, MaxPartBytes: 64 << 10, MaxPackageBytes: 40 << 10}
	f := newFakeFS()
	p, _ := newPoller(t, f, drop.Config{Limits: lim, SpoolMemory: 1 << 10})
	f.put("/ep/inbox/a-pkg.xml", mimeFile(t, packaged("urn:pkg", core.SwA, bytes.Repeat([]byte("x"), 30<<10))))
	assert.Equal(t, "urn:pkg", receiveID(t, p), "a package over MaxBytes, within MaxPackageBytes")
	f.put("/ep/inbox/b-plain.xml", envelope(t, "urn:big", strings.Repeat("y", 8<<10)))
	f.put("/ep/inbox/c-bigpkg.xml", mimeFile(t, packaged("urn:bigpkg", core.SwA, bytes.Repeat([]byte("x"), 50<<10))))
	nothing(t, p, 200*time.Millisecond)
	assert.Equal(t, []string{"b-plain.fault.xml", "b-plain.xml", "c-bigpkg.fault.xml", "c-bigpkg.xml"}, f.names("/ep/failed"))
	assert.Contains(t, string(f.data("/ep/failed/b-plain.fault.xml")), "more than 4096 bytes")
	assert.Contains(t, string(f.data("/ep/failed/c-bigpkg.fault.xml")), "larger than")
}

// TestMIMEFileInline: a MIME file may hold a plain envelope (text/xml,
// application/soap+xml), read in its charset.
func TestMIMEFileInline(t *testing.T) {
	f := newFakeFS()
	p, _ := newPoller(t, f, drop.Config{})
	f.put("/ep/inbox/inline.xml", append([]byte("MIME-Version: 1.0\r\nContent-Type: application/soap+xml; charset=utf-8\r\n\r\n"), envelope(t, "urn:inline", "x")...))
	assert.Equal(t, "urn:inline", receiveID(t, p))
}
