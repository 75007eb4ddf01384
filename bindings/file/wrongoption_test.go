package file_test

import (
	"testing"

	"github.com/soapwire/soapwire/internal/buildcheck"
)

// TestWrongOptionDoesNotCompile: a Poller's option given to NewSender does
// not compile, and the compiler names the option's type and the method it
// lacks; the constructors with their own and shared options compile.
func TestWrongOptionDoesNotCompile(t *testing.T) {
	t.Parallel()
	buildcheck.Refused(t, "testdata/wrongoption",
		"file.PollerOption does not implement file.SenderOption (missing method applySender)",
	)
	buildcheck.Compiles(t, "testdata/rightoption")
}
