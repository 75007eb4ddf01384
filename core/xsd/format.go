package xsd

import (
	"encoding"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/soapwire/soapwire/core/soapenc"
)

// The Go types the codec knows by type.
func timeType() reflect.Type     { return reflect.TypeFor[time.Time]() }
func durationType() reflect.Type { return reflect.TypeFor[time.Duration]() }
func bigIntType() reflect.Type   { return reflect.TypeFor[big.Int]() }
func bigRatType() reflect.Type   { return reflect.TypeFor[big.Rat]() }
func bigFloatType() reflect.Type { return reflect.TypeFor[big.Float]() }
func nameType() reflect.Type     { return reflect.TypeFor[xml.Name]() }
func numberType() reflect.Type   { return reflect.TypeFor[json.Number]() }
func marshalerT() reflect.Type   { return reflect.TypeFor[encoding.TextMarshaler]() }
func unmarshalerT() reflect.Type { return reflect.TypeFor[encoding.TextUnmarshaler]() }

// kindOf returns the built-in kind that leads a simple type's lexical
// form: its primitive's, the item's for a list, KindAnySimpleType for a
// union or when t is nil.
func kindOf(t *SimpleType) Kind {
	if t == nil {
		return KindAnySimpleType
	}
	if t.Variety == List {
		return KindAnySimpleType
	}
	if b := t.Builtin(); b != nil {
		return b.Kind
	}
	return KindAnySimpleType
}

// format writes a Go value as the lexical form of a value of t.
func format(rv reflect.Value, t *SimpleType) (string, error) {
	for rv.Kind() == reflect.Pointer || rv.Kind() == reflect.Interface {
		if rv.IsNil() {
			return "", errors.New("nil")
		}
		rv = rv.Elem()
	}
	k := kindOf(t)
	if t != nil && (t.Variety == List || k.Item() != KindNone) && rv.Kind() == reflect.Slice && rv.Type().Elem().Kind() != reflect.Uint8 {
		item := t.Item
		if item == nil && t.Builtin() != nil {
			item = nil
		}
		parts := make([]string, rv.Len())
		for i := range parts {
			s, err := format(rv.Index(i), item)
			if err != nil {
				return "", fmt.Errorf("item %d: %w", i, err)
			}
			parts[i] = s
		}
		return strings.Join(parts, " "), nil
	}
	switch rv.Type() {
	case timeType():
		return formatTime(rv.Interface().(time.Time), k), nil
	case durationType():
		if k.Primitive() == KindDuration {
			return formatDuration(time.Duration(rv.Int())), nil
		}
	case bigIntType():
		b := rv.Interface().(big.Int)
		return b.String(), nil
	case bigRatType():
		r := rv.Interface().(big.Rat)
		return ratDecimal(&r)
	case bigFloatType():
		f := rv.Interface().(big.Float)
		return f.Text('f', -1), nil
	case nameType():
		n := rv.Interface().(xml.Name)
		if n.Space == "" {
			return n.Local, nil
		}
		return "{" + n.Space + "}" + n.Local, nil
	case numberType():
		return rv.String(), nil
	}
	if rv.Type().Implements(marshalerT()) && rv.Kind() != reflect.String {
		b, err := rv.Interface().(encoding.TextMarshaler).MarshalText()
		return string(b), err
	}
	switch rv.Kind() {
	case reflect.String:
		return rv.String(), nil
	case reflect.Bool:
		return strconv.FormatBool(rv.Bool()), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(rv.Int(), 10), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return strconv.FormatUint(rv.Uint(), 10), nil
	case reflect.Float32, reflect.Float64:
		return formatFloat(rv.Float(), rv.Type().Bits(), k), nil
	case reflect.Slice:
		if rv.Type().Elem().Kind() == reflect.Uint8 {
			b := rv.Bytes()
			if k.Primitive() == KindHexBinary || rv.Type() == reflect.TypeFor[soapenc.HexBinary]() && k.Primitive() != KindBase64Binary {
				return strings.ToUpper(hex.EncodeToString(b)), nil
			}
			return base64.StdEncoding.EncodeToString(b), nil
		}
	}
	return "", fmt.Errorf("a Go %s is not a simple value", rv.Type())
}

// formatFloat writes a float as xsd:float/double (INF, -INF, NaN), or, for
// a decimal or integer type, in plain notation.
func formatFloat(f float64, bits int, k Kind) string {
	switch {
	case math.IsInf(f, 1):
		return "INF"
	case math.IsInf(f, -1):
		return "-INF"
	case math.IsNaN(f):
		return "NaN"
	}
	if k.Primitive() == KindDecimal {
		return strconv.FormatFloat(f, 'f', -1, bits)
	}
	return strconv.FormatFloat(f, 'g', -1, bits)
}

