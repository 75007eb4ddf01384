package mail_test

import (
	"bytes"
	netmail "net/mail"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/bindings/internal/mail"
	"github.com/soapwire/soapwire/core"
)

var (
	svc    = &netmail.Address{Address: "svc@example.org"}
	client = &netmail.Address{Name: "A Client", Address: "client@example.org"}
)

// TestComposeReadsBack: what Compose writes, Read reads back as the same
// message, in both versions and every transfer encoding Compose chooses.
func TestComposeReadsBack(t *testing.T) {
	tests := []struct {
		name    string
		v       core.Version
		text    string
		cte     string
		subject string
	}{
		{"SOAP12ASCII", core.V12, "hello", "7bit", ""},
		{"SOAP11", core.V11, "hello 1.1", "7bit", "Bestellung ü"},
		{"NonASCII", core.V12, "café", "8bit", ""},
		{"LongLine", core.V12, strings.Repeat("x", 2000), "quoted-printable", ""},
		{"CR", core.V12, "a&#13;b\rc", "quoted-printable", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := core.NewMessage(tt.v, core.RawBody([]byte(`<p:ping xmlns:p="urn:test">`+tt.text+`</p:ping>`)))
			m.ID, m.Action = core.NewMessageID(), "urn:test:ping"
			var out, scratch bytes.Buffer
			w, err := mail.Compose(&out, &scratch, m, mail.Header{From: svc, To: client, Subject: tt.subject,
				Extra: [][2]string{{"X-Test", "1"}}})
			require.NoError(t, err)
			assert.Equal(t, mail.MessageIDHeader(m.ID), w.MessageID)
			assert.Empty(t, w.InReplyTo)
			text := out.String()
			assert.Contains(t, text, "Content-Transfer-Encoding: "+tt.cte+"\r\n")
			assert.Contains(t, text, "X-Test: 1\r\n")
			assert.Contains(t, text, "X-Loop: svc@example.org\r\n")
			assert.NotContains(t, text, "Auto-Submitted", "a request is not an auto-reply")

			got, err := read(text)
			require.NoError(t, err)
			assert.Equal(t, tt.v, got.Version())
			assert.Equal(t, m.ID, got.ID)
			assert.Equal(t, "urn:test:ping", got.Action)
			assert.Equal(t, "mailto:client@example.org", got.To)
			assert.Equal(t, "mailto:svc@example.org", got.ReplyTo)
			want := tt.subject
			if want == "" {
				want = "urn:test:ping"
			}
			assert.Equal(t, want, got.Meta[meta(mail.KeySubject)])
			assert.Equal(t, strings.ReplaceAll(strings.ReplaceAll(tt.text, "&#13;", "\r"), "\r", "\n"), strings.ReplaceAll(bodyText(t, got), "\r", "\n"))
		})
	}
}

// TestComposeRefusals: header injection and over-long values are refused
// and nothing is written.
func TestComposeRefusals(t *testing.T) {
	tests := []struct {
		name string
		set  func(m *core.Message, h *mail.Header)
		want error
	}{
		{"ActionCR", func(m *core.Message, h *mail.Header) { m.Action = "urn:x\rBcc: v@example.org" }, mail.ErrHeaderInjection},
		{"SubjectLF", func(m *core.Message, h *mail.Header) { h.Subject = "x\nBcc: v@example.org" }, mail.ErrHeaderInjection},
		{"ExtraName", func(m *core.Message, h *mail.Header) { h.Extra = [][2]string{{"X-A: b", "c"}} }, mail.ErrHeaderInjection},
		{"ExtraValue", func(m *core.Message, h *mail.Header) { h.Extra = [][2]string{{"X-A", "b\r\nBcc: v@example.org"}} }, mail.ErrHeaderInjection},
		{"LongSubject", func(m *core.Message, h *mail.Header) { h.Subject = strings.Repeat("s", 300) }, mail.ErrHeaderTooLong},
		{"LongAction", func(m *core.Message, h *mail.Header) { m.Action = "urn:" + strings.Repeat("a", 1000) }, mail.ErrHeaderTooLong},
		{"LongAction11", func(m *core.Message, h *mail.Header) {
			*m = *core.NewMessage(core.V11, core.RawBody([]byte(`<p:ping xmlns:p="urn:test"/>`)))
			m.Action = "urn:" + strings.Repeat("a", 990)
		}, mail.ErrHeaderTooLong},
		{"LongExtra", func(m *core.Message, h *mail.Header) { h.Extra = [][2]string{{"X-A", strings.Repeat("b", 1000)}} }, mail.ErrHeaderTooLong},
		{"SubjectNotUTF8", func(m *core.Message, h *mail.Header) { h.Subject = "\xff" }, mail.ErrAddress},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := core.NewMessage(core.V12, core.RawBody([]byte(`<p:ping xmlns:p="urn:test"/>`)))
			h := mail.Header{From: svc, To: client}
			tt.set(m, &h)
			var out, scratch bytes.Buffer
			_, err := mail.Compose(&out, &scratch, m, h)
			require.ErrorIs(t, err, tt.want)
			assert.Zero(t, out.Len(), "nothing written")
		})
	}
}

// TestWriteFault: a parked mail's record is a fault envelope in the
// mail's version, with the cause's text in the detail.
func TestWriteFault(t *testing.T) {
	for _, v := range []core.Version{core.V11, core.V12} {
		var b bytes.Buffer
		require.NoError(t, mail.WriteFault(&b, v, core.SenderFault("bad mail: broken base64"), "urn:soapwire:test"))
		m, err := core.ReadMessage(&b, core.Limits{})
		require.NoError(t, err)
		f := m.Fault()
		require.NotNil(t, f)
		assert.Equal(t, v, m.Version())
		assert.Equal(t, core.CodeSender, f.Code)
		assert.Equal(t, "bad mail: broken base64", f.Reason)

		b.Reset()
		require.NoError(t, mail.WriteFault(&b, v, assert.AnError, "urn:soapwire:test"))
		assert.Contains(t, b.String(), `<sw:Cause xmlns:sw="urn:soapwire:test">`+assert.AnError.Error()+`</sw:Cause>`)
	}
}
