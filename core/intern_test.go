package core

import (
	"slices"
	"strings"
	"testing"
)

// TestIntern: names seen lately come back without an allocation; any name
// comes back equal to its bytes; long ones are not kept.
func TestIntern(t *testing.T) {
	p := &parser{}
	names := []string{"urn:mechoString", "urn:mechoStringResponse", "urn:hTransaction", "urn:aTo", "urn:bOther"}
	for _, n := range names[:4] {
		if got := p.intern([]byte(n)); got != n {
			t.Fatalf("intern(%q) = %q", n, got)
		}
	}
	b := []byte(names[1])
	if a := testing.AllocsPerRun(100, func() { _ = p.intern(b) }); a != 0 {
		t.Errorf("a name seen lately: %v allocations, want 0", a)
	}
	p.intern([]byte(names[4])) // takes the oldest's place
	if !slices.Contains(p.interned[:], names[4]) || slices.Contains(p.interned[:], names[0]) {
		t.Errorf("kept %q, want the last four of %q", p.interned, names)
	}
	long := []byte(strings.Repeat("n", internMax+1))
	p.intern(long)
	for _, s := range p.interned {
		if len(s) > internMax {
			t.Errorf("a name of %d bytes was kept", len(s))
		}
	}
	if got := p.intern(long); got != string(long) {
		t.Errorf("a long name came back as %q", got)
	}
}