// ratDecimal writes a rational number that has a finite decimal form.
func ratDecimal(r *big.Rat) (string, error) {
	if r.IsInt() {
		return r.Num().String(), nil
	}
	d := new(big.Int).Set(r.Denom())
	n := 0
	for _, p := range []int64{2, 5} {
		bp := big.NewInt(p)
		m := new(big.Int)
		for {
			q, rem := new(big.Int).QuoRem(d, bp, m)
			if rem.Sign() != 0 {
				break
			}
			d = q
		}
	}
	if d.Cmp(big.NewInt(1)) != 0 {
		return "", errors.New("the rational number has no finite decimal form")
	}
	for prec := 1; ; prec++ {
		s := r.FloatString(prec)
		back, _ := new(big.Rat).SetString(s)
		if back.Cmp(r) == 0 {
			return s, nil
		}
		n++
		if n > 10000 {
			return "", errors.New("the rational number has too many decimals")
		}
	}
}

// formatTime writes a time as a value of the date/time kind k (dateTime
// when k is not one): "Z" for UTC, ±hh:mm for another zone, none for a
// time in soapenc.NoZone().
func formatTime(t time.Time, k Kind) string {
	zone := "Z07:00"
	if t.Location() == soapenc.NoZone() {
		zone = ""
	}
	switch k.Primitive() {
	case KindDate:
		return t.Format("2006-01-02" + zone)
	case KindTime:
		return t.Format("15:04:05.999999999" + zone)
	case KindGYearMonth:
		return t.Format("2006-01" + zone)
	case KindGYear:
		return t.Format("2006" + zone)
	case KindGMonthDay:
		return t.Format("--01-02" + zone)
	case KindGDay:
		return t.Format("---02" + zone)
	case KindGMonth:
		return t.Format("--01" + zone)
	}
	return t.Format("2006-01-02T15:04:05.999999999" + zone)
}

// formatDuration writes a time.Duration as xsd:duration (days, hours,
// minutes, seconds).
func formatDuration(d time.Duration) string {
	var b strings.Builder
	if d < 0 {
		b.WriteByte('-')
	}
	u := uint64(d)
	if d < 0 {
		u = uint64(-d)
	}
	b.WriteString("PT")
	h := u / uint64(time.Hour)
	u -= h * uint64(time.Hour)
	m := u / uint64(time.Minute)
	u -= m * uint64(time.Minute)
	if h > 0 {
		b.WriteString(strconv.FormatUint(h, 10) + "H")
	}
	if m > 0 {
		b.WriteString(strconv.FormatUint(m, 10) + "M")
	}
	if u > 0 || h == 0 && m == 0 {
		sec := strconv.FormatFloat(float64(u)/1e9, 'f', -1, 64)
		if u%uint64(time.Second) == 0 {
			sec = strconv.FormatUint(u/uint64(time.Second), 10)
		}
		b.WriteString(sec + "S")
	}
	return b.String()
}

// parse stores the lexical value s of a value of t (a checked, normalized
// value; QNames as {namespace}local) into rv, which it can set. ok is false
// when rv's Go type is not one parse knows (the caller tries others).
func parse(rv reflect.Value, s string, t *SimpleType) error {
	k := kindOf(t)
	if rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			rv.Set(reflect.New(rv.Type().Elem()))
		}
		return parse(rv.Elem(), s, t)
	}
	switch rv.Type() {
	case timeType():
		tm, err := parseTime(s, k)
		if err != nil {
			return err
		}
		rv.Set(reflect.ValueOf(tm))
		return nil
	case durationType():
		if k.Primitive() == KindDuration {
			d, err := parseDuration(s)
			if err != nil {
				return err
			}
			rv.SetInt(int64(d))
			return nil
		}
	case bigIntType():
		n, ok := new(big.Int).SetString(strings.TrimPrefix(s, "+"), 10)
		if !ok {
			return fmt.Errorf("%q is not an integer", s)
		}
		rv.Set(reflect.ValueOf(*n))
		return nil
	case bigRatType():
		r, ok := new(big.Rat).SetString(strings.TrimPrefix(s, "+"))
		if !ok || strings.ContainsAny(s, "/eE") {
			return fmt.Errorf("%q is not a decimal number", s)
		}
		rv.Set(reflect.ValueOf(*r))
		return nil
	case bigFloatType():
		f, _, err := big.ParseFloat(s, 10, 256, big.ToNearestEven)
		if err != nil {
			return fmt.Errorf("%q is not a number", s)
		}
		rv.Set(reflect.ValueOf(*f))
		return nil
	case nameType():
		n, err := parseQName(s, nil)
		if err != nil {
			return err
		}
		rv.Set(reflect.ValueOf(n))
		return nil
	case numberType():
		rv.SetString(s)
		return nil
	}
	if rv.Kind() == reflect.Slice && rv.Type().Elem().Kind() != reflect.Uint8 {
		var item *SimpleType
		if t != nil {
			item = t.Item
		}
		items := strings.Fields(s)
		out := reflect.MakeSlice(rv.Type(), len(items), len(items))
		for i, it := range items {
			if err := parse(out.Index(i), it, item); err != nil {
				return fmt.Errorf("item %d: %w", i, err)
			}
		}
		rv.Set(out)
		return nil
	}
	if rv.Kind() != reflect.String && rv.Addr().Type().Implements(unmarshalerT()) {
		return rv.Addr().Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(s))
	}
	switch rv.Kind() {
	case reflect.String:
		rv.SetString(s)
	case reflect.Bool:
		switch s {
		case "true", "1":
			rv.SetBool(true)
		case "false", "0":
			rv.SetBool(false)
		default:
			return fmt.Errorf("%q is not a boolean", s)
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, err := strconv.ParseInt(strings.TrimPrefix(s, "+"), 10, rv.Type().Bits())
		if err != nil {
			return fmt.Errorf("%q does not fit a Go %s", s, rv.Type())
		}
		rv.SetInt(n)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		n, err := strconv.ParseUint(strings.TrimPrefix(s, "+"), 10, rv.Type().Bits())
		if err != nil {
			return fmt.Errorf("%q does not fit a Go %s", s, rv.Type())
		}
		rv.SetUint(n)
	case reflect.Float32, reflect.Float64:
		var f float64
		var err error
		if k.Primitive() == KindFloat || k.Primitive() == KindDouble {
			f, err = parseFloat(s, KindDouble)
		} else {
			f, err = strconv.ParseFloat(s, 64)
		}
		if err != nil {
			return fmt.Errorf("%q is not a number", s)
		}
		if rv.Kind() == reflect.Float32 && !math.IsInf(f, 0) && math.Abs(f) > math.MaxFloat32 {
			return fmt.Errorf("%q does not fit a Go float32", s)
		}
		rv.SetFloat(f)
	case reflect.Slice:
		if rv.Type().Elem().Kind() != reflect.Uint8 {
			return fmt.Errorf("a simple value into a Go %s", rv.Type())
		}
		var b []byte
		var err error
		if k.Primitive() == KindHexBinary || k == KindAnySimpleType && rv.Type() == reflect.TypeFor[soapenc.HexBinary]() {
			b, err = hex.DecodeString(s)
		} else {
			b, err = decodeBase64(s)
		}
		if err != nil {
			return fmt.Errorf("%q is not binary data of its type", clip(s))
		}
		rv.SetBytes(b)
	default:
		return fmt.Errorf("a simple value cannot go into a Go %s", rv.Type())
	}
	return nil
}

