package mail_test

import (
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/bindings/internal/mail"
	"github.com/soapwire/soapwire/core"
)

// FuzzRead: no mail makes Read panic or hang; an error is a
// *core.Fault, and a message's body can be read to its end.
func FuzzRead(f *testing.F) {
	for _, seed := range []string{
		"Content-Type: application/soap+xml; action=\"urn:x\"\n\n" + envelope12,
		"Content-Type: text/xml\nSOAPAction: urn:y\nMessage-ID: <a@b>\nIn-Reply-To: <c@uuid.invalid>\nFrom: x@y\n\n" + envelope11,
		"Content-Type: application/soap+xml\nContent-Transfer-Encoding: quoted-printable\n\n" + qp,
		"Content-Type: text/xml\nContent-Transfer-Encoding: base64\n\n" + b64(envelope11),
		"Content-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: text/plain\n\nx\n--b\nContent-Type: text/xml\n\n" + envelope11 + "\n--b--\n",
		"Content-Type: multipart/mixed; boundary=o\n\n--o\nContent-Type: multipart/alternative; boundary=i\n\n--i\nContent-Type: application/soap+xml\nContent-Transfer-Encoding: base64\n\n" + b64(envelope12) + "--i--\n--o--\n",
		crlf("Return-Path: <>\nAuto-Submitted: auto-replied\nX-Loop: soap@example.test\nContent-Type: text/xml\n\n" + envelope11),
		"Subject: =?utf-8?q?=C3=BC?=\n\n" + envelope12,
		"Content-Type: text/plain\n\nnot soap",
		peerPackage,
		crlf(peerPackage),
		"Content-Type: multipart/related; boundary=B; type=text/xml\n\n--B\nContent-Type: text/xml\n\n" + envelope11 + "\n--B\nContent-ID: <a@b>\nContent-Transfer-Encoding: base64\n\nUE5H\n--B--\n",
		"Content-Type: multipart/related; boundary=B\n\n--B\nContent-Type: application/xop+xml; type=\"text/xml\"\n\n" + envelope11 + "\n--B",
		"\n\n",
		"",
		"X: \r\n\r\n\r",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := mail.Read(strings.NewReader(string(data)), &mail.ReadConfig{
			Addresses: []string{"soap@example.test"}, Limits: core.Limits{MaxBytes: 1 << 20}, Prefix: testPrefix})
		if err != nil {
			require.NotNil(t, core.FaultOf(err))
			var f *core.Fault
			require.ErrorAs(t, err, &f, "Read errors are faults: %v", err)
			return
		}
		require.NotNil(t, m.Envelope)
		_, _ = m.Body().WriteTo(io.Discard) // may fail (malformed body), must not panic
		require.NoError(t, m.Close())
		for k := range m.Meta {
			assert.True(t, strings.HasPrefix(k, testPrefix), k)
		}
	})
}

var msgIDForm = regexp.MustCompile(`^<[^<>@\s]+@[^<>@\s]+>$`)

// FuzzMessageID: every id maps to a well-formed Message-ID that maps back
// to it.
func FuzzMessageID(f *testing.F) {
	for _, seed := range []string{
		"urn:uuid:6f1c7a3e-0c1b-4d5e-9f00-1234567890ab", "mid:a@b", "mid:a%7B@b", "mid:%41@b", "mid:x@uuid.invalid",
		"URN:UUID:x", "x\r\ny", "urn:example:1", "mid:a@b@c", "\xff\xfe",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, id string) {
		if id == "" {
			return
		}
		h := mail.MessageIDHeader(id)
		require.Regexp(t, msgIDForm, h)
		require.Equal(t, id, mail.IDFromMessageID(h))
	})
}
