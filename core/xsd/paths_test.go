package xsd_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core/xsd"
)

func TestUnflatten(t *testing.T) {
	got, err := xsd.Unflatten(map[string]any{
		"person.name": "Ada", "person.tags.0": "a", "person.tags.1": "b", "person.address.city": "London",
		"person.id": 7, "note": nil, "items.0.sku": "x", "items.1.sku": "y",
	})
	require.NoError(t, err)
	assert.Equal(t, map[string]any{
		"person": map[string]any{"name": "Ada", "tags": []any{"a", "b"}, "address": map[string]any{"city": "London"}, "id": 7},
		"note":   nil,
		"items":  []any{map[string]any{"sku": "x"}, map[string]any{"sku": "y"}},
	}, got)

	tests := []struct {
		in   map[string]any
		want string
	}{
		{map[string]any{"a": 1, "a.b": 2}, "a.b: a is both a value and a structure"},
		{map[string]any{"t.0": 1, "t.2": 2}, "t.1 is missing (indexes start at 0, without gaps)"},
		{map[string]any{"t.0": 1, "t.x": 2}, "t mixes indexes and names"},
		{map[string]any{"a..b": 1}, `the path "a..b" has an empty name`},
	}
	for _, tt := range tests {
		_, err := xsd.Unflatten(tt.in)
		assert.EqualError(t, err, tt.want)
	}
}
