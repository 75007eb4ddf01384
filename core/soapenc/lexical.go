package soapenc

import (
	"encoding/base64"
	"errors"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
)

// This file holds the XML Schema lexical forms of the simple types.

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// trimSpace removes XML white space at both ends (the "collapse" facet of
// every simple type but string).
func trimSpace(s string) string {
	i, j := 0, len(s)
	for i < j && isSpace(s[i]) {
		i++
	}
	for j > i && isSpace(s[j-1]) {
		j--
	}
	return s[i:j]
}

func digits(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

// validDecimal reports whether s is an xsd:decimal: [+-]? (d+ (. d*)? | . d+).
func validDecimal(s string) bool {
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	n := digits(s)
	s = s[n:]
	if s == "" {
		return n > 0
	}
	if s[0] != '.' {
		return false
	}
	m := digits(s[1:])
	return len(s) == 1+m && n+m > 0
}

// validFloat reports whether s is an xsd:double/float lexical value.
func validFloat(s string) bool {
	switch s {
	case "INF", "+INF", "-INF", "NaN":
		return true
	}
	mant, exp := s, ""
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant, exp = s[:i], s[i+1:]
		if exp != "" && (exp[0] == '+' || exp[0] == '-') {
			exp = exp[1:]
		}
		if exp == "" || digits(exp) != len(exp) {
			return false
		}
	}
	return validDecimal(mant)
}

func parseFloat(s string, bits int) (float64, error) {
	if !validFloat(s) {
		return 0, errors.New("not a valid number")
	}
	switch s {
	case "INF", "+INF":
		return math.Inf(1), nil
	case "-INF":
		return math.Inf(-1), nil
	case "NaN":
		return math.NaN(), nil
	}
	f, err := strconv.ParseFloat(s, bits)
	if err != nil {
		return 0, errors.New("out of range")
	}
	return f, nil
}

// appendFloat writes the shortest text that reads back as f, in the style of
// encoding/json (no exponent between 1e-6 and 1e21), with INF, -INF and NaN.
func appendFloat(b []byte, f float64, bits int) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, "NaN"...)
	case math.IsInf(f, 1):
		return append(b, "INF"...)
	case math.IsInf(f, -1):
		return append(b, "-INF"...)
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 {
		if bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	b = strconv.AppendFloat(b, f, format, -1, bits)
	if format == 'e' { // 1e-07 → 1e-7
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

func parseBool(s string) (bool, bool) {
	switch s {
	case "true", "1":
		return true, true
	case "false", "0":
		return false, true
	}
	return false, false
}

// parseDateTime reads an xsd:dateTime: with "Z", with "±hh:mm" (at most
// 14:00 either way), or without a zone (the time is then in NoZone()).
// "24:00:00" is the first instant of the next day, as XML Schema 1.0 allows.
func parseDateTime(s string) (time.Time, error) {
	bad := errors.New("not a valid dateTime")
	if len(s) < 19 || s[10] != 'T' {
		return time.Time{}, bad
	}
	if strings.IndexByte(s, ',') >= 0 { // time.Parse takes a comma for the decimal point; XML Schema does not
		return time.Time{}, bad
	}
	zone := ""
	switch n := len(s); {
	case s[n-1] == 'Z':
		zone = "Z"
	case n >= 25 && (s[n-6] == '+' || s[n-6] == '-') && s[n-3] == ':':
		zone = s[n-6:]
		if zone[1:] > "14:00" {
			return time.Time{}, bad
		}
	}
	local := s[:len(s)-len(zone)]
	if len(local) < 19 {
		return time.Time{}, bad
	}
	frac := strings.TrimRight(local[19:], "0")
	endOfDay := local[11:19] == "24:00:00" && (frac == "" || frac == ".")
	if endOfDay {
		local = local[:11] + "00" + local[13:]
	}
	var t time.Time
	var err error
	if zone != "" {
		t, err = time.ParseInLocation("2006-01-02T15:04:05Z07:00", local+zone, time.UTC)
	} else {
		t, err = time.ParseInLocation("2006-01-02T15:04:05", local, time.UTC)
		t = time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), noZone)
	}
	if err != nil {
		return time.Time{}, bad
	}
	if endOfDay {
		t = t.AddDate(0, 0, 1)
	}
	return t, nil
}

func appendDateTime(b []byte, t time.Time) ([]byte, error) {
	if y := t.Year(); y < 1 || y > 9999 {
		return b, errors.New("dateTime year outside 0001-9999")
	}
	if t.Location() == noZone {
		return t.AppendFormat(b, "2006-01-02T15:04:05.999999999"), nil
	}
	return t.AppendFormat(b, time.RFC3339Nano), nil
}

// decodeBase64 reads xsd:base64Binary, which may be broken into lines.
func decodeBase64(s string) ([]byte, error) {
	if strings.ContainsAny(s, " \t\r\n") {
		s = strings.Map(func(r rune) rune {
			if r == ' ' || r == '\t' || r == '\r' || r == '\n' {
				return -1
			}
			return r
		}, s)
	}
	return base64.StdEncoding.DecodeString(s)
}

// ratDecimal returns r as an exact decimal, if its denominator is made of
// twos and fives only.
func ratDecimal(r *big.Rat) (string, bool) {
	if r.IsInt() {
		return r.Num().String(), true
	}
	d := new(big.Int).Set(r.Denom())
	var m big.Int
	twos, fives := 0, 0
	for {
		q, rem := new(big.Int).QuoRem(d, big.NewInt(2), &m)
		if rem.Sign() != 0 {
			break
		}
		d, twos = q, twos+1
	}
	for {
		q, rem := new(big.Int).QuoRem(d, big.NewInt(5), &m)
		if rem.Sign() != 0 {
			break
		}
		d, fives = q, fives+1
	}
	if d.Cmp(big.NewInt(1)) != 0 {
		return "", false
	}
	return r.FloatString(max(twos, fives)), true
}
