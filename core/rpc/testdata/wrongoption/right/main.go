// Command right gives NewService, NewClient and Register every option they
// take: it compiles (TestWrongOptionDoesNotCompile), so the refusals of the
// programs beside it come from their one wrong option.
package main

import (
	"context"
	"log/slog"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/rpc"
)

type req struct{ A int }

type resp struct{ R int }

func op(context.Context, *req) (*resp, error) { return &resp{}, nil }

func main() {
	svc := rpc.NewService("urn:x", "X", rpc.WithStyle(rpc.RPCEncoded), rpc.WithSOAPAction(rpc.DefaultSOAPAction),
		rpc.WithMultiRefs(true), rpc.WithRPCResult(true), rpc.WithLogger(slog.Default()))
	rpc.Register(svc, "op", op, rpc.WithAction("urn:x#op"), rpc.WithDoc("an operation"))
	_ = rpc.NewClient(core.RoundTripFunc(svc.ServeSOAP), "urn:x", rpc.WithStyle(rpc.RPCEncoded), rpc.WithSOAPAction(""),
		rpc.WithMultiRefs(true), rpc.WithVersion(core.V12))
}
