package smtp_test

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
		"smtp.ReceiverOption does not implement smtp.MaildirOption (missing method applyMaildir)",
		"smtp.MaildirOption does not implement smtp.SenderOption (missing method applySender)",
		"smtp.SessionOption does not implement smtp.ReceiverOption (missing method applyReceiver)",
		"smtp.ReadOption does not implement smtp.ServerOption (missing method applyServer)",
		"smtp.SenderOption does not implement smtp.ServerOption (missing method applyServer)",
		"smtp.LogOption does not implement smtp.ReadMailOption (missing method applyReadMail)",
	)
	buildcheck.Compiles(t, "testdata/rightoption")
}
