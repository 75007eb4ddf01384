package xmltok_test

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/soapwire/soapwire/core/internal/xmltok"
)

// readsAsName reports whether the Reader reads <s/> as one element named s
// without a prefix.
func readsAsName(s string) bool {
	if strings.ContainsAny(s, ":/>< \t\r\n=\"'") {
		return false // not a name, or not read as one name in <s/>
	}
	r := xmltok.NewReader(bytes.NewReader([]byte("<"+s+"/>")), xmltok.Limits{})
	defer r.Release()
	ok := false
	for {
		t, err := r.Next()
		if err == io.EOF {
			return ok
		}
		if err != nil {
			return false
		}
		if t.Kind == xmltok.StartElement {
			ok = string(t.Name.Local) == s && len(t.Name.Prefix) == 0
		}
	}
}

var ncNameSeeds = []string{"", "a", "Body", "_x", "a-b.c_d9", "9a", "-a", ".a", "a:b", ":a", "a b", "é", "日本", "a\u0300", "\u0300a", "a\xff", "\xff", "a\u00b7b", "x\uFFFD"}

func TestIsNCName(t *testing.T) {
	for _, s := range ncNameSeeds {
		assert.Equal(t, readsAsName(s), xmltok.IsNCName(s), "%q", s)
	}
	assert.True(t, xmltok.IsNCName("echoStringResponse"))
	assert.False(t, xmltok.IsNCName("soap:Body"))
	assert.False(t, xmltok.IsNCName(""))
}

func FuzzIsNCName(f *testing.F) {
	for _, s := range ncNameSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := xmltok.IsNCName(s), readsAsName(s); got != want {
			t.Fatalf("IsNCName(%q) = %v, the Reader reads it as a name: %v", s, got, want)
		}
	})
}
