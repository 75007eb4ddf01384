package xmltok_test

import (
	"encoding/xml"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"

	"github.com/soapwire/soapwire/core/internal/xmltok"
)

// TestNamesCoverEncodingXML checks every non-ASCII rune: a name encoding/xml
// accepts (it uses XML 1.0 fourth edition's tables) the scanner accepts too
// (its fifth edition rules, §2.3, allow more).
func TestNamesCoverEncodingXML(t *testing.T) {
	stdOK := func(doc string) bool {
		d := xml.NewDecoder(strings.NewReader(doc))
		d.Strict = true
		for {
			if _, err := d.RawToken(); err != nil {
				return err.Error() == "EOF"
			}
		}
	}
	refused := 0
	for r := rune(0x80); r <= utf8.MaxRune; r++ {
		if r >= 0xD800 && r <= 0xDFFF {
			continue
		}
		if !xmltok.IsNameStart(r) {
			refused++
			if doc := "<" + string(r) + "/>"; stdOK(doc) {
				t.Errorf("%U: encoding/xml accepts it to start a name, the scanner does not", r)
			}
		}
		if !xmltok.IsNameRune(r) {
			if doc := "<a" + string(r) + "/>"; stdOK(doc) {
				t.Errorf("%U: encoding/xml accepts it in a name, the scanner does not", r)
			}
		}
	}
	assert.Greater(t, refused, 100000, "the check ran over what the scanner refuses")
	for _, doc := range []string{"<é/>", "<aé/>", "<a·/>", "<𝄞/>", "<a\u0300/>"} {
		_, err := render(doc, xmltok.Limits{})
		assert.NoError(t, err, doc)
	}
	for _, doc := range []string{"<\u0300/>", "<·/>", "<a\u00d7/>", "<a\u2190/>"} {
		_, err := render(doc, xmltok.Limits{})
		assert.ErrorContains(t, err, "invalid XML name", doc)
	}
}
