package rpc_test

import (
	"testing"

	"github.com/soapwire/soapwire/internal/buildcheck"
)

// TestWrongOptionDoesNotCompile: an option given to a constructor that does
// not take it is refused by the compiler, naming the option and the method
// its type lacks. testdata/wrongoption/right, NewService, NewClient,
// Register and Call with every option they take, compiles; each other
// program there gives one of them another's option.
func TestWrongOptionDoesNotCompile(t *testing.T) {
	buildcheck.Compiles(t, "testdata/wrongoption/right")
	tests := []struct{ dir, option, want string }{
		{"service", "WithVersion", "rpc.ClientOption does not implement rpc.ServiceOption (missing method applyService)"},
		{"client", "WithLogger", "rpc.ServiceOption does not implement rpc.ClientOption (missing method applyClient)"},
		{"register", "WithStyle", "rpc.Option does not implement rpc.OpOption (missing method applyOp)"},
		{"call", "WithDoc", "rpc.OpOption does not implement rpc.CallOption (missing method applyCall)"},
	}
	for _, tt := range tests {
		t.Run(tt.dir, func(t *testing.T) {
			buildcheck.Refused(t, "testdata/wrongoption/"+tt.dir, "cannot use rpc."+tt.option+"(", tt.want)
		})
	}
}
