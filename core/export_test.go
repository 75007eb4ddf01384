package core

import "reflect"

// EscapesTable is the writer's table of bytes to look at, for the test that
// recomputes it.
const EscapesTable = escapes

// Plain8 is the writer's test of 8 bytes at once (b holds 8).
func Plain8(b []byte) bool { return skipPlain(b, 0, false) == 8 && skipPlain(string(b), 0, false) == 8 }

// PlainMarshal8 is Plain8 for escapeMarshal, which escapes the apostrophe too.
func PlainMarshal8(b []byte) bool {
	return skipPlain(b, 0, true) == 8 && skipPlain(string(b), 0, true) == 8
}

// DecodePlanned reports whether Body.Decode reads into v (a pointer) on its
// fast path rather than through encoding/xml.
func DecodePlanned(v any) bool { return planFor(nil, reflect.TypeOf(v).Elem()) != nil }

// EncodePlanned reports whether ValueBody writes values of v's type on its
// fast path rather than with xml.Marshal.
func EncodePlanned(v any) bool { return encodePlan(nil, reflect.TypeOf(v)) != nil }

// EncodeValue is what the fast path writes for v; ok is false when it
// leaves v to xml.Marshal.
func EncodeValue(v any) (out []byte, ok bool) { return encodeValue(nil, v, nil) }

// PlainAddressingValue is the value takeAddressing reads from a plain
// block without the tokenizer; ok is false where it leaves the block to the
// tokenizer.
func PlainAddressingValue(raw []byte) (string, bool) { return plainValue(raw) }

// TokenAddressingValue is the value takeAddressing reads from a block with
// the tokenizer.
func TokenAddressingValue(raw []byte) (string, error) { return tokenValue(raw, false) }
