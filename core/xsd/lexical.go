package xsd

import (
	"encoding/base64"
	"encoding/xml"
	"errors"
	"fmt"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/soapwire/soapwire/core/internal/xmlesc"
	"github.com/soapwire/soapwire/core/internal/xmltok"
)

// lexicon holds the lexical forms of the built-in types (XML Schema Part
// 2, §3), compiled once per codec.
type lexicon struct {
	decimal, integer, duration, dateTime, date, time, gYearMonth, gYear, gMonthDay, gDay, gMonth, hex, language *regexp.Regexp
}

func newLexicon() *lexicon {
	const zone = `(Z|[+-][0-9]{2}:[0-9]{2})?`
	const year = `(-?(?:[1-9][0-9]{4,}|[0-9]{4}))`
	return &lexicon{
		decimal:    regexp.MustCompile(`^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)$`),
		integer:    regexp.MustCompile(`^[+-]?[0-9]+$`),
		duration:   regexp.MustCompile(`^-?P([0-9]+Y)?([0-9]+M)?([0-9]+D)?(T([0-9]+H)?([0-9]+M)?([0-9]+(\.[0-9]+)?S)?)?$`),
		dateTime:   regexp.MustCompile(`^` + year + `-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})(\.[0-9]+)?` + zone + `$`),
		date:       regexp.MustCompile(`^` + year + `-([0-9]{2})-([0-9]{2})` + zone + `$`),
		time:       regexp.MustCompile(`^([0-9]{2}):([0-9]{2}):([0-9]{2})(\.[0-9]+)?` + zone + `$`),
		gYearMonth: regexp.MustCompile(`^` + year + `-([0-9]{2})` + zone + `$`),
		gYear:      regexp.MustCompile(`^` + year + zone + `$`),
		gMonthDay:  regexp.MustCompile(`^--([0-9]{2})-([0-9]{2})` + zone + `$`),
		gDay:       regexp.MustCompile(`^---([0-9]{2})` + zone + `$`),
		gMonth:     regexp.MustCompile(`^--([0-9]{2})(--)?` + zone + `$`),
		hex:        regexp.MustCompile(`^([0-9a-fA-F]{2})*$`),
		language:   regexp.MustCompile(`^[a-zA-Z]{1,8}(-[a-zA-Z0-9]{1,8})*$`),
	}
}

// integerBounds returns the value space of a built-in integer type (nil
// for no bound).
func integerBounds(k Kind) (lo, hi *big.Int) {
	switch k {
	case KindNonPositiveInteger:
		return nil, big.NewInt(0)
	case KindNegativeInteger:
		return nil, big.NewInt(-1)
	case KindLong:
		return bigPow(63, -1, true), bigPow(63, -1, false)
	case KindInt:
		return big.NewInt(-1 << 31), big.NewInt(1<<31 - 1)
	case KindShort:
		return big.NewInt(-1 << 15), big.NewInt(1<<15 - 1)
	case KindByte:
		return big.NewInt(-1 << 7), big.NewInt(1<<7 - 1)
	case KindNonNegativeInteger:
		return big.NewInt(0), nil
	case KindUnsignedLong:
		return big.NewInt(0), bigPow(64, -1, false)
	case KindUnsignedInt:
		return big.NewInt(0), big.NewInt(1<<32 - 1)
	case KindUnsignedShort:
		return big.NewInt(0), big.NewInt(1<<16 - 1)
	case KindUnsignedByte:
		return big.NewInt(0), big.NewInt(1<<8 - 1)
	case KindPositiveInteger:
		return big.NewInt(1), nil
	}
	return nil, nil
}

// bigPow returns 2^n+add, negated (as -2^n) when neg.
func bigPow(n uint, add int64, neg bool) *big.Int {
	p := new(big.Int).Lsh(big.NewInt(1), n)
	if neg {
		return p.Neg(p)
	}
	return p.Add(p, big.NewInt(add))
}

// whiteSpace returns how a value of t is normalized: "preserve",
// "replace" or "collapse".
func whiteSpace(t *SimpleType) string {
	for s, n := t, 0; s != nil && n < maxChain; s, n = s.Base, n+1 {
		if s.Facets.WhiteSpace != "" {
			return s.Facets.WhiteSpace
		}
		if s.Variety == List {
			return "collapse"
		}
		switch s.Kind {
		case KindNone:
			continue
		case KindString, KindAnySimpleType, KindAnyAtomicType:
			return "preserve"
		case KindNormalizedString:
			return "replace"
		}
		return "collapse"
	}
	return "preserve"
}

// normalize applies a white space facet.
func normalize(s, ws string) string {
	switch ws {
	case "replace":
		return strings.Map(func(r rune) rune {
			if r == '\t' || r == '\n' || r == '\r' {
				return ' '
			}
			return r
		}, s)
	case "collapse":
		return strings.Join(strings.FieldsFunc(s, isXMLSpace), " ")
	}
	return s
}

func isXMLSpace(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == '\r' }

// isXMLChar reports whether r may appear in XML 1.0 text.
func isXMLChar(r rune) bool {
	return r == 0x09 || r == 0x0A || r == 0x0D ||
		r >= 0x20 && r <= 0xD7FF || r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= 0x10FFFF
}

