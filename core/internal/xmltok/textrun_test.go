package xmltok

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// TestPlainWord checks the eight-byte test against the class table: a word
// with any byte text does not carry as is (or a tab or line feed) is never
// plain, one of plain bytes always is.
func TestPlainWord(t *testing.T) {
	plain := func(c byte) bool { return class[c]&cText != 0 && c != '\t' && c != '\n' }
	for c := range 256 {
		for i := range 8 {
			for _, fill := range []byte{'a', ' ', '!', 0x7f, '=', '?'} {
				w := bytes.Repeat([]byte{fill}, 8)
				w[i] = byte(c)
				if got, want := plainWord(binary.LittleEndian.Uint64(w)), plain(byte(c)); got != want {
					t.Fatalf("plainWord(%q) = %v, want %v", w, got, want)
				}
			}
		}
	}
}

// TestTextRun compares textRun with a loop over the class table on random
// input drawn mostly from plain bytes.
func TestTextRun(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 40000 {
		// Short runs, and (every other case) runs long enough for the
		// 32-byte steps, with the odd byte at any offset in them.
		b, odd := make([]byte, r.IntN(40)), 20
		if i%2 == 1 {
			b, odd = make([]byte, r.IntN(160)), 150
		}
		for i := range b {
			if r.IntN(odd) == 0 {
				b[i] = byte(r.IntN(256))
			} else {
				b[i] = byte(0x20 + r.IntN(0x60))
			}
		}
		k := r.IntN(len(b) + 1)
		want := k
		for want < len(b) && class[b[want]]&cText != 0 {
			want++
		}
		if got := textRun(b, k); got != want {
			t.Fatalf("textRun(%q, %d) = %d, want %d", b, k, got, want)
		}
	}
}
