package imap_test

import (
	"testing"

	"github.com/soapwire/soapwire/internal/buildcheck"
)

// TestWrongOptionDoesNotCompile: an option given to a constructor that does
// not take it does not compile (testdata/wrongoption), and the compiler
// names the option's type and the method it lacks; the constructors with
// their own and shared options compile (testdata/rightoption).
func TestWrongOptionDoesNotCompile(t *testing.T) {
	t.Parallel()
	buildcheck.Refused(t, "testdata/wrongoption",
		"imap.AppenderOption does not implement imap.ReceiverOption (missing method applyReceiver)",
		"imap.ReceiverOption does not implement imap.AppenderOption (missing method applyAppender)",
		"imap.ClientOption does not implement imap.ServerOption (missing method applyServer)",
		"imap.ReceiverOption does not implement imap.ServerOption (missing method applyServer)",
		"imap.ServerOption does not implement imap.ReceiverOption (missing method applyReceiver)",
	)
	buildcheck.Compiles(t, "testdata/rightoption")
}
