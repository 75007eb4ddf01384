package nats_test

import (
	"testing"

	"github.com/soapwire/soapwire/internal/buildcheck"
)

// TestWrongOptionDoesNotCompile: an option given to a constructor that does
// not take it is refused by the compiler, naming the option and the method
// its type lacks. testdata/wrongoption/right, every constructor with every
// option it takes, compiles; each other program there gives one
// constructor another's option.
func TestWrongOptionDoesNotCompile(t *testing.T) {
	buildcheck.Compiles(t, "testdata/wrongoption/right")
	const pkg = `"github.com/soapwire/soapwire/bindings/nats".`
	tests := []struct{ dir, option, want string }{
		{"subscribe", "WithTimeout", "TransportOption does not implement " + pkg + "SubscribeOption (missing method applySubscribe)"},
		{"transport", "WithConcurrency", "SubscribeOption does not implement " + pkg + "TransportOption (missing method applyTransport)"},
		{"publisher", "WithLimits", "ReadOption does not implement " + pkg + "PublisherOption (missing method applyPublisher)"},
		{"receiver", "WithQueue", "SubscribeOption does not implement " + pkg + "ReceiverOption (missing method applyReceiver)"},
		{"server", "WithPrefetch", "ReceiverOption does not implement " + pkg + "ServerOption (missing method applyServer)"},
	}
	for _, tt := range tests {
		t.Run(tt.dir, func(t *testing.T) {
			buildcheck.Refused(t, "testdata/wrongoption/"+tt.dir, "cannot use soapnats."+tt.option+"(", tt.want)
		})
	}
}
