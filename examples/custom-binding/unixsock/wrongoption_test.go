package unixsock_test

import (
	"testing"

	"github.com/soapwire/soapwire/internal/buildcheck"
)

// TestWrongOptionDoesNotCompile: an option given to a constructor that does
// not take it is refused by the compiler, naming the option and the method
// its type lacks. testdata/wrongoption/right, every constructor with every
// option it takes, compiles; each other program there gives one
// constructor another's option. (The Inbox takes every option the Server
// and the Transport take.)
func TestWrongOptionDoesNotCompile(t *testing.T) {
	buildcheck.Compiles(t, "testdata/wrongoption/right")
	tests := []struct{ dir, option, want string }{
		{"transport", "WithLogger", "unixsock.ListenerOption does not implement unixsock.TransportOption (missing method applyTransport)"},
		{"server", "WithMaxAttempts", "unixsock.InboxOption does not implement unixsock.ServerOption (missing method applyServer)"},
	}
	for _, tt := range tests {
		t.Run(tt.dir, func(t *testing.T) {
			buildcheck.Refused(t, "testdata/wrongoption/"+tt.dir, "cannot use unixsock."+tt.option+"(", tt.want)
		})
	}
}
