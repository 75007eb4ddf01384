package core_test

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/coretest"
)

// RFC 2045 §6.8: white space in a base64 part is not data, wherever it
// stands (lines of any length, CRLF or LF, spaces and tabs); the root part
// may be base64 too.
func TestReadPackageBase64WhiteSpace(t *testing.T) {
	data := make([]byte, 1000)
	for i := range data {
		data[i] = byte(i * 7)
	}
	enc := base64.StdEncoding.EncodeToString(data)
	lines := func(n int, sep string) string {
		var b strings.Builder
		for s := enc; s != ""; {
			k := min(n, len(s))
			b.WriteString(s[:k])
			s = s[k:]
			if s != "" {
				b.WriteString(sep)
			}
		}
		return b.String()
	}
	root := base64.StdEncoding.EncodeToString([]byte(pkEnvelope(core.V11)))
	for name, body := range map[string]string{
		"76 CRLF":           lines(76, "\r\n"),
		"64 LF":             lines(64, "\n"),
		"spaces":            lines(4, " "),
		"tabs and spaces":   lines(10, " \t "),
		"every character":   lines(1, "\r\n "),
		"trailing CRLF":     enc + "\r\n\r\n",
		"leading blanks":    " \t\r\n" + enc,
		"vertical tab, ff":  lines(8, "\v\f"),
		"a padded quantum":  lines(3, " "),
		"one line, no wrap": enc,
	} {
		t.Run(name, func(t *testing.T) {
			pkg := pkPackage(
				pkPart{"Content-Type: text/xml\r\nContent-Transfer-Encoding: base64\r\n", root[:40] + "\r\n  " + root[40:]},
				pkPart{"Content-Type: application/octet-stream\r\nContent-ID: <d@x>\r\nContent-Transfer-Encoding: BASE64\r\n", body})
			m, err := core.ReadPackage(strings.NewReader(pkg), `multipart/related; boundary=B`, core.Limits{SpoolThreshold: 100, SpoolDir: t.TempDir()})
			require.NoError(t, err)
			defer m.Close()
			assert.Equal(t, "Upload", m.Body().Name().Local, "the root part decoded")
			assert.Equal(t, data, coretest.PartBytes(t, m.Attachment("d@x")))
		})
	}
}

// Characters outside the base64 alphabet other than white space are
// refused (§6.8 permits ignoring them but calls them evidence of a
// transmission error: a binary part would be handed over damaged), as are
// data after the padding and a last group cut short.
func TestReadPackageBase64Refusals(t *testing.T) {
	for name, tc := range map[string]struct{ body, reason string }{
		"a bang":                {"UE5H!UE5H", `the character '!' at byte 4 is outside the base64 alphabet`},
		"a NUL":                 {"UE5H\x00", `the character '\x00' at byte 4`},
		"a dot after a line":    {"UE5H\r\n.", `the character '.' at byte 6`},
		"non-ASCII":             {"UE5H\u00e9UE5H", `outside the base64 alphabet`},
		"url-safe alphabet":     {"UE5_", `the character '_' at byte 3`},
		"data after padding":    {"UE4=UE5H", "broken base64"},
		"padding in the middle": {"U===", "broken base64"},
		"cut short":             {"UE5HU", "in the middle of a 4-character group"},
		"cut short, spaces":     {"UE5 HU\r\n", "in the middle of a 4-character group"},
	} {
		t.Run(name, func(t *testing.T) {
			pkg := pkPackage(pkPart{"Content-Type: text/xml\r\n", pkEnvelope(core.V11)},
				pkPart{"Content-Type: image/png\r\nContent-ID: <d@x>\r\nContent-Transfer-Encoding: base64\r\n", tc.body})
			_, err := core.ReadPackage(strings.NewReader(pkg), `multipart/related; boundary=B`, core.Limits{})
			f := pkFault(t, err, core.ErrMalformed)
			assert.Contains(t, f.Reason, "malformed package: part 2: broken base64")
			assert.Contains(t, f.Reason, tc.reason)
		})
	}
}
