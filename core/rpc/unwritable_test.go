package rpc_test

import (
	"bytes"
	"context"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/rpc"
)

// Link is a node of a list that may loop back on itself.
type Link struct {
	Name string
	Next *Link
}

// LoopReq asks for a list.
type LoopReq struct{ Name string }

// LoopResp returns it.
type LoopResp struct{ Return *Link }

// TestServiceUnwritableResponse: a response the service cannot encode (a
// cycle, without WithMultiRefs to write it as shared references) is a
// Receiver fault with the generic reason, its cause logged as an error and
// not sent; the same cycle with WithMultiRefs in rpc/encoded is written.
func TestServiceUnwritableResponse(t *testing.T) {
	var logs bytes.Buffer
	loop := func(_ context.Context, r *LoopReq) (*LoopResp, error) {
		l := &Link{Name: r.Name}
		l.Next = l
		return &LoopResp{Return: l}, nil
	}
	req := envelope(core.V11, `<m:loop xmlns:m="urn:soapwire:loop"><Name>loop-node-7</Name></m:loop>`)
	for _, style := range []rpc.Style{rpc.DocumentLiteral, rpc.RPCLiteral, rpc.RPCEncoded} {
		logs.Reset()
		svc := rpc.NewService("urn:soapwire:loop", "LoopService", rpc.WithStyle(style), rpc.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
		rpc.Register(svc, "loop", loop)
		out, f := serveRaw(t, svc, req)
		require.NotNil(t, f, "style %v: %s", style, out)
		assert.Equal(t, core.CodeReceiver, f.Code)
		assert.Equal(t, core.InternalErrorReason, f.Reason)
		assert.NotContains(t, out, "loop-node-7", "no part of the response is sent")
		assert.Contains(t, logs.String(), `level=ERROR msg="rpc: response cannot be written" service=LoopService operation=loop`)
	}

	svc := rpc.NewService("urn:soapwire:loop", "LoopService", rpc.WithStyle(rpc.RPCEncoded), rpc.WithMultiRefs(true))
	rpc.Register(svc, "loop", loop)
	out, f := serveRaw(t, svc, req)
	require.Nil(t, f, "with multi-refs the cycle is written: %s", out)
	assert.Contains(t, out, "loop-node-7")
	assert.Contains(t, out, `href="#`)
}
