// Command right gives each constructor of bindings/nats every option it
// takes: it compiles (TestWrongOptionDoesNotCompile), so the refusals of the
// programs beside it come from their one wrong option.
package main

import (
	"context"
	"log/slog"

	"github.com/nats-io/nats.go"

	soapnats "github.com/soapwire/soapwire/bindings/nats"
	"github.com/soapwire/soapwire/core"
)

func main() {
	var (
		ctx = context.Background()
		nc  *nats.Conn
		h   core.Handler
		l   = slog.Default()
		lim = core.Limits{}
	)
	_, _ = soapnats.Subscribe(ctx, nc, "s", h, soapnats.WithLogger(l), soapnats.WithLimits(lim), soapnats.WithQueue("q"), soapnats.WithConcurrency(1), soapnats.WithObjectStore("b", 0))
	_ = soapnats.NewTransport(nc, "s", soapnats.WithLogger(l), soapnats.WithLimits(lim), soapnats.WithTimeout(1), soapnats.WithObjectStore("b", 0))
	_, _ = soapnats.NewPublisher(nc, "s", soapnats.WithLogger(l), soapnats.WithObjectStore("b", 0))
	_, _ = soapnats.NewReceiver(ctx, nc, "s", "d", soapnats.WithLogger(l), soapnats.WithLimits(lim), soapnats.WithAckWait(1),
		soapnats.WithMaxDeliveries(1), soapnats.WithBackoff(1, 2), soapnats.WithDeadLetter("dead"), soapnats.WithPrefetch(1), soapnats.WithObjectStore("b", 0))
	_, _ = soapnats.StartServer("", soapnats.WithLogger(l), soapnats.WithListenAddr(soapnats.DefaultListenAddr), soapnats.WithMaxPayload(1))
}
