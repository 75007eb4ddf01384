package xsd_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/soapwire/soapwire/core/xsd"
)

// TestKinds: every built-in type has a name, a base up to anySimpleType and
// a primitive; the table agrees with XML Schema Part 2's hierarchy.
func TestKinds(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range xsd.Kinds() {
		name := k.String()
		assert.NotEmpty(t, name)
		assert.False(t, seen[name], name)
		seen[name] = true
		assert.Equal(t, k, xsd.KindOf(name))
		n := 0
		for b := k; b != xsd.KindAnySimpleType && n < 10; b, n = b.Base(), n+1 {
		}
		assert.Less(t, n, 10, "%s reaches anySimpleType", name)
	}
	assert.Len(t, seen, 49)
	for _, tc := range []struct {
		k, primitive xsd.Kind
	}{
		{xsd.KindInt, xsd.KindDecimal}, {xsd.KindUnsignedByte, xsd.KindDecimal}, {xsd.KindLanguage, xsd.KindString},
		{xsd.KindID, xsd.KindString}, {xsd.KindDateTimeStamp, xsd.KindDateTime}, {xsd.KindDayTimeDuration, xsd.KindDuration},
		{xsd.KindQName, xsd.KindQName}, {xsd.KindNMTOKENS, xsd.KindAnySimpleType}, {xsd.KindAnySimpleType, xsd.KindAnySimpleType},
		{xsd.KindBase64Binary, xsd.KindBase64Binary},
	} {
		assert.Equal(t, tc.primitive, tc.k.Primitive(), tc.k.String())
	}
	assert.True(t, xsd.KindNegativeInteger.IsInteger())
	assert.False(t, xsd.KindDecimal.IsInteger())
	assert.True(t, xsd.KindDate.IsPrimitive())
	assert.False(t, xsd.KindLong.IsPrimitive())
	assert.Equal(t, xsd.KindNMTOKEN, xsd.KindNMTOKENS.Item())
	assert.Equal(t, xsd.KindNone, xsd.KindOf("nope"))
	assert.Equal(t, xsd.KindShort, xsd.KindByte.Base())
}
