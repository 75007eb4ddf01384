package nats

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestHeaderText: a header value is UTF-8 text with no control character
// but tab: each odd byte or character, at every place in values of 1 to 40
// bytes, is accepted or refused as it says.
func TestHeaderText(t *testing.T) {
	odd := []struct {
		s  string
		ok bool
	}{
		{"\x00", false}, {"\x01", false}, {"\x1f", false}, {"\n", false}, {"\r", false}, {"\x7f", false},
		{"\x80", false}, {"\xff", false}, {"\xc3", false}, {"\xed\xa0\x80", false}, // not UTF-8
		{"\t", true}, {"é", true}, {"日", true}, {"\u0085", true}, {" ", true}, {"~", true},
	}
	for n := 1; n <= 40; n++ {
		for at := 0; at < n; at++ {
			for _, o := range odd {
				a := strings.Repeat("a", n)
				s := a[:at] + o.s + a[at+1:]
				if got := headerText(s); got != o.ok {
					t.Fatalf("headerText(%q) = %v, want %v", s, got, o.ok)
				}
			}
		}
	}
	assert.True(t, headerText(""))
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
