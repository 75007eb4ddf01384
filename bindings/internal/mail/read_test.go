package mail_test

import (
	"encoding/base64"
	"encoding/binary"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/bindings/internal/mail"
	"github.com/soapwire/soapwire/core"
)

// testPrefix is the Meta key prefix the tests read with.
const testPrefix = "test."

// meta returns the Meta key of name read with testPrefix.
func meta(name string) string { return testPrefix + name }

// read reads a mail with testPrefix, addresses for the loop guard.
func read(text string, addresses ...string) (*core.Message, error) {
	return mail.Read(strings.NewReader(text), &mail.ReadConfig{Addresses: addresses, Prefix: testPrefix})
}

// bodyText returns the text of a message's body element.
func bodyText(t *testing.T, m *core.Message) string {
	t.Helper()
	var v struct {
		Text string `xml:",chardata"`
	}
	require.NoError(t, m.Body().Decode(&v))
	return v.Text
}

// envelope12 is a small SOAP 1.2 envelope with no WS-Addressing headers.
const envelope12 = `<?xml version="1.0" encoding="utf-8"?>` +
	`<env:Envelope xmlns:env="http://www.w3.org/2003/05/soap-envelope"><env:Body>` +
	`<p:ping xmlns:p="urn:test">hello</p:ping></env:Body></env:Envelope>`

// envelope11 is a small SOAP 1.1 envelope with no WS-Addressing headers.
const envelope11 = `<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body>` +
	`<p:ping xmlns:p="urn:test">hello 1.1</p:ping></s:Body></s:Envelope>`

// crlf turns the LF line ends of a test mail into CRLF.
func crlf(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }

// qp is envelope12 in quoted-printable, with soft line breaks.
var qp = strings.NewReplacer("=", "=3D").Replace(envelope12[:60]) + "=\n" + strings.NewReplacer("=", "=3D").Replace(envelope12[60:])

// b64 is envelope11 in base64, in lines of 76 with a trailing space on one.
func b64(s string) string {
	enc := base64.StdEncoding.EncodeToString([]byte(s))
	var b strings.Builder
	for len(enc) > 76 {
		b.WriteString(enc[:76] + " \n")
		enc = enc[76:]
	}
	b.WriteString(enc + "\n")
	return b.String()
}

// utf16LE is s in UTF-16, little-endian, without a byte order mark.
func utf16LE(s string) string {
	var b []byte
	for _, u := range utf16.Encode([]rune(s)) {
		b = binary.LittleEndian.AppendUint16(b, u)
	}
	return string(b)
}

// TestReadShapes: the envelope is found and decoded in every shape a
// mail may take, and the mail's headers fill what the envelope lacks.
func TestReadShapes(t *testing.T) {
	tests := []struct {
		name    string
		mail    string
		version core.Version
		text    string
		action  string
	}{
		{"SOAP12Action", "Content-Type: application/soap+xml; charset=utf-8; action=\"urn:test:ping\"\n\n" + envelope12, core.V12, "hello", "urn:test:ping"},
		{"SOAP12UnquotedAction", "Content-Type: application/soap+xml; action=urn:test:ping\n\n" + envelope12, core.V12, "hello", "urn:test:ping"},
		{"SOAP11SOAPAction", "Content-Type: text/xml; charset=utf-8\nSOAPAction: \"urn:test:ping11\"\n\n" + envelope11, core.V11, "hello 1.1", "urn:test:ping11"},
		{"NoContentType", "Subject: bare\n\n" + envelope11, core.V11, "hello 1.1", ""},
		{"ApplicationXML", "Content-Type: application/xml\n\n" + envelope12, core.V12, "hello", ""},
		{"QuotedPrintable", "Content-Type: application/soap+xml\nContent-Transfer-Encoding: quoted-printable\n\n" + qp, core.V12, "hello", ""},
		{"Base64", "Content-Type: text/xml\nContent-Transfer-Encoding: base64\n\n" + b64(envelope11), core.V11, "hello 1.1", ""},
		{"CRLF", crlf("Content-Type: application/soap+xml\n\n" + envelope12), core.V12, "hello", ""},
		{"UTF16LabelledNoBOM", "Content-Type: text/xml; charset=utf-16\nContent-Transfer-Encoding: base64\n\n" + b64(utf16LE(envelope11)), core.V11, "hello 1.1", ""},
		{"UTF16LELabelledNoBOM", "Content-Type: application/soap+xml; charset=UTF-16LE\nContent-Transfer-Encoding: base64\n\n" + b64(utf16LE(strings.Replace(envelope12, "utf-8", "UTF-16", 1))), core.V12, "hello", ""},
		{"MultipartMixed", `Content-Type: multipart/mixed; boundary="b1"

preamble
--b1
Content-Type: text/plain

Please find the order attached.
--b1
Content-Type: application/soap+xml; action="urn:test:attached"
Content-Transfer-Encoding: base64

` + b64(envelope12) + `--b1--
`, core.V12, "hello", "urn:test:attached"},
		{"NestedMultipart", `Content-Type: multipart/mixed; boundary=outer

--outer
Content-Type: multipart/alternative; boundary=inner

--inner
Content-Type: text/plain

text
--inner
Content-Type: text/xml
Content-Transfer-Encoding: quoted-printable

` + strings.NewReplacer("=", "=3D").Replace(envelope11) + `
--inner--
--outer--
`, core.V11, "hello 1.1", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := read(tt.mail)
			require.NoError(t, err)
			assert.Equal(t, tt.version, m.Version())
			assert.Equal(t, tt.action, m.Action)
			assert.Equal(t, tt.text, bodyText(t, m))
		})
	}
}

