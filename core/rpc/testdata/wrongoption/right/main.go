// Command right gives NewService, NewClient, Register and Call every
// option they take: it compiles (TestWrongOptionDoesNotCompile), so the
// refusals of the programs beside it come from their one wrong option.
package main

import (
	"context"
	"encoding/xml"
	"log/slog"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/rpc"
	"github.com/soapwire/soapwire/core/wsdl"
)

type req struct{ A int }

type resp struct{ R int }

func op(context.Context, *req) (*resp, error) { return &resp{}, nil }

func main() {
	svc := rpc.NewService("urn:x", "X", rpc.WithStyle(rpc.RPCEncoded), rpc.WithSOAPAction(rpc.DefaultSOAPAction),
		rpc.WithMultiRefs(true), rpc.WithRPCResult(true), rpc.WithLogger(slog.Default()),
		rpc.WithQualified(true), rpc.WithTypeNamespace("urn:types"))
	rpc.Register(svc, "op", op, rpc.WithAction("urn:x#op"), rpc.WithDoc("an operation"),
		rpc.WithRequestElement(xml.Name{Space: "urn:x", Local: "op"}), rpc.WithResponseElement(xml.Name{Space: "urn:x", Local: "opResponse"}))
	c := rpc.NewClient(core.RoundTripFunc(svc.ServeSOAP), "urn:x", rpc.WithStyle(rpc.RPCEncoded), rpc.WithSOAPAction(""),
		rpc.WithMultiRefs(true), rpc.WithVersion(core.V12), rpc.WithQualified(true), rpc.WithTypeNamespace("urn:types"))
	_, _ = rpc.Call[resp](context.Background(), c, "op", req{}, rpc.WithAction("urn:x#op"),
		rpc.WithRequestElement(xml.Name{Space: "urn:x", Local: "op"}), rpc.WithResponseElement(xml.Name{Space: "urn:x", Local: "opResponse"}))
	var contract *wsdl.Contract
	if contract != nil {
		_ = rpc.NewService("urn:x", "X", rpc.WithContract(contract, ""))
	}
}
