package main_test

import (
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
)

// utf16Of encodes s as UTF-16 with a byte order mark.
func utf16Of(s string, big bool) string {
	b := []byte{0xFF, 0xFE}
	if big {
		b = []byte{0xFE, 0xFF}
	}
	for _, u := range utf16.Encode([]rune(s)) {
		if big {
			b = append(b, byte(u>>8), byte(u))
		} else {
			b = append(b, byte(u), byte(u>>8))
		}
	}
	return string(b)
}

// TestSendUTF16: a UTF-16 document (with its byte order mark) is sent the
// way document.Send sends one, transcoded to UTF-8 with its prolog left
// out; a UTF-16 envelope is sent as it is; UTF-16 that is not valid (a lone
// surrogate) is refused and nothing is sent.
func TestSendUTF16(t *testing.T) {
	sink := startHTTPSink(t)
	const doc = `<?xml version="1.0" encoding="UTF-16"?>
<!-- Bestellung -->
<po:order xmlns:po="urn:example:po"><po:item>Unterlegscheibe ⌀8 – 𝄞</po:item></po:order>`
	const body = `<po:order xmlns:po="urn:example:po"><po:item>Unterlegscheibe ⌀8 – 𝄞</po:item></po:order>`
	for _, big := range []bool{false, true} {
		res := invocation{args: []string{"send", "--to", sink.url}, stdin: strings.NewReader(utf16Of(doc, big))}.run(t)
		require.Equal(t, 0, res.code, "%s", res)
		g := sink.next(t)
		assert.Equal(t, body, g.body, "big endian: %v", big)
		assert.Equal(t, field(t, res.stdout, "message-id"), g.id)
	}

	const env = `<?xml version="1.0" encoding="UTF-16"?><s:Envelope xmlns:s="http://www.w3.org/2003/05/soap-envelope"><s:Header><t:Trace xmlns:t="urn:example:trace">hop-1</t:Trace></s:Header><s:Body>` + body + `</s:Body></s:Envelope>`
	res := invocation{args: []string{"send", "--to", sink.url}, stdin: strings.NewReader(utf16Of(env, false))}.run(t)
	require.Equal(t, 0, res.code, "%s", res)
	g := sink.next(t)
	assert.Equal(t, core.V12, g.version, "an envelope is sent as it is, in its own version")
	assert.Equal(t, strings.Replace(body, `<po:order `, `<po:order xmlns:s="http://www.w3.org/2003/05/soap-envelope" `, 1), g.body,
		"the body as core copies it: with the declarations in scope")

	lone := utf16Of(`<a>x</a>`, false)
	lone = lone[:6] + "\x00\xD8" + lone[6:] // a high surrogate with no low one after it
	res = invocation{args: []string{"send", "--to", sink.url}, stdin: strings.NewReader(lone)}.run(t)
	assert.Equal(t, 1, res.code, "%s", res)
	assert.Contains(t, res.stderr, "not valid UTF-16")
	select {
	case g := <-sink.got:
		t.Fatalf("a refused send arrived: %+v", g)
	default:
	}
}