// checkChars refuses text XML cannot carry (what xmlesc.Valid refuses),
// saying why.
func checkChars(s string) error {
	if xmlesc.Valid(s) {
		return nil
	}
	if !utf8.ValidString(s) {
		return errors.New("not UTF-8")
	}
	for _, r := range s {
		if !isXMLChar(r) {
			return fmt.Errorf("the character %U cannot be carried by XML", r)
		}
	}
	return nil
}

// resolver resolves a QName's prefix ("" for the default namespace);
// nil when there is no scope (a value built by hand: a QName value must
// then be written as {namespace}local).
type resolver func(prefix string) (string, bool)

// checkBuiltin checks a normalized value against a built-in atomic type's
// lexical space (and an integer type's bounds).
func (l *lexicon) checkBuiltin(k Kind, s string, res resolver) error {
	switch k {
	case KindString, KindAnySimpleType, KindAnyAtomicType, KindAnyURI:
		return nil
	case KindNormalizedString, KindToken:
		return nil // normalization made it so
	case KindLanguage:
		return match(l.language, s, "a language tag")
	case KindNMTOKEN:
		if s == "" || strings.IndexFunc(s, func(r rune) bool { return !isNameRune(r) }) >= 0 {
			return errors.New("not a name token")
		}
		return nil
	case KindName:
		if !isName(s) {
			return errors.New("not an XML name")
		}
		return nil
	case KindNCName, KindID, KindIDREF, KindENTITY:
		if !xmltok.IsNCName(s) {
			return errors.New("not an XML name without a colon")
		}
		return nil
	case KindBoolean:
		switch s {
		case "true", "false", "1", "0":
			return nil
		}
		return errors.New("want true, false, 1 or 0")
	case KindDecimal:
		return match(l.decimal, s, "a decimal number")
	case KindFloat, KindDouble:
		_, err := parseFloat(s, k)
		return err
	case KindDuration, KindDayTimeDuration, KindYearMonthDuration:
		if !l.duration.MatchString(s) || strings.HasSuffix(s, "P") || strings.HasSuffix(s, "T") {
			return errors.New("not a duration (PnYnMnDTnHnMnS)")
		}
		if k == KindDayTimeDuration && strings.ContainsAny(strings.SplitN(s, "T", 2)[0], "YM") {
			return errors.New("a dayTimeDuration has no years or months")
		}
		if k == KindYearMonthDuration && (strings.Contains(s, "T") || strings.Contains(s, "D")) {
			return errors.New("a yearMonthDuration has only years and months")
		}
		return nil
	case KindDateTime, KindDateTimeStamp:
		m := l.dateTime.FindStringSubmatch(s)
		if m == nil {
			return errors.New("not a dateTime (2006-01-02T15:04:05, with an optional fraction and zone)")
		}
		if k == KindDateTimeStamp && m[8] == "" {
			return errors.New("a dateTimeStamp has a time zone")
		}
		return checkDate(m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8])
	case KindDate:
		m := l.date.FindStringSubmatch(s)
		if m == nil {
			return errors.New("not a date (2006-01-02, with an optional zone)")
		}
		return checkDate(m[1], m[2], m[3], "00", "00", "00", "", m[4])
	case KindTime:
		m := l.time.FindStringSubmatch(s)
		if m == nil {
			return errors.New("not a time (15:04:05, with an optional fraction and zone)")
		}
		return checkDate("2000", "01", "01", m[1], m[2], m[3], m[4], m[5])
	case KindGYearMonth:
		m := l.gYearMonth.FindStringSubmatch(s)
		if m == nil {
			return errors.New("not a gYearMonth (2006-01)")
		}
		return checkDate(m[1], m[2], "01", "00", "00", "00", "", m[3])
	case KindGYear:
		m := l.gYear.FindStringSubmatch(s)
		if m == nil {
			return errors.New("not a gYear (2006)")
		}
		return checkDate(m[1], "01", "01", "00", "00", "00", "", m[2])
	case KindGMonthDay:
		m := l.gMonthDay.FindStringSubmatch(s)
		if m == nil {
			return errors.New("not a gMonthDay (--01-02)")
		}
		return checkDate("2000", m[1], m[2], "00", "00", "00", "", m[3])
	case KindGDay:
		m := l.gDay.FindStringSubmatch(s)
		if m == nil {
			return errors.New("not a gDay (---02)")
		}
		return checkDate("2000", "01", m[1], "00", "00", "00", "", m[2])
	case KindGMonth:
		m := l.gMonth.FindStringSubmatch(s)
		if m == nil {
			return errors.New("not a gMonth (--01)")
		}
		return checkDate("2000", m[1], "01", "00", "00", "00", "", m[3])
	case KindHexBinary:
		return match(l.hex, s, "hexadecimal octets")
	case KindBase64Binary:
		_, err := decodeBase64(s)
		return err
	case KindQName, KindNOTATION:
		_, err := parseQName(s, res)
		return err
	}
	if k.IsInteger() {
		if !l.integer.MatchString(s) {
			return errors.New("not an integer")
		}
		lo, hi := integerBounds(k)
		n, _ := new(big.Int).SetString(strings.TrimPrefix(s, "+"), 10)
		if lo != nil && n.Cmp(lo) < 0 || hi != nil && n.Cmp(hi) > 0 {
			return fmt.Errorf("out of the range of xsd:%s", k)
		}
		return nil
	}
	return nil
}

