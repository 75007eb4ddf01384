package nats

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// headerTextRef is headerText's definition, written plainly.
func headerTextRef(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r < 0x20 && r != '\t' || r == 0x7f {
			return false
		}
	}
	return true
}

// FuzzHeaderText: headerText's ASCII fast path agrees with its definition.
func FuzzHeaderText(f *testing.F) {
	for _, s := range []string{"", "urn:x", "a\tb", "a\nb", "\x7f", "é", "é\x01", "\xff", "x\xc3", "nats:orders.new", "日本\t語"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := headerText(s), headerTextRef(s); got != want {
			t.Fatalf("headerText(%q) = %v, want %v", s, got, want)
		}
	})
}

// TestHeaderTextEveryPosition: headerText's eight-byte steps find a control
// character, DEL or a byte beyond ASCII (valid UTF-8 or not) at any place
// in values of 1 to 40 bytes, and pass a tab.
func TestHeaderTextEveryPosition(t *testing.T) {
	odd := []string{"\x00", "\x01", "\x1f", "\t", "\x7f", "\x80", "\xff", "é", " ", "~"}
	for n := 1; n <= 40; n++ {
		for at := 0; at < n; at++ {
			for _, o := range odd {
				b := []byte(strings.Repeat("a", n))
				s := string(b[:at]) + o + string(b[at+1:])
				if got, want := headerText(s), headerTextRef(s); got != want {
					t.Fatalf("headerText(%q) = %v, want %v", s, got, want)
				}
			}
		}
	}
}

// TestHeaderIndex: the binding's headers are found in any spelling.
func TestHeaderIndex(t *testing.T) {
	for k, want := range map[string]int{
		"Content-Type": 0, "content-type": 0, "CONTENT-TYPE": 0,
		"SOAPAction": 1, "soapaction": 1,
		"Nats-Msg-Id": 2, "NATS-MSG-ID": 2,
		"SOAP-Target-Service": 3, "soap-target-service": 3,
		"Content-Length": -1, "": -1, "Nats-Msg": -1,
	} {
		if got := headerIndex(k); got != want {
			t.Errorf("headerIndex(%q) = %d, want %d", k, got, want)
		}
	}
}
