package http_test

import (
	"context"
	"encoding/xml"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"

	soaphttp "github.com/soapwire/soapwire/bindings/http"
	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/rpc"
)

// The interop service: a document/literal core/rpc Service that every real
// peer calls (through its "?wsdl", served by NewHandler) or serves (from
// the same WSDL) for our Transport to call.
const (
	interopNS      = "urn:soapwire:interop"
	interopService = "InteropService"
	interopPort11  = "InteropServiceSoap11"
	interopPort12  = "InteropServiceSoap12"
	interopHello   = "héllo & <world>"
)

// Item is the struct echoStruct carries (its name is the WSDL type name).
type Item struct {
	Name  string   `soap:"name" json:"name"`
	Count int32    `soap:"count" json:"count"`
	Score float64  `soap:"score" json:"score"`
	Tags  []string `soap:"tags" json:"tags"`
}

var interopItem = Item{Name: "widget", Count: 3, Score: 2.5, Tags: []string{"a", "b", "c"}}

type EchoStringReq struct {
	Message string `soap:"message"`
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
type EchoStructReq struct {
	Value Item `soap:"value"`
}
type EchoStructResp struct {
	Return Item `soap:"return"`
}
type FailReq struct {
	Reason string `soap:"reason"`
}
type FailResp struct{}

// failDetail is the detail of fail's fault.
const failDetail = `<tns:why xmlns:tns="` + interopNS + `"><tns:code>42</tns:code><tns:text>asked to</tns:text></tns:why>`

var refused = xml.Name{Space: interopNS, Local: "Refused"}

func newInteropService() *rpc.Service {
	s := rpc.NewService(interopNS, interopService)
	rpc.Register(s, "echoString", func(_ context.Context, r *EchoStringReq) (*EchoStringResp, error) {
		return &EchoStringResp{Return: r.Message}, nil
	})
	rpc.Register(s, "add", func(_ context.Context, r *AddReq) (*AddResp, error) {
		return &AddResp{Return: r.A + r.B}, nil
	})
	rpc.Register(s, "echoStruct", func(_ context.Context, r *EchoStructReq) (*EchoStructResp, error) {
		return &EchoStructResp{Return: r.Value}, nil
	})
	rpc.Register(s, "fail", func(_ context.Context, r *FailReq) (*FailResp, error) {
		return nil, &core.Fault{Code: core.CodeSender, Subcodes: []xml.Name{refused}, Reason: r.Reason, Detail: []byte(failDetail)}
	})
	return s
}

// interopResult is what every peer client script prints.
type interopResult struct {
	EchoString string `json:"echoString"`
	Add        int    `json:"add"`
	EchoStruct Item   `json:"echoStruct"`
	Fail       struct {
		Raised   bool     `json:"raised"`
		Code     string   `json:"code"`
		Message  string   `json:"message"`
		Detail   string   `json:"detail"`
		Subcodes []string `json:"subcodes"`
	} `json:"fail"`
}

// check asserts a peer got the right value from every operation.
func (r *interopResult) check(t *testing.T) {
	t.Helper()
	assert.Equal(t, interopHello, r.EchoString, "echoString")
	assert.Equal(t, 42, r.Add, "add")
	assert.Equal(t, interopItem, r.EchoStruct, "echoStruct")
	assert.True(t, r.Fail.Raised, "fail raised a fault")
	// 1.2: the Sender code; 1.1: the subcode is the faultcode, a qualified
	// name (WS-I BP R1004), which peers show with its prefix
	assert.Regexp(t, `(^|:)(Sender|Refused)$`, r.Fail.Code, "fail: code")
	assert.Equal(t, "boom", r.Fail.Message, "fail: reason")
	assert.Contains(t, r.Fail.Detail, "42", "fail: detail")
	assert.Contains(t, r.Fail.Detail, "asked to", "fail: detail")
}

// recorder wraps a handler and records each request's version and action.
type recorder struct {
	h    core.Handler
	mu   sync.Mutex
	seen []string
}

func (r *recorder) ServeSOAP(ctx context.Context, m *core.Message) (*core.Message, error) {
	r.mu.Lock()
	r.seen = append(r.seen, m.Version().String()+" "+m.Action)
	r.mu.Unlock()
	return r.h.ServeSOAP(ctx, m)
}

func (r *recorder) calls() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.seen...)
}

var _ soaphttp.Describer = (*rpc.Service)(nil)
