package mail

import (
	"bytes"
	"fmt"
	"io"
	"mime/quotedprintable"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
)

// streamQP decodes src the way a streamed body is: mime/quotedprintable's
// Reader, then crlfReader.
func streamQP(src []byte) ([]byte, error) {
	return io.ReadAll(&crlfReader{r: quotedprintable.NewReader(bytes.NewReader(src))})
}

func qpSeeds() []string {
	return []string{
		"", "a", "a=\r\nb", "a=\nb", "a=3Db\r\n", "a=3db", "a=", "=", "a==\n", "a= \r\nb", "a=\rb\n",
		"x  \r\ny\t\n", "=4\n", "=G1x", "\x01", "caf\xc3\xa9", "a\rb\r\nc", "=0D=0A", "line=\r\n" + strings.Repeat("y", 5000),
	}
}

// TestDecodeQP: decodeQP gives what the streamed decoding gives, and
// declines (ok false) wherever that fails.
func TestDecodeQP(t *testing.T) {
	for _, s := range qpSeeds() {
		checkDecodeQP(t, []byte(s))
	}
}

func checkDecodeQP(t *testing.T, src []byte) {
	want, werr := streamQP(src)
	got, ok := decodeQP(bytes.Clone(src))
	if !ok {
		return // streamed; allowed even where the stream succeeds (long lines)
	}
	require.NoError(t, werr, "decodeQP accepted %q", src)
	require.Equal(t, string(want), string(crlfToLF(got)), "%q", src)
}

func FuzzDecodeQP(f *testing.F) {
	for _, s := range qpSeeds() {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		checkDecodeQP(t, src)
		// and crlfToLF is crlfReader
		want, err := io.ReadAll(&crlfReader{r: bytes.NewReader(src)})
		require.NoError(t, err)
		require.Equal(t, string(want), string(crlfToLF(bytes.Clone(src))))
	})
}

// mailSummary is what a test compares of two readings of one mail.
func mailSummary(t *testing.T, m *core.Message, err error) string {
	if err != nil {
		f := core.FaultOf(err)
		return "error: " + f.Error()
	}
	var b strings.Builder
	b.WriteString(m.ID + "|" + m.RelatesTo + "|" + m.Action + "|" + m.To + "|" + m.ReplyTo + "|" + m.FaultTo + "|")
	for _, k := range []string{KeyMessageID, KeyInReplyTo, KeyReferences, KeyFrom, KeyReplyTo, KeyTo, KeyDeliveredTo,
		KeyReturnPath, KeySubject, KeyDate, KeySOAPAction, KeyContentType, KeyLoop} {
		b.WriteString(k + "=" + m.Meta[k] + "|")
	}
	b.WriteString(m.Packaging.String() + "|")
	for _, a := range m.Attachments {
		fmt.Fprintf(&b, "%s %s %d|", a.ID, a.Type, a.Size())
	}
	defer m.Close()
	var body bytes.Buffer
	if _, err := m.Body().WriteTo(&body); err != nil {
		b.WriteString("body error")
	} else {
		b.WriteString(body.String())
	}
	return b.String()
}

// FuzzReadBytes: a mail read in memory (ReadBytes, the smtp Server's
// handover) reads as the same mail streamed (Read).
func FuzzReadBytes(f *testing.F) {
	env := `<?xml version="1.0"?><e:Envelope xmlns:e="http://www.w3.org/2003/05/soap-envelope"><e:Body><p:x xmlns:p="urn:x">caf` + "\xc3\xa9" + `</p:x></e:Body></e:Envelope>`
	var qp bytes.Buffer
	w := quotedprintable.NewWriter(&qp)
	w.Write([]byte(env))
	w.Close()
	for _, s := range []string{
		"Content-Type: application/soap+xml; action=\"urn:x\"\r\nMessage-ID: <a@b>\r\n\r\n" + env,
		"Content-Type: text/xml\nContent-Transfer-Encoding: quoted-printable\nFrom: x@y\n\n" + qp.String(),
		"Content-Transfer-Encoding: quoted-printable\r\n\r\n" + strings.ReplaceAll(qp.String(), "\n", "\r\n"),
		"Content-Transfer-Encoding: 8bit\r\n\r\n" + strings.ReplaceAll(env, "><", ">\r\n<"),
		"Content-Transfer-Encoding: binary\n\n" + env,
		"Content-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: text/xml\n\n" + env + "\n--b--\n",
		"\r\n" + env, "\n" + env, "X: y", "X: y\n", "X y\n\n" + env, " X: y\n\n" + env,
		"Content-Transfer-Encoding: quoted-printable\n\n=ZZ" + env,
		"Content-Type: multipart/related; boundary=b; type=\"application/soap+xml\"\r\n\r\n--b\r\nContent-Type: application/soap+xml\r\n\r\n" + env + "\r\n--b\r\nContent-ID: <x@y>\r\nContent-Transfer-Encoding: base64\r\n\r\nUE5H\r\n--b--\r\n",
		"Content-Type: multipart/related; boundary=b; type=\"application/xop+xml\"\n\n--b\nContent-Type: application/xop+xml; type=\"application/soap+xml\"\nContent-Transfer-Encoding: quoted-printable\n\n" + qp.String() + "\n--b--\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		o := ReadConfig{Addresses: []string{"soap@example.test"}, Limits: core.Limits{MaxBytes: 1 << 20}}
		m1, err1 := Read(bytes.NewReader(data), &o)
		want := mailSummary(t, m1, err1)
		m2, err2 := ReadBytes(bytes.Clone(data), &o)
		got := mailSummary(t, m2, err2)
		if err1 != nil && err2 != nil {
			return // both refused (the reasons may be worded differently)
		}
		assert.Equal(t, want, got, "%q", data)
	})
}