// TestReadHeaders: the mail's headers fill the fields the envelope
// leaves empty (the W3C Email Binding's correlation), and Meta mirrors them.
func TestReadHeaders(t *testing.T) {
	text := crlf(`Return-Path: <client@example.org>
Delivered-To: soap@example.test
From: "A Client" <client@example.org>
Reply-To: replies@example.org
To: SOAP <soap@example.test>
Subject: =?utf-8?q?Bestellung_=C3=BC?=
Date: Mon, 2 Jan 2006 15:04:05 -0700
Message-ID: <abc.123@example.org>
In-Reply-To: <11111111-2222-4333-8444-555555555555@uuid.invalid>
References: <x@y> <11111111-2222-4333-8444-555555555555@uuid.invalid>
SOAPAction: "urn:test:ping"
Content-Type: text/xml

`) + envelope11
	m, err := read(text)
	require.NoError(t, err)
	assert.Equal(t, "mid:abc.123@example.org", m.ID)
	assert.Equal(t, "urn:uuid:11111111-2222-4333-8444-555555555555", m.RelatesTo)
	assert.Equal(t, "urn:test:ping", m.Action)
	assert.Equal(t, "mailto:soap@example.test", m.To)
	assert.Equal(t, "mailto:replies@example.org", m.ReplyTo, "Reply-To before From")
	assert.Empty(t, m.FaultTo, "faults follow ReplyTo")
	assert.Equal(t, map[string]string{
		meta(mail.KeyMessageID):   "<abc.123@example.org>",
		meta(mail.KeyInReplyTo):   "<11111111-2222-4333-8444-555555555555@uuid.invalid>",
		meta(mail.KeyReferences):  "<x@y> <11111111-2222-4333-8444-555555555555@uuid.invalid>",
		meta(mail.KeyFrom):        "client@example.org",
		meta(mail.KeyReplyTo):     "replies@example.org",
		meta(mail.KeyTo):          "SOAP <soap@example.test>",
		meta(mail.KeyDeliveredTo): "soap@example.test",
		meta(mail.KeyReturnPath):  "client@example.org",
		meta(mail.KeySubject):     "Bestellung ü",
		meta(mail.KeyDate):        "Mon, 2 Jan 2006 15:04:05 -0700",
		meta(mail.KeySOAPAction):  "urn:test:ping",
		meta(mail.KeyContentType): "text/xml",
	}, m.Meta)

	t.Run("ReferencesWithoutInReplyTo", func(t *testing.T) {
		m, err := read("References: <root@example.org>\n <parent@example.org>\nContent-Type: text/xml\n\n" + envelope11)
		require.NoError(t, err)
		assert.Equal(t, "mid:parent@example.org", m.RelatesTo, "the last of References is the parent")
	})
	t.Run("FromWithoutReplyTo", func(t *testing.T) {
		m, err := read("From: Client <client@example.org>\nContent-Type: text/xml\n\n" + envelope11)
		require.NoError(t, err)
		assert.Equal(t, "mailto:client@example.org", m.ReplyTo)
	})
}

