package suggest_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/soapwire/soapwire/core/internal/suggest"
)

func TestClosest(t *testing.T) {
	names := []string{"add", "echoString", "echoStruct", "fail", "person", "nickname", "name"}
	tests := []struct{ in, want string }{
		{"ad", "add"},
		{"Add", "add"},
		{"echostring", "echoString"},
		{"echoStrnig", "echoString"},
		{"persn", "person"},
		{"nmae", "name"},
		{"nicknmae", "nickname"},
		{"zzz", ""},
		{"add", ""},
		{"multiply", ""},
		{"c", ""},
		{"dd", "add"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, suggest.Closest(tt.in, names), tt.in)
	}
}