// parseTime reads a date/time value of kind k; a value without a zone is
// in soapenc.NoZone().
func parseTime(s string, k Kind) (time.Time, error) {
	layouts := map[Kind]string{
		KindDate: "2006-01-02", KindTime: "15:04:05.999999999", KindGYearMonth: "2006-01",
		KindGYear: "2006", KindGMonthDay: "--01-02", KindGDay: "---02", KindGMonth: "--01",
	}
	layout, ok := layouts[k.Primitive()]
	if !ok {
		layout = "2006-01-02T15:04:05.999999999"
	}
	if strings.HasPrefix(s, "-") && !strings.HasPrefix(s, "--") {
		return time.Time{}, fmt.Errorf("%q: a year before 1 does not fit a Go time.Time", s)
	}
	if s2 := strings.TrimSuffix(s, "Z"); s2 != s {
		t, err := time.ParseInLocation(layout, s2, time.UTC)
		return t, timeErr(s, err)
	}
	if n := len(s); n > 6 && (s[n-6] == '+' || s[n-6] == '-') && s[n-3] == ':' {
		t, err := time.Parse(layout+"-07:00", s)
		return t, timeErr(s, err)
	}
	if strings.HasPrefix(s, "24:00:00") && k.Primitive() == KindTime {
		s = "00:00:00" + s[8:]
	}
	t, err := time.ParseInLocation(layout, s, soapenc.NoZone())
	return t, timeErr(s, err)
}

func timeErr(s string, err error) error {
	if err != nil {
		return fmt.Errorf("%q does not fit a Go time.Time", s)
	}
	return nil
}

// parseDuration reads an xsd:duration (checked already) without years or
// months into a time.Duration.
func parseDuration(s string) (time.Duration, error) {
	neg := strings.HasPrefix(s, "-")
	rest, ok := strings.CutPrefix(strings.TrimPrefix(s, "-"), "P")
	if !ok {
		return 0, fmt.Errorf("%q is not a duration", s)
	}
	datePart, timePart, _ := strings.Cut(rest, "T")
	if strings.ContainsAny(datePart, "YM") {
		return 0, fmt.Errorf("%q has years or months, which a Go time.Duration cannot hold", s)
	}
	var total float64
	for _, part := range []struct {
		text  string
		units string
		secs  []float64
	}{{datePart, "D", []float64{86400}}, {timePart, "HMS", []float64{3600, 60, 1}}} {
		t := part.text
		for i, u := range part.units {
			num, after, found := strings.Cut(t, string(u))
			if !found {
				continue
			}
			f, err := strconv.ParseFloat(num, 64)
			if err != nil {
				return 0, fmt.Errorf("%q is not a duration", s)
			}
			total += f * part.secs[i]
			t = after
		}
	}
	if total*1e9 > math.MaxInt64 {
		return 0, fmt.Errorf("%q does not fit a Go time.Duration", s)
	}
	d := time.Duration(math.Round(total * 1e9))
	if neg {
		d = -d
	}
	return d, nil
}
