package rpc_test

import (
	"context"
	"encoding/xml"
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/rpc"
	"github.com/soapwire/soapwire/core/soapenc"
)

// Item is a struct with nested arrays and a pointer.
type Item struct {
	Name  string     `soap:"name"`
	Grid  [][]string `soap:"grid"`
	Child *Item      `soap:"child"`
}

// echoEdge registers an echo operation for values of type T and calls it
// with in through a client, in every style and version.
func echoEdge[T any](t *testing.T, in T, check func(t *testing.T, got T)) {
	t.Helper()
	type req struct {
		V T `soap:"v"`
	}
	type resp struct {
		V T `soap:"return"`
	}
	for _, style := range styles {
		for _, v := range versions {
			t.Run(style.String()+"/"+v.String(), func(t *testing.T) {
				svc := rpc.NewService(echoNS, "Edge", rpc.WithStyle(style))
				rpc.Register(svc, "echo", func(_ context.Context, r *req) (*resp, error) {
					return &resp{V: r.V}, nil
				})
				c := rpc.NewClient(loopback(t, svc), echoNS, rpc.WithStyle(style), rpc.WithVersion(v))
				got, err := rpc.Call[resp](t.Context(), c, "echo", req{V: in})
				require.NoError(t, err)
				check(t, got.V)
			})
		}
	}
}

// TestRoundTripEdges: values at the edges of the encoding survive a call
// in every style and version.
func TestRoundTripEdges(t *testing.T) {
	huge := soapenc.Decimal("-98765432109876543210987654321098765432109876543210.012345678901234567890123456789")
	t.Run("huge decimal", func(t *testing.T) {
		echoEdge(t, huge, func(t *testing.T, got soapenc.Decimal) { assert.Equal(t, huge, got) })
	})
	t.Run("huge integer", func(t *testing.T) {
		n, _ := new(big.Int).SetString("-123456789012345678901234567890123456789012345678901234567890", 10)
		echoEdge(t, n, func(t *testing.T, got *big.Int) { assert.Zero(t, n.Cmp(got), "%v", got) })
	})
	t.Run("rational with a long decimal form", func(t *testing.T) {
		r := new(big.Rat).SetFrac64(-1, 1<<50)
		echoEdge(t, r, func(t *testing.T, got *big.Rat) { assert.Zero(t, r.Cmp(got), "%v", got) })
	})
	t.Run("unicode", func(t *testing.T) {
		s := "héllo wörld ✓ 日本語 𝄞 🎉 \t\r\n <&>\"'"
		echoEdge(t, s, func(t *testing.T, got string) { assert.Equal(t, s, got) })
	})
	t.Run("QName", func(t *testing.T) {
		q := xml.Name{Space: "urn:q", Local: "thing"}
		echoEdge(t, q, func(t *testing.T, got xml.Name) { assert.Equal(t, q, got) })
	})
	t.Run("empty array", func(t *testing.T) {
		echoEdge(t, []string{}, func(t *testing.T, got []string) { assert.Empty(t, got) })
	})
	t.Run("nil array", func(t *testing.T) {
		echoEdge(t, []int32(nil), func(t *testing.T, got []int32) { assert.Empty(t, got) })
	})
	t.Run("nil struct pointer", func(t *testing.T) {
		echoEdge(t, (*Item)(nil), func(t *testing.T, got *Item) { assert.Nil(t, got) })
	})
	t.Run("nil items keep their places", func(t *testing.T) {
		in := []*Item{{Name: "a"}, nil, {Name: "c"}}
		echoEdge(t, in, func(t *testing.T, got []*Item) {
			require.Len(t, got, 3)
			assert.Equal(t, "a", got[0].Name)
			assert.Nil(t, got[1])
			assert.Equal(t, "c", got[2].Name)
		})
	})
	t.Run("nested arrays and structs", func(t *testing.T) {
		in := []Item{{Name: "p", Grid: [][]string{{"a", "b"}, {"c"}}, Child: &Item{Name: "q", Grid: [][]string{{"d"}, {"e", "f"}}}}, {Name: "r"}}
		echoEdge(t, in, func(t *testing.T, got []Item) { assert.Equal(t, in, got) })
	})
	t.Run("multi-dimensional Go array", func(t *testing.T) {
		in := [2][3]int32{{1, 2, 3}, {4, 5, 6}}
		echoEdge(t, in, func(t *testing.T, got [2][3]int32) { assert.Equal(t, in, got) })
	})
	t.Run("map", func(t *testing.T) {
		in := map[string]int32{"a": 1, "b": 2}
		echoEdge(t, in, func(t *testing.T, got map[string]int32) { assert.Equal(t, in, got) })
	})
}

