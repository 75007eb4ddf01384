package xsd

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"
)

// simpleChecker checks simple values against their types; it caches the
// patterns it translates.
type simpleChecker struct {
	lex      *lexicon
	patterns sync.Map // XML Schema pattern → *regexp.Regexp, nil when it cannot be translated
}

// check normalizes raw as t's white space facet says and checks it against
// t: its lexical space, its variety (list items, union members) and the
// facets that are cheap to check (enumeration, lengths, patterns that
// translate to Go's regular expressions, numeric bounds and digits). It
// returns the normalized value.
func (c *simpleChecker) check(t *SimpleType, raw string, res resolver) (string, error) {
	if err := checkChars(raw); err != nil {
		return "", err
	}
	return c.checkDepth(t, raw, res, 0)
}

func (c *simpleChecker) checkDepth(t *SimpleType, raw string, res resolver, depth int) (string, error) {
	if depth > 32 {
		return "", errors.New("simple types nest too deep")
	}
	s := normalize(raw, whiteSpace(t))
	switch t.Variety {
	case List:
		items := strings.Fields(s)
		if t.Item != nil {
			for _, it := range items {
				if _, err := c.checkDepth(t.Item, it, res, depth+1); err != nil {
					return "", fmt.Errorf("list item %q: %w", it, err)
				}
			}
		}
		return s, c.facets(t, s, KindNone, len(items), res)
	case Union:
		var first error
		for _, m := range t.Members {
			if v, err := c.checkDepth(m, raw, res, depth+1); err == nil {
				return v, c.facets(t, v, KindNone, -1, res)
			} else if first == nil {
				first = err
			}
		}
		if first == nil {
			return s, c.facets(t, s, KindNone, -1, res)
		}
		return "", fmt.Errorf("no member type of the union accepts it (%v)", first)
	}
	k := KindAnySimpleType
	if b := t.Builtin(); b != nil {
		k = b.Kind
	}
	if k.Item() != KindNone { // NMTOKENS, IDREFS, ENTITIES
		items := strings.Fields(s)
		if len(items) == 0 {
			return "", fmt.Errorf("an xsd:%s holds at least one item", k)
		}
		for _, it := range items {
			if err := c.lex.checkBuiltin(k.Item(), it, res); err != nil {
				return "", fmt.Errorf("list item %q: %w", it, err)
			}
		}
		return s, c.facets(t, s, KindNone, len(items), res)
	}
	if err := c.lex.checkBuiltin(k, s, res); err != nil {
		return "", err
	}
	return s, c.facets(t, s, k, -1, res)
}

// facets checks the facets of t on a value s of built-in kind k (KindNone
// for a list or union); items is a list's length, -1 otherwise.
func (c *simpleChecker) facets(t *SimpleType, s string, k Kind, items int, res resolver) error {
	f := t.EffectiveFacets()
	if len(f.Enumeration) > 0 && !enumerated(f.Enumeration, s, k, res) {
		vals := make([]string, 0, len(f.Enumeration))
		for i, e := range f.Enumeration {
			if i == 8 {
				vals = append(vals, "…")
				break
			}
			vals = append(vals, e.Value)
		}
		return fmt.Errorf("not one of the values the type enumerates (%s)", strings.Join(vals, ", "))
	}
	n := items
	if n < 0 {
		switch k.Primitive() {
		case KindHexBinary:
			n = len(s) / 2
		case KindBase64Binary:
			b, _ := decodeBase64(s)
			n = len(b)
		case KindQName, KindNOTATION:
			n = -1 // length facets do not apply (XML Schema 1.1 deprecates them)
		default:
			n = utf8.RuneCountInString(s)
		}
	}
	if n >= 0 {
		if f.Length != nil && n != *f.Length {
			return fmt.Errorf("its length is %d, the type's is %d", n, *f.Length)
		}
		if f.MinLength != nil && n < *f.MinLength {
			return fmt.Errorf("its length is %d, under the type's minimum of %d", n, *f.MinLength)
		}
		if f.MaxLength != nil && n > *f.MaxLength {
			return fmt.Errorf("its length is %d, over the type's maximum of %d", n, *f.MaxLength)
		}
	}
	if len(f.Patterns) > 0 {
		ok, checked := false, false
		for _, p := range f.Patterns {
			re := c.pattern(p)
			if re == nil {
				continue
			}
			checked = true
			if re.MatchString(s) {
				ok = true
				break
			}
		}
		if checked && !ok {
			return fmt.Errorf("does not match the type's pattern %s", f.Patterns[0])
		}
	}
	if isNumeric(k) {
		return numericFacets(f, s, k)
	}
	return nil
}

