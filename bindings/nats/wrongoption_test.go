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
	tests := []struct{ dir, option, want string }{
		{"subscribe", "WithTimeout", "nats.TransportOption does not implement nats.SubscribeOption (missing method applySubscribe)"},
		{"transport", "WithConcurrency", "nats.SubscribeOption does not implement nats.TransportOption (missing method applyTransport)"},
		{"publisher", "WithLimits", "nats.ReadOption does not implement nats.PublisherOption (missing method applyPublisher)"},
		{"receiver", "WithQueue", "nats.SubscribeOption does not implement nats.ReceiverOption (missing method applyReceiver)"},
		{"server", "WithPrefetch", "nats.ReceiverOption does not implement nats.ServerOption (missing method applyServer)"},
	}
	for _, tt := range tests {
		t.Run(tt.dir, func(t *testing.T) {
			buildcheck.Refused(t, "testdata/wrongoption/"+tt.dir, "cannot use soapnats."+tt.option+"(", tt.want)
		})
	}
}
