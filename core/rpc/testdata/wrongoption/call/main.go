// Command call gives Call an option of Register only: it must not compile
// (TestWrongOptionDoesNotCompile).
package main

import (
	"context"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/rpc"
)

type req struct{ A int }

type resp struct{ R int }

func main() {
	c := rpc.NewClient(core.RoundTripFunc(nil), "urn:x")
	_, _ = rpc.Call[resp](context.Background(), c, "op", req{}, rpc.WithDoc("an operation"))
}