func match(re *regexp.Regexp, s, what string) error {
	if !re.MatchString(s) {
		return errors.New("not " + what)
	}
	return nil
}

// parseFloat reads an xsd:float or xsd:double (INF, -INF, NaN spelled so).
func parseFloat(s string, k Kind) (float64, error) {
	bits := 64
	if k == KindFloat {
		bits = 32
	}
	switch s {
	case "INF", "+INF":
		return strconv.ParseFloat("+Inf", bits)
	case "-INF":
		return strconv.ParseFloat("-Inf", bits)
	case "NaN":
		return strconv.ParseFloat("NaN", bits)
	}
	if s == "" || strings.ContainsAny(s, "xXpP_iInN") {
		return 0, errors.New("not a number (INF, -INF and NaN are spelled so)")
	}
	f, err := strconv.ParseFloat(s, bits)
	var ne *strconv.NumError
	if errors.As(err, &ne) && errors.Is(ne.Err, strconv.ErrRange) {
		return f, nil // rounds to ±INF or 0, as XML Schema says a float does
	}
	if err != nil {
		return 0, errors.New("not a number")
	}
	return f, nil
}

// checkDate checks the fields of a date or time value.
func checkDate(year, month, day, hour, minute, second, frac, zone string) error {
	y, err := strconv.ParseInt(strings.TrimPrefix(year, "-"), 10, 64)
	if err != nil {
		return errors.New("the year is out of range")
	}
	mo, _ := strconv.Atoi(month)
	d, _ := strconv.Atoi(day)
	h, _ := strconv.Atoi(hour)
	mi, _ := strconv.Atoi(minute)
	sec, _ := strconv.Atoi(second)
	if mo < 1 || mo > 12 {
		return errors.New("the month is out of range")
	}
	if strings.HasPrefix(year, "-") {
		y = -y
	}
	if d < 1 || d > daysIn(y, mo) {
		return errors.New("the day is out of range")
	}
	if h == 24 && (mi != 0 || sec != 0 || strings.Trim(frac, ".0") != "") || h > 24 || mi > 59 || sec > 59 {
		return errors.New("the time of day is out of range")
	}
	if zone != "" && zone != "Z" {
		zh, _ := strconv.Atoi(zone[1:3])
		zm, _ := strconv.Atoi(zone[4:6])
		if zm > 59 || zh > 14 || zh == 14 && zm != 0 {
			return errors.New("the time zone is out of range")
		}
	}
	return nil
}

func daysIn(year int64, month int) int {
	switch month {
	case 2:
		// XML Schema years: 0 is 1 BCE in 1.1, absent in 1.0; leap by the
		// proleptic Gregorian rule either way.
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// decodeBase64 reads xsd:base64Binary (white space between the characters
// allowed).
func decodeBase64(s string) ([]byte, error) {
	compact := strings.Map(func(r rune) rune {
		if isXMLSpace(r) {
			return -1
		}
		return r
	}, s)
	b, err := base64.StdEncoding.Strict().DecodeString(compact)
	if err != nil {
		return nil, errors.New("not base64")
	}
	return b, nil
}

// parseQName reads prefix:local (or local, in the default namespace), or
// {namespace}local, the form a value built by hand may give.
func parseQName(s string, res resolver) (n xml.Name, err error) {
	if strings.HasPrefix(s, "{") {
		i := strings.IndexByte(s, '}')
		if i < 0 || !xmltok.IsNCName(s[i+1:]) {
			return n, errors.New("not a QName")
		}
		return xml.Name{Space: s[1:i], Local: s[i+1:]}, nil
	}
	prefix, local, ok := strings.Cut(s, ":")
	if !ok {
		prefix, local = "", s
	}
	if ok && !xmltok.IsNCName(prefix) || !xmltok.IsNCName(local) {
		return n, errors.New("not a QName")
	}
	if res == nil {
		if prefix == "" {
			return xml.Name{Local: local}, nil
		}
		return n, fmt.Errorf("the prefix %s is not declared (write {namespace}%s)", prefix, local)
	}
	ns, found := res(prefix)
	if !found && prefix != "" {
		return n, fmt.Errorf("the prefix %s is not declared", prefix)
	}
	return xml.Name{Space: ns, Local: local}, nil
}

// isName reports whether s is an XML Name (colons allowed).
func isName(s string) bool {
	for i, r := range s {
		if i == 0 && !(r == ':' || r == '_' || isNameStartRune(r)) || !isNameRune(r) {
			return false
		}
	}
	return s != ""
}

func isNameStartRune(r rune) bool { return xmltok.IsNCName(string(r)) }

func isNameRune(r rune) bool {
	return r == ':' || r == '-' || r == '.' || r >= '0' && r <= '9' || xmltok.IsNCName("a"+string(r))
}
