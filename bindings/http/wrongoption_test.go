package http_test

import (
	"testing"

	"github.com/soapwire/soapwire/internal/buildcheck"
)

// TestWrongOptionDoesNotCompile: an option given to a constructor that does
// not take it is refused by the compiler, naming the option and the method
// its type lacks. testdata/wrongoption/right, every constructor with every
// option it takes, compiles; each other program there gives one constructor
// another's option.
func TestWrongOptionDoesNotCompile(t *testing.T) {
	buildcheck.Compiles(t, "testdata/wrongoption/right")
	tests := []struct{ dir, option, want string }{
		{"handler", "WithCredentials", "http.TransportOption does not implement http.HandlerOption (missing method applyHandler)"},
		{"transport", "WithLogger", "http.LogOption does not implement http.TransportOption (missing method applyTransport)"},
		{"server", "WithLimits", "http.ReadOption does not implement http.ServerOption (missing method applyServer)"},
	}
	for _, tt := range tests {
		t.Run(tt.dir, func(t *testing.T) {
			buildcheck.Refused(t, "testdata/wrongoption/"+tt.dir, "cannot use soaphttp."+tt.option+"(", tt.want)
		})
	}
}