// enumerated reports whether s is one of the enumerated values: by value
// for numbers and QNames, by text for the others.
func enumerated(es []Enum, s string, k Kind, res resolver) bool {
	for _, e := range es {
		if e.Value == s {
			return true
		}
	}
	switch {
	case k.Primitive() == KindQName || k.Primitive() == KindNOTATION:
		n, err := parseQName(s, res)
		if err != nil {
			return false
		}
		for _, e := range es {
			if e.QName == n {
				return true
			}
		}
	case isNumeric(k):
		v, ok := numberOf(s, k)
		if !ok {
			return false
		}
		for _, e := range es {
			if w, ok := numberOf(e.Value, k); ok && w.Cmp(v) == 0 {
				return true
			}
		}
	}
	return false
}

func isNumeric(k Kind) bool {
	switch k.Primitive() {
	case KindDecimal, KindFloat, KindDouble:
		return true
	}
	return false
}

// numberOf reads a numeric value exactly (a float as the exact value of
// its binary form); ok is false for NaN and the infinities.
func numberOf(s string, k Kind) (*big.Rat, bool) {
	if k.Primitive() == KindDecimal {
		r, ok := new(big.Rat).SetString(strings.TrimPrefix(s, "+"))
		return r, ok
	}
	f, err := parseFloat(s, k)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, false
	}
	r := new(big.Rat)
	if r.SetFloat64(f) == nil {
		return nil, false
	}
	return r, true
}

// numericFacets checks the bounds and digits of a number.
func numericFacets(f Facets, s string, k Kind) error {
	if f.MinInclusive == nil && f.MaxInclusive == nil && f.MinExclusive == nil && f.MaxExclusive == nil &&
		f.TotalDigits == nil && f.FractionDigits == nil {
		return nil
	}
	v, ok := numberOf(s, k)
	if !ok {
		return nil
	}
	bound := func(b *string, test func(int) bool, what string) error {
		if b == nil {
			return nil
		}
		w, ok := numberOf(*b, k)
		if ok && !test(v.Cmp(w)) {
			return fmt.Errorf("%s %s", what, *b)
		}
		return nil
	}
	if err := bound(f.MinInclusive, func(c int) bool { return c >= 0 }, "under the minimum"); err != nil {
		return err
	}
	if err := bound(f.MaxInclusive, func(c int) bool { return c <= 0 }, "over the maximum"); err != nil {
		return err
	}
	if err := bound(f.MinExclusive, func(c int) bool { return c > 0 }, "not over"); err != nil {
		return err
	}
	if err := bound(f.MaxExclusive, func(c int) bool { return c < 0 }, "not under"); err != nil {
		return err
	}
	if k.Primitive() == KindDecimal && (f.TotalDigits != nil || f.FractionDigits != nil) {
		total, frac := digits(s)
		if f.TotalDigits != nil && total > *f.TotalDigits {
			return fmt.Errorf("has %d digits, over the type's %d", total, *f.TotalDigits)
		}
		if f.FractionDigits != nil && frac > *f.FractionDigits {
			return fmt.Errorf("has %d fraction digits, over the type's %d", frac, *f.FractionDigits)
		}
	}
	return nil
}