// TestMultiRefCycles: with WithMultiRefs, rpc/encoded carries shared and
// cyclic pointers as multi-refs both ways (1.1 href/id, 1.2 ref/id); the
// literal styles, which have no references, refuse a cycle with a clear
// error instead of looping.
func TestMultiRefCycles(t *testing.T) {
	ring := func() *Item {
		a := &Item{Name: "a"}
		a.Child = &Item{Name: "b", Child: a}
		return a
	}
	for _, v := range versions {
		t.Run("rpc/encoded/"+v.String(), func(t *testing.T) {
			svc := rpc.NewService(echoNS, "Ring", rpc.WithStyle(rpc.RPCEncoded), rpc.WithMultiRefs(true))
			type req struct {
				First  *Item `soap:"first"`
				Second *Item `soap:"second"`
			}
			type resp struct {
				Return *Item `soap:"return"`
				Other  *Item `soap:"other"`
			}
			rpc.Register(svc, "ring", func(_ context.Context, r *req) (*resp, error) {
				if r.First.Child.Child != r.First || r.Second != r.First.Child {
					return nil, core.SenderFault("the ring was not read as a ring")
				}
				return &resp{Return: r.First, Other: r.Second}, nil
			})
			var wire strings.Builder
			rt := loopback(t, svc)
			c := rpc.NewClient(core.RoundTripFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
				reply, err := rt.RoundTrip(ctx, m)
				if reply != nil {
					var b strings.Builder
					_, _ = reply.Body().WriteTo(&b)
					wire.WriteString(b.String())
					reply = wire2(t, v, b.String())
				}
				return reply, err
			}), echoNS, rpc.WithStyle(rpc.RPCEncoded), rpc.WithVersion(v), rpc.WithMultiRefs(true))
			a := ring()
			got, err := rpc.Call[resp](t.Context(), c, "ring", req{First: a, Second: a.Child})
			require.NoError(t, err)
			assert.Equal(t, "a", got.Return.Name)
			assert.Same(t, got.Return, got.Return.Child.Child)
			assert.Same(t, got.Other, got.Return.Child)
			if v == core.V11 {
				assert.Contains(t, wire.String(), `href="#id`)
			} else {
				assert.Contains(t, wire.String(), `enc:ref="id`)
			}
		})
	}
	for _, style := range []rpc.Style{rpc.DocumentLiteral, rpc.RPCLiteral, rpc.RPCEncoded} {
		t.Run(style.String()+"/without multi-refs", func(t *testing.T) {
			svc := newEchoService(rpc.WithStyle(style))
			type req struct {
				First *Item `soap:"first"`
			}
			c := rpc.NewClient(loopback(t, svc), echoNS, rpc.WithStyle(style))
			_, err := rpc.Call[EchoStringResp](t.Context(), c, "echoString", req{First: ring()})
			var e *soapenc.Error
			require.True(t, errors.As(err, &e), "%v", err)
			assert.Equal(t, soapenc.SubcodeCycle, e.Subcode)
		})
	}
}

// wire2 wraps body children in an envelope of version v and reads it.
func wire2(t *testing.T, v core.Version, body string) *core.Message {
	t.Helper()
	m, err := core.ReadMessage(strings.NewReader(envelope(v, body)), core.Limits{})
	require.NoError(t, err)
	return m
}
