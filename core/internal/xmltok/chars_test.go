package xmltok_test

import (
	"testing"

	"github.com/soapwire/soapwire/core/internal/xmltok"
)

// TestClassTable recomputes the byte class table from its rules.
func TestClassTable(t *testing.T) {
	for c := range 256 {
		b := byte(c)
		var want uint8
		letter := 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || b == '_'
		if letter {
			want |= xmltok.CNameStart
		}
		if letter || '0' <= b && b <= '9' || b == '-' || b == '.' {
			want |= xmltok.CName
		}
		ascii := b >= 0x20 && b < 0x80
		if (ascii || b == '\t' || b == '\n') && b != '<' && b != '&' && b != ']' {
			want |= xmltok.CText
		}
		if ascii && b != '<' && b != '&' && b != '"' && b != '\'' {
			want |= xmltok.CValue
		}
		if b == ' ' || b == '\t' || b == '\n' || b == '\r' {
			want |= xmltok.CSpace
		}
		if (ascii || b == '\t' || b == '\n') && b != ']' {
			want |= xmltok.CCDATA
		}
		if got := xmltok.ClassOf(b); got != want {
			t.Errorf("class of %#x is %#x, want %#x", b, got, want)
		}
	}
}