// digits counts a decimal's significant digits and fraction digits.
func digits(s string) (total, frac int) {
	s = strings.TrimLeft(s, "+-")
	ip, fp, _ := strings.Cut(s, ".")
	ip = strings.TrimLeft(ip, "0")
	fp = strings.TrimRight(fp, "0")
	total = len(ip) + len(fp)
	if total == 0 {
		total = 1
	}
	return total, len(fp)
}

// pattern returns the Go regular expression for an XML Schema pattern, nil
// when it uses what Go's cannot express (character class subtraction,
// Unicode blocks): such a pattern is not checked.
func (c *simpleChecker) pattern(p string) *regexp.Regexp {
	if re, ok := c.patterns.Load(p); ok {
		r, _ := re.(*regexp.Regexp)
		return r
	}
	var re *regexp.Regexp
	if g, ok := translatePattern(p); ok {
		re, _ = regexp.Compile(g)
	}
	c.patterns.Store(p, re)
	return re
}

// translatePattern turns an XML Schema regular expression (Part 2,
// Appendix F) into Go's syntax, anchored: ^ and $ are plain characters
// there, . excludes carriage returns too, and the multi-character escapes
// \i \c \d \w have their XML meanings.
func translatePattern(p string) (string, bool) {
	var b strings.Builder
	b.WriteString(`^(?:`)
	inClass := 0
	for i := 0; i < len(p); i++ {
		ch := p[i]
		switch {
		case ch == '\\' && i+1 < len(p):
			i++
			e := p[i]
			switch e {
			case 'i':
				b.WriteString(pick(inClass > 0, `\p{L}_:`, `[\p{L}_:]`))
			case 'c':
				b.WriteString(pick(inClass > 0, `\p{L}\p{M}\p{N}._:\-`, `[\p{L}\p{M}\p{N}._:\-]`))
			case 'd':
				b.WriteString(`\p{Nd}`)
			case 'w':
				b.WriteString(pick(inClass > 0, `\p{L}\p{M}\p{N}\p{S}`, `[\p{L}\p{M}\p{N}\p{S}]`))
			case 'I', 'C', 'W', 'D':
				if inClass > 0 {
					return "", false
				}
				neg := map[byte]string{'I': `[^\p{L}_:]`, 'C': `[^\p{L}\p{M}\p{N}._:\-]`, 'W': `[^\p{L}\p{M}\p{N}\p{S}]`, 'D': `\P{Nd}`}
				b.WriteString(neg[e])
			case 'p', 'P':
				if i+1 < len(p) && p[i+1] == '{' {
					end := strings.IndexByte(p[i:], '}')
					if end < 0 || strings.HasPrefix(p[i+2:], "Is") {
						return "", false // a Unicode block: Go has none
					}
					b.WriteString(`\` + string(e) + p[i+1:i+end+1])
					i += end
					continue
				}
				return "", false
			default:
				b.WriteByte('\\')
				b.WriteByte(e)
			}
		case ch == '[':
			if inClass > 0 {
				return "", false // a subtraction, or a nested class
			}
			inClass++
			b.WriteByte('[')
			if i+1 < len(p) && p[i+1] == '^' {
				b.WriteByte('^')
				i++
			}
		case ch == ']' && inClass > 0:
			inClass--
			b.WriteByte(']')
		case ch == '-' && inClass > 0 && i+1 < len(p) && p[i+1] == '[':
			return "", false // class subtraction
		case inClass > 0:
			if ch == '^' || ch == '[' {
				b.WriteByte('\\')
			}
			b.WriteByte(ch)
		case ch == '.':
			b.WriteString(`[^\n\r]`)
		case ch == '^' || ch == '$':
			b.WriteByte('\\')
			b.WriteByte(ch)
		default:
			b.WriteByte(ch)
		}
	}
	if inClass > 0 {
		return "", false
	}
	b.WriteString(`)$`)
	return b.String(), true
}

func pick(cond bool, a, b string) string {
	if cond {
		return a
	}
	return b
}