// TestReadAddressingWins: WS-Addressing headers in the envelope win
// over the mail's; an anonymous ReplyTo means the mail's back-channel.
func TestReadAddressingWins(t *testing.T) {
	env := func(replyTo string) string {
		return `<env:Envelope xmlns:env="http://www.w3.org/2003/05/soap-envelope" xmlns:wsa="http://www.w3.org/2005/08/addressing"><env:Header>` +
			`<wsa:MessageID>urn:x:1</wsa:MessageID><wsa:RelatesTo>urn:x:0</wsa:RelatesTo><wsa:Action>urn:wsa:action</wsa:Action>` +
			`<wsa:To>mailto:svc@example.test</wsa:To><wsa:ReplyTo><wsa:Address>` + replyTo + `</wsa:Address></wsa:ReplyTo></env:Header>` +
			`<env:Body><p:ping xmlns:p="urn:test">x</p:ping></env:Body></env:Envelope>`
	}
	head := "From: client@example.org\nMessage-ID: <m@example.org>\nIn-Reply-To: <r@example.org>\nContent-Type: application/soap+xml; action=\"urn:mail:action\"\n\n"
	m, err := read(head + env("mailto:wsa@example.org"))
	require.NoError(t, err)
	assert.Equal(t, "urn:x:1", m.ID)
	assert.Equal(t, "urn:x:0", m.RelatesTo)
	assert.Equal(t, "urn:wsa:action", m.Action)
	assert.Equal(t, "mailto:svc@example.test", m.To)
	assert.Equal(t, "mailto:wsa@example.org", m.ReplyTo)
	assert.Equal(t, "<m@example.org>", m.Meta[meta(mail.KeyMessageID)], "the mail's header is still mirrored")

	m, err = read(head + env(core.AnonymousAddress))
	require.NoError(t, err)
	assert.Equal(t, "mailto:client@example.org", m.ReplyTo, "anonymous: the mail's back-channel")
}

// TestReadRefusals: what is not a SOAP mail is a Sender fault saying
// why.
func TestReadRefusals(t *testing.T) {
	tests := []struct {
		name, mail, reason string
	}{
		{"TextPlain", "Content-Type: text/plain\n\nhello", "not a SOAP mail"},
		{"MultipartWithoutEnvelope", "Content-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: text/plain\n\nx\n--b--\n", "not a SOAP mail"},
		{"NoBoundary", "Content-Type: multipart/mixed\n\nx", "without a boundary"},
		{"BadContentType", "Content-Type: ;;;\n\n" + envelope12, "malformed Content-Type"},
		{"Charset", "Content-Type: text/xml; charset=iso-8859-1\n\n" + envelope11, "unsupported charset"},
		{"TransferEncoding", "Content-Type: text/xml\nContent-Transfer-Encoding: x-uuencode\n\n" + envelope11, "unsupported Content-Transfer-Encoding"},
		{"BadHeader", "this is not a header\n\n" + envelope11, "malformed mail header"},
		{"HugeHeader", "X-Big: " + strings.Repeat("a", mail.MaxHeaderBytes) + "\n\n" + envelope11, "malformed mail header"},
		{"NotXML", "Content-Type: text/xml\n\nhello, world", ""},
		{"BadBase64", "Content-Type: text/xml\nContent-Transfer-Encoding: base64\n\n!!!!not base64!!!!\n", ""},
		{"Doctype", "Content-Type: text/xml\n\n<!DOCTYPE x [<!ENTITY a 'b'>]>" + envelope11, ""},
		{"TooDeep", strings.Repeat("Content-Type: multipart/mixed; boundary=b\n\n--b\n", 6) + "\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := read(tt.mail)
			require.Error(t, err)
			f := core.FaultOf(err)
			assert.Equal(t, core.CodeSender, f.Code, "%v", err)
			assert.Contains(t, f.Reason, tt.reason)
		})
	}
}

// TestReadLimits: the envelope is read under ReadConfig.Limits.
func TestReadLimits(t *testing.T) {
	_, err := mail.Read(strings.NewReader("Content-Type: text/xml\n\n"+envelope11), &mail.ReadConfig{Limits: core.Limits{MaxBytes: 64}})
	require.Error(t, err)
	assert.Equal(t, core.CodeSender, core.FaultOf(err).Code)
}

