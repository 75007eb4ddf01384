package imap_test

import (
	"os"
	"testing"

	"github.com/soapwire/soapwire/core/coretest"
)

func TestMain(m *testing.M) {
	if spec := os.Getenv(crashHelperEnv); spec != "" {
		os.Exit(crashHelper(spec))
	}
	os.Exit(coretest.RunWithPeerSummary(m))
}
