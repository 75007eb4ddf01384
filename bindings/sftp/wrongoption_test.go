package sftp_test

import (
	"testing"

	"github.com/soapwire/soapwire/internal/buildcheck"
)

// TestWrongOptionDoesNotCompile: an option given to a constructor that does
// not take it does not compile, one line per constructor, and the compiler
// names the option's type and the method it lacks; the constructors with
// their own and shared options compile.
func TestWrongOptionDoesNotCompile(t *testing.T) {
	t.Parallel()
	buildcheck.Refused(t, "testdata/wrongoption",
		"sftp.PollerOption does not implement sftp.ClientOption (missing method applyClient)",
		"sftp.AuthOption does not implement sftp.SenderOption (missing method applySender)",
		"sftp.ClientOption does not implement sftp.PollerOption (missing method applyPoller)",
		"sftp.ClientOption does not implement sftp.ServerOption (missing method applyServer)",
	)
	buildcheck.Compiles(t, "testdata/rightoption")
}
