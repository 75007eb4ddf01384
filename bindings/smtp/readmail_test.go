package smtp_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soapsmtp "github.com/soapwire/soapwire/bindings/smtp"
	"github.com/soapwire/soapwire/core"
)

// TestReadMail: ReadMail is the shared mail format (bindings/internal/mail,
// tested there) with this binding's Meta keys and options.
func TestReadMail(t *testing.T) {
	mail := "From: c@example.org\nMessage-ID: <m@example.org>\nX-Loop: soap@example.test\nContent-Type: text/xml\n\n" + envelope11
	m, err := soapsmtp.ReadMail(strings.NewReader(mail), soapsmtp.WithAddresses("soap@example.test"))
	require.NoError(t, err)
	assert.Equal(t, "mid:m@example.org", m.ID)
	assert.Equal(t, "<m@example.org>", m.Meta[soapsmtp.MetaMessageID])
	assert.Equal(t, "c@example.org", m.Meta[soapsmtp.MetaFrom])
	assert.Contains(t, m.Meta[soapsmtp.MetaLoop], "x-loop")
	assert.Equal(t, core.NoneAddress, m.ReplyTo, "the service's own mail is never answered")
	for k := range m.Meta {
		assert.True(t, strings.HasPrefix(k, "smtp."), k)
	}

	_, err = soapsmtp.ReadMail(strings.NewReader("Content-Type: text/xml\n\n"+envelope11), soapsmtp.WithLimits(core.Limits{MaxBytes: 64}))
	require.Error(t, err)
	assert.Equal(t, core.CodeSender, core.FaultOf(err).Code)

	h := soapsmtp.MessageIDHeader("urn:uuid:6f1c7a3e-0c1b-4d5e-9f00-1234567890ab")
	assert.Equal(t, "<6f1c7a3e-0c1b-4d5e-9f00-1234567890ab@uuid.invalid>", h)
	assert.Equal(t, "urn:uuid:6f1c7a3e-0c1b-4d5e-9f00-1234567890ab", soapsmtp.IDFromMessageID(h))
}
