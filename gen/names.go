package gen

import (
	"strconv"
	"strings"
	"unicode"
)

// goName turns an XML name into an exported Go identifier: the letters and
// digits of each word, each word's first letter upper case ("echoString"
// EchoString, "get_item" GetItem, "Foo.Bar-baz" FooBarBaz); an identifier
// that would not start with an upper-case letter gets an X in front
// ("123abc" X123abc).
func goName(s string) string {
	var b strings.Builder
	upper := true
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			upper = true
			continue
		}
		if upper {
			r = unicode.ToUpper(r)
			upper = false
		}
		b.WriteRune(r)
	}
	out := b.String()
	if out == "" {
		return "X"
	}
	if first := []rune(out)[0]; !unicode.IsUpper(first) {
		out = "X" + out
	}
	return out
}

// lowerName turns a Go name into an unexported identifier of the same
// words, for helpers ("Person" person).
func lowerName(s string) string {
	if s == "" {
		return s
	}
	r := []rune(s)
	r[0] = unicode.ToLower(r[0])
	out := string(r)
	if isKeyword(out) {
		out += "_"
	}
	return out
}

// namer hands out identifiers in one scope, each once: a name already
// taken gets the first free numeric suffix (Person, Person2, Person3…).
type namer struct {
	taken map[string]bool
}

func newNamer(reserved ...string) *namer {
	n := &namer{taken: map[string]bool{}}
	for _, r := range reserved {
		n.taken[r] = true
	}
	return n
}

// name returns want, or want with the first free suffix.
func (n *namer) name(want string) string {
	if !n.taken[want] {
		n.taken[want] = true
		return want
	}
	for i := 2; ; i++ {
		c := want + strconv.Itoa(i)
		if !n.taken[c] {
			n.taken[c] = true
			return c
		}
	}
}

// reserve marks names as taken.
func (n *namer) reserve(names ...string) {
	for _, s := range names {
		n.taken[s] = true
	}
}

var goKeywords = map[string]bool{
	"break": true, "case": true, "chan": true, "const": true, "continue": true, "default": true,
	"defer": true, "else": true, "fallthrough": true, "for": true, "func": true, "go": true,
	"goto": true, "if": true, "import": true, "interface": true, "map": true, "package": true,
	"range": true, "return": true, "select": true, "struct": true, "switch": true, "type": true, "var": true,
}

func isKeyword(s string) bool { return goKeywords[s] }
