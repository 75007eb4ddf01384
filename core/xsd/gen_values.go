package xsd

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/xml"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
)

// Integer is an xsd:integer (or one of the unbounded integer types derived
// from it: nonNegativeInteger, positiveInteger…) held as its lexical form
// ("-12", "123456789012345678901234567890"), so any value round-trips
// without loss. The codec checks it against its type; the empty Integer is
// not a number.
type Integer string

// IntegerOf returns the Integer of n.
func IntegerOf(n int64) Integer { return Integer(strconv.FormatInt(n, 10)) }

// BigInt returns the value as a *big.Int; ok is false when it is not an
// integer.
func (i Integer) BigInt() (n *big.Int, ok bool) {
	return new(big.Int).SetString(strings.TrimPrefix(strings.TrimSpace(string(i)), "+"), 10)
}

// Int64 returns the value as an int64; an error when it is not an integer
// or does not fit.
func (i Integer) Int64() (int64, error) {
	return strconv.ParseInt(strings.TrimPrefix(strings.TrimSpace(string(i)), "+"), 10, 64)
}

// Duration is an xsd:duration held as its lexical form ("P1Y2M3DT4H5M6.5S",
// "-PT90M"): years and months, which a time.Duration cannot hold, keep
// their meaning. DurationOf and Duration.Std convert to and from
// time.Duration where that is exact.
type Duration string

// DurationOf returns the xsd:duration of d (days, hours, minutes and
// seconds).
func DurationOf(d time.Duration) Duration { return Duration(formatDuration(d)) }

// Std returns the duration as a time.Duration: an error when it has years
// or months (their length depends on the date they are added to) or does
// not fit.
func (d Duration) Std() (time.Duration, error) { return parseDuration(strings.TrimSpace(string(d))) }

// The conversions between Go values and the lexical forms of simple types
// that generated code uses; each is what the codec does for that Go type.

// FormatInt writes an integer.
func FormatInt(n int64) string { return strconv.FormatInt(n, 10) }

// FormatUint writes an unsigned integer.
func FormatUint(n uint64) string { return strconv.FormatUint(n, 10) }

// FormatBool writes a boolean (true, false).
func FormatBool(b bool) string { return strconv.FormatBool(b) }

// FormatFloat writes a float or double of bits bits (INF, -INF, NaN), or in
// plain notation when k is a decimal type.
func FormatFloat(f float64, bits int, k Kind) string { return formatFloat(f, bits, k) }

// FormatTime writes a time as a value of the date or time type k: "Z" for
// UTC, ±hh:mm for another zone, none for a time in soapenc.NoZone().
func FormatTime(t time.Time, k Kind) string { return formatTime(t, k) }

// FormatBinary writes bytes as xsd:hexBinary (upper case) when k is
// hexBinary or derives from it, else as base64Binary.
func FormatBinary(b []byte, k Kind) string {
	if k.Primitive() == KindHexBinary {
		return strings.ToUpper(hex.EncodeToString(b))
	}
	return base64.StdEncoding.EncodeToString(b)
}

// FormatQName writes a name as {namespace}local (local without a
// namespace), the form Writer.QNames gives a prefix.
func FormatQName(n xml.Name) string {
	if n.Space == "" {
		return n.Local
	}
	return "{" + n.Space + "}" + n.Local
}

// ParseInt reads a checked integer value into an integer of bits bits.
func ParseInt(s string, bits int) (int64, error) {
	n, err := strconv.ParseInt(strings.TrimPrefix(s, "+"), 10, bits)
	if err != nil {
		return 0, fmt.Errorf("%q does not fit a Go int%d", s, bits)
	}
	return n, nil
}

// ParseUint reads a checked integer value into an unsigned integer of
// bits bits.
func ParseUint(s string, bits int) (uint64, error) {
	n, err := strconv.ParseUint(strings.TrimPrefix(s, "+"), 10, bits)
	if err != nil {
		return 0, fmt.Errorf("%q does not fit a Go uint%d", s, bits)
	}
	return n, nil
}

// ParseBool reads a boolean (true, false, 1, 0).
func ParseBool(s string) (bool, error) {
	switch s {
	case "true", "1":
		return true, nil
	case "false", "0":
		return false, nil
	}
	return false, fmt.Errorf("%q is not a boolean", s)
}

// ParseFloat reads a checked value of the type k into a float of bits
// bits: INF, -INF and NaN as XML Schema spells them for float and double.
func ParseFloat(s string, k Kind, bits int) (float64, error) {
	var f float64
	var err error
	if k.Primitive() == KindFloat || k.Primitive() == KindDouble {
		f, err = parseFloat(s, KindDouble)
	} else {
		f, err = strconv.ParseFloat(s, 64)
	}
	if err != nil {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	if bits == 32 && !math.IsInf(f, 0) && math.Abs(f) > math.MaxFloat32 {
		return 0, fmt.Errorf("%q does not fit a Go float32", s)
	}
	return f, nil
}

// ParseTime reads a checked value of the date or time type k; a value
// without a zone is in soapenc.NoZone().
func ParseTime(s string, k Kind) (time.Time, error) { return parseTime(s, k) }

// ParseBinary reads a checked hexBinary or base64Binary value, as k says.
func ParseBinary(s string, k Kind) ([]byte, error) {
	var b []byte
	var err error
	if k.Primitive() == KindHexBinary {
		b, err = hex.DecodeString(s)
	} else {
		b, err = decodeBase64(s)
	}
	if err != nil {
		return nil, fmt.Errorf("%q is not binary data of its type", clip(s))
	}
	return b, nil
}

// ParseQName reads a checked QName value ({namespace}local or local).
func ParseQName(s string) (xml.Name, error) {
	n, err := parseQName(s, nil)
	if err != nil {
		return xml.Name{}, errors.New("not a QName")
	}
	return n, nil
}

// FormatList writes a list value: its items, each formatted by format,
// separated by spaces.
func FormatList[T any](items []T, format func(T) string) string {
	parts := make([]string, len(items))
	for i, it := range items {
		parts[i] = format(it)
	}
	return strings.Join(parts, " ")
}

// ParseList reads a checked list value: its items, each read by parse.
func ParseList[T any](s string, parse func(string) (T, error)) ([]T, error) {
	items := strings.Fields(s)
	out := make([]T, len(items))
	for i, it := range items {
		v, err := parse(it)
		if err != nil {
			return nil, fmt.Errorf("item %d: %w", i, err)
		}
		out[i] = v
	}
	return out, nil
}
