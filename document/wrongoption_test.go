package document_test

import (
	"testing"

	"github.com/soapwire/soapwire/internal/buildcheck"
)

// TestWrongOptionDoesNotCompile: an option given to a constructor that does
// not take it does not compile, one line per constructor or function
// (testdata/wrongoption), and the compiler names the option's type and the
// method it lacks; each with its own and shared options compiles
// (testdata/rightoption).
func TestWrongOptionDoesNotCompile(t *testing.T) {
	t.Parallel()
	buildcheck.Refused(t, "testdata/wrongoption",
		"document.CorrelatorOption does not implement document.HandlerOption (missing method applyHandler)",
		"document.HandlerOption does not implement document.CorrelatorOption (missing method applyCorrelator)",
		"document.SendOption does not implement document.MessageOption (missing method applyMessage)",
		"document.Option does not implement document.SendOption (missing method applySend)",
		"document.CorrelatorOption does not implement document.MessageOption (missing method applyMessage)",
	)
	buildcheck.Compiles(t, "testdata/rightoption")
}
