package ftp_test

import (
	"testing"

	"github.com/soapwire/soapwire/internal/buildcheck"
)

// TestWrongOptionDoesNotCompile: an option given to a constructor that does
// not take it does not compile, one line per constructor
// (testdata/wrongoption), and the compiler names the option's type and the
// method it lacks; the constructors with their own and shared options
// compile (testdata/rightoption).
func TestWrongOptionDoesNotCompile(t *testing.T) {
	t.Parallel()
	buildcheck.Refused(t, "testdata/wrongoption",
		"ftp.PollerOption does not implement ftp.ClientOption (missing method applyClient)",
		"ftp.TLSOption does not implement ftp.SenderOption (missing method applySender)",
		"ftp.ClientOption does not implement ftp.PollerOption (missing method applyPoller)",
		"ftp.PollerOption does not implement ftp.ServerOption (missing method applyServer)",
	)
	buildcheck.Compiles(t, "testdata/rightoption")
}
