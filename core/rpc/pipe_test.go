package rpc_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/coretest"
	"github.com/soapwire/soapwire/core/rpc"
)

// TestClientOverPipe: client and service over core/coretest's in-memory
// binding, which writes and re-reads every message.
func TestClientOverPipe(t *testing.T) {
	for _, style := range styles {
		for _, v := range versions {
			t.Run(style.String()+"/"+v.String(), func(t *testing.T) {
				p := coretest.NewPipe(coretest.WithHandler(newEchoService(rpc.WithStyle(style))))
				t.Cleanup(func() { _ = p.Close() })
				c := rpc.NewClient(p, echoNS, rpc.WithStyle(style), rpc.WithVersion(v))

				rec := Record{Name: "pipe", Count: 2, Score: 0.25, Tags: []string{"x"}}
				got, err := rpc.Call[EchoStructResp](t.Context(), c, "echoStruct", EchoStructReq{Record: rec})
				require.NoError(t, err)
				assert.Equal(t, rec, got.Return)

				cnt, err := rpc.Call[CounterResp](t.Context(), c, "counter", CounterReq{Value: 1, Step: 1})
				require.NoError(t, err)
				assert.Equal(t, CounterResp{Value: 2, Return: 20, Doubled: 4}, *cnt)

				_, err = rpc.Call[FailResp](t.Context(), c, "fail", FailReq{Reason: "r"})
				var f *core.Fault
				require.ErrorAs(t, err, &f)
				assert.True(t, f.Remote)
				assert.Equal(t, "r", f.Reason)
				assert.Contains(t, string(f.Detail), "<e:code>42</e:code>")
			})
		}
	}
}
