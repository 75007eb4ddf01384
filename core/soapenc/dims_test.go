package soapenc_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core/soapenc"
)

// TestArrayDimensionBound: an array may declare up to 16 dimensions
// (soapenc:arrayType in 1.1, enc:arraySize in 1.2); a 17th is refused with
// SubcodeArraySize, not allocated or recursed into.
func TestArrayDimensionBound(t *testing.T) {
	dims := func(n int, sep string) string { return strings.TrimSuffix(strings.Repeat("1"+sep, n), sep) }
	decode := func(v soapenc.Version, attr string) error {
		el, err := readErr(v, wrap(`<a `+attr+`><i xsi:type="xsd:int">7</i></a>`))
		if err != nil {
			return err
		}
		var out any
		return el.Decode(&out)
	}
	for _, tc := range []struct {
		name string
		v    soapenc.Version
		attr func(n int) string
	}{
		{"1.1 arrayType", soapenc.V11, func(n int) string { return `soapenc:arrayType="xsd:int[` + dims(n, ",") + `]"` }},
		{"1.2 arraySize", soapenc.V12, func(n int) string { return `enc:itemType="xsd:int" enc:arraySize="` + dims(n, " ") + `"` }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.NoError(t, decode(tc.v, tc.attr(16)), "16 dimensions are read")
			err := decode(tc.v, tc.attr(17))
			assert.Equal(t, soapenc.SubcodeArraySize, subcode(t, err))
			assert.Contains(t, err.Error(), "more than 16 dimensions")
		})
	}
}