// TestLoopGuard: mails that must never be answered get NoneAddress where
// the mail would have given an address, and MetaLoop says why.
func TestLoopGuard(t *testing.T) {
	wsaReplyTo := `<env:Envelope xmlns:env="http://www.w3.org/2003/05/soap-envelope" xmlns:wsa="http://www.w3.org/2005/08/addressing"><env:Header>` +
		`<wsa:ReplyTo><wsa:Address>mailto:explicit@example.org</wsa:Address></wsa:ReplyTo></env:Header>` +
		`<env:Body><p:ping xmlns:p="urn:test">x</p:ping></env:Body></env:Envelope>`
	tests := []struct {
		name, headers, env string
		loop               string // "" when the mail is answered
		replyTo            string
	}{
		{"Request", "From: c@example.org\n", envelope12, "", "mailto:c@example.org"},
		{"AutoSubmittedNo", "From: c@example.org\nAuto-Submitted: no\n", envelope12, "", "mailto:c@example.org"},
		{"OtherServicesXLoop", "From: c@example.org\nX-Loop: c@example.org\n", envelope12, "", "mailto:c@example.org"},
		{"BounceEmptyReturnPath", "Return-Path: <>\nFrom: c@example.org\n", envelope12, "bounce", core.NoneAddress},
		{"MailerDaemon", "From: MAILER-DAEMON@example.org\n", envelope12, "bounce", core.NoneAddress},
		{"AutoReplied", "From: c@example.org\nAuto-Submitted: auto-replied\n", envelope12, "auto-submitted", core.NoneAddress},
		{"AutoGenerated", "From: c@example.org\nAuto-Submitted: auto-generated\n", envelope12, "auto-submitted", core.NoneAddress},
		{"XAutoreply", "From: c@example.org\nX-Autoreply: yes\n", envelope12, "auto-reply", core.NoneAddress},
		{"PrecedenceBulk", "From: c@example.org\nPrecedence: bulk\n", envelope12, "precedence", core.NoneAddress},
		{"MailingList", "From: c@example.org\nList-Id: <soap.lists.example.org>\n", envelope12, "mailing list", core.NoneAddress},
		{"ExplicitReplyToKept", "From: c@example.org\nAuto-Submitted: auto-replied\n", wsaReplyTo, "auto-submitted", "mailto:explicit@example.org"},
		{"OwnXLoop", "From: c@example.org\nX-Loop: soap@example.test\n", wsaReplyTo, "x-loop", core.NoneAddress},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := tt.headers + "Content-Type: application/soap+xml\n\n" + tt.env
			m, err := read(text, "SOAP@example.test")
			require.NoError(t, err)
			assert.Equal(t, tt.replyTo, m.ReplyTo)
			if tt.loop == "" {
				assert.Empty(t, m.Meta[meta(mail.KeyLoop)])
				return
			}
			assert.Contains(t, m.Meta[meta(mail.KeyLoop)], tt.loop)
			if tt.replyTo == core.NoneAddress {
				assert.Equal(t, core.NoneAddress, m.FaultTo)
			}
		})
	}
}

// TestMessageIDMapping: MessageIDHeader and IDFromMessageID are inverse,
// and a Message-ID never carries what a header cannot.
func TestMessageIDMapping(t *testing.T) {
	tests := []struct{ id, header string }{
		{"urn:uuid:6f1c7a3e-0c1b-4d5e-9f00-1234567890ab", "<6f1c7a3e-0c1b-4d5e-9f00-1234567890ab@uuid.invalid>"},
		{"mid:abc.123@example.org", "<abc.123@example.org>"},
		{"mid:a%7Bb%7D@example.org", "<a{b}@example.org>"},
		{"urn:example:42", "<dXJuOmV4YW1wbGU6NDI@id.invalid>"},
		{"x\r\nBcc: victim@example.org", "<eA0KQmNjOiB2aWN0aW1AZXhhbXBsZS5vcmc@id.invalid>"},
		{"urn:uuid:not a uuid", "<dXJuOnV1aWQ6bm90IGEgdXVpZA@id.invalid>"},
		{"mid:no-at-sign", "<bWlkOm5vLWF0LXNpZ24@id.invalid>"},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			h := mail.MessageIDHeader(tt.id)
			assert.Equal(t, tt.header, h)
			assert.Equal(t, tt.id, mail.IDFromMessageID(h))
		})
	}
	assert.Equal(t, "", mail.MessageIDHeader(""))
	assert.Equal(t, "", mail.IDFromMessageID("  "))
	assert.Equal(t, "mid:first@x", mail.IDFromMessageID(" <first@x> <second@y>"), "the first id of a list")
}
