package core_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
)

func TestReadNotEnvelope(t *testing.T) {
	for _, c := range []struct{ name, in, reason string }{
		{"empty", ``, "no root element"},
		{"white space", " \n\t", "no root element"},
		{"only a comment", `<!-- x -->`, "no root element"},
		{"JSON", `{"message":"hi"}`, ""},
		{"plain text", `hello`, ""},
		{"binary", "\x00\x01\x02\xff\xfe", ""},
		{"HTML", `<html><body>404</body></html>`, "the root element is html, not a SOAP Envelope"},
		{"a Body as root", `<s:Body xmlns:s="` + core.NamespaceV11 + `"/>`, "not a SOAP Envelope"},
		{"a document", `<?xml version="1.0"?><po:PurchaseOrder xmlns:po="urn:po"><po:item/></po:PurchaseOrder>`, "the root element is {urn:po}PurchaseOrder, not a SOAP Envelope"},
	} {
		_, err := core.ReadMessage(strings.NewReader(c.in), core.Limits{})
		require.Error(t, err, c.name)
		assert.ErrorIs(t, err, core.ErrNotEnvelope, "%s: %v", c.name, err)
		var f *core.Fault
		require.ErrorAs(t, err, &f, c.name)
		assert.Equal(t, core.CodeSender, f.Code, c.name)
		assert.Contains(t, f.Reason, c.reason, c.name)
		assert.False(t, errors.Is(err, core.ErrTooLarge) || errors.Is(err, core.ErrLimit), c.name)
		_, err = core.ReadEnvelope(strings.NewReader(c.in), core.Limits{})
		assert.ErrorIs(t, err, core.ErrNotEnvelope, "ReadEnvelope %s", c.name)
	}
	// the fault's text stays what it was: the reason says it once
	_, err := core.ReadMessage(strings.NewReader(`<a xmlns="urn:x"/>`), core.Limits{})
	assert.EqualError(t, err, "soap fault: Sender: the root element is {urn:x}a, not a SOAP Envelope")
	_, err = core.ReadMessage(strings.NewReader(``), core.Limits{})
	assert.Equal(t, 1, strings.Count(err.Error(), "no root element"), err.Error())
}

// TestReadEnvelopeIsNotNotEnvelope: envelopes refused for what they hold,
// in the wrong namespace or over a limit are not ErrNotEnvelope.
func TestReadEnvelopeIsNotNotEnvelope(t *testing.T) {
	for _, c := range []struct {
		name, in string
		lim      core.Limits
	}{
		{"version mismatch", `<s:Envelope xmlns:s="urn:not-soap"><s:Body/></s:Envelope>`, core.Limits{}},
		{"no Body", `<s:Envelope xmlns:s="` + core.NamespaceV11 + `"/>`, core.Limits{}},
		{"malformed header", `<s:Envelope xmlns:s="` + core.NamespaceV11 + `"><s:Header><h:a xmlns:h="urn:h"></s:Header>`, core.Limits{}},
		{"truncated", `<s:Envelope xmlns:s="` + core.NamespaceV12 + `"><s:Bo`, core.Limits{}},
		{"too large before the root", `<!--` + strings.Repeat("x", 200) + `--><s:Envelope xmlns:s="` + core.NamespaceV11 + `"><s:Body/></s:Envelope>`, core.Limits{MaxBytes: 64}},
	} {
		_, err := core.ReadMessage(strings.NewReader(c.in), c.lim)
		require.Error(t, err, c.name)
		assert.NotErrorIs(t, err, core.ErrNotEnvelope, "%s: %v", c.name, err)
	}
}

func ExampleErrNotEnvelope() {
	for _, in := range []string{
		`{"message":"hi"}`,
		`<html><body>404</body></html>`,
		`<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"/>`,
	} {
		_, err := core.ReadMessage(strings.NewReader(in), core.Limits{})
		if errors.Is(err, core.ErrNotEnvelope) {
			fmt.Println("400 Bad Request, no SOAP fault")
		} else if err != nil {
			fmt.Println("SOAP fault:", core.FaultOf(err).Code)
		}
	}
	// Output:
	// 400 Bad Request, no SOAP fault
	// 400 Bad Request, no SOAP fault
	// SOAP fault: Sender
}
