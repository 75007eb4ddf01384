// Command register gives Register an option of NewService and NewClient:
// it must not compile (TestWrongOptionDoesNotCompile).
package main

import (
	"context"

	"github.com/soapwire/soapwire/core/rpc"
)

type req struct{ A int }

type resp struct{ R int }

func op(context.Context, *req) (*resp, error) { return &resp{}, nil }

func main() {
	rpc.Register(rpc.NewService("urn:x", "X"), "op", op, rpc.WithStyle(rpc.RPCEncoded))
}
