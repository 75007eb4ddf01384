package rpc_test

import (
	"context"
	"encoding/xml"
	"errors"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/rpc"
)

const echoNS = "urn:soapwire:echo"

type EchoStringReq struct {
	S string `soap:"s"`
}

type EchoStringResp struct {
	Return string `soap:"return"`
}

type AddReq struct {
	A int32 `soap:"a"`
	B int32 `soap:"b"`
}

type AddResp struct {
	Return int32 `soap:"return"`
}

type Record struct {
	Name  string   `soap:"name"`
	Count int32    `soap:"count"`
	Score float64  `soap:"score"`
	Tags  []string `soap:"tags"`
}

type EchoStructReq struct {
	Record Record `soap:"record"`
}

type EchoStructResp struct {
	Return Record `soap:"return"`
}

type FailReq struct {
	Reason string `soap:"reason"`
}

type FailResp struct{}

// CounterReq/CounterResp exercise the modes: value is inout, step in,
// the return value out and doubled an extra out parameter.
type CounterReq struct {
	Value int32 `soap:"value,inout"`
	Step  int32 `soap:"step"`
}

type CounterResp struct {
	Value   int32 `soap:"value,inout"`
	Return  int32 `soap:"return,out"`
	Doubled int32 `soap:"doubled"`
}

type SumReq struct {
	Values []int32 `soap:"values"`
}

type SumResp struct {
	Return int32 `soap:"return"`
}

var errSecret = errors.New("database password is hunter2")

const failDetail = `<e:problem xmlns:e="urn:soapwire:errors"><e:code>42</e:code></e:problem>`

// newEchoService is the example service every test (and zeep) calls.
func newEchoService(opts ...rpc.ServiceOption) *rpc.Service {
	s := rpc.NewService(echoNS, "EchoService", opts...)
	rpc.Register(s, "echoString", func(_ context.Context, r *EchoStringReq) (*EchoStringResp, error) {
		return &EchoStringResp{Return: r.S}, nil
	}, rpc.WithDoc("echoString returns its argument."))
	rpc.Register(s, "add", func(_ context.Context, r *AddReq) (*AddResp, error) {
		return &AddResp{Return: r.A + r.B}, nil
	})
	rpc.Register(s, "echoStruct", func(_ context.Context, r *EchoStructReq) (*EchoStructResp, error) {
		return &EchoStructResp{Return: r.Record}, nil
	})
	rpc.Register(s, "fail", func(_ context.Context, r *FailReq) (*FailResp, error) {
		return nil, &core.Fault{
			Code:     core.CodeSender,
			Subcodes: []xml.Name{{Space: "urn:soapwire:errors", Local: "NoAccount"}},
			Reason:   r.Reason,
			Detail:   []byte(failDetail),
		}
	})
	rpc.Register(s, "counter", func(_ context.Context, r *CounterReq) (*CounterResp, error) {
		v := r.Value + r.Step
		return &CounterResp{Value: v, Return: v * 10, Doubled: 2 * v}, nil
	})
	rpc.Register(s, "sum", func(_ context.Context, r *SumReq) (*SumResp, error) {
		var n int32
		for _, v := range r.Values {
			n += v
		}
		return &SumResp{Return: n}, nil
	})
	rpc.Register(s, "broken", func(_ context.Context, _ *EchoStringReq) (*EchoStringResp, error) {
		return nil, errSecret
	})
	return s
}
