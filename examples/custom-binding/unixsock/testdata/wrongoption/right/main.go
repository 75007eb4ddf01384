// Command right gives each constructor of unixsock every option it takes:
// it compiles (TestWrongOptionDoesNotCompile), so the refusals of the
// programs beside it come from their one wrong option.
package main

import (
	"log/slog"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/examples/custom-binding/unixsock"
)

func main() {
	var h core.Handler
	l, lim := slog.Default(), core.Limits{}
	_ = unixsock.NewTransport("", unixsock.WithLimits(lim))
	_ = unixsock.NewServer(h, unixsock.WithLimits(lim), unixsock.WithLogger(l), unixsock.WithIOTimeout(1), unixsock.WithMaxConns(1))
	_, _ = unixsock.NewInbox("", unixsock.WithLimits(lim), unixsock.WithLogger(l), unixsock.WithIOTimeout(1), unixsock.WithMaxConns(1),
		unixsock.WithMaxAttempts(1))
}
