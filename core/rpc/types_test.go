package rpc_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core/rpc"
	"github.com/soapwire/soapwire/core/soapenc"
)

type Base struct {
	ID uint64 `soap:"id"`
}

type Sink struct {
	Base
	When    time.Time         `soap:"when"`
	Local   time.Time         `soap:"local"`
	Data    []byte            `soap:"data"`
	Hex     soapenc.HexBinary `soap:"hex"`
	Dec     soapenc.Decimal   `soap:"dec"`
	F32     float32           `soap:"f32"`
	Inf     float64           `soap:"inf"`
	Small   int8              `soap:"small"`
	Flag    bool              `soap:"flag"`
	Note    *string           `soap:"note"`
	Missing *string           `soap:"missing"`
	Nested  []Base            `soap:"nested"`
	Text    string            `soap:"text,omitempty"`
}

type SinkReq struct {
	In    Sink    `soap:"in"`
	Multi [][]int `soap:"multi"`
}

type SinkResp struct {
	Out   Sink    `soap:"out"`
	Multi [][]int `soap:"multi"`
}

// TestRoundTripTypes: every simple type, an embedded struct, nil and
// non-nil pointers, slices of structs and of slices survive a call in
// every style and version.
func TestRoundTripTypes(t *testing.T) {
	note := "n & <b>"
	in := Sink{
		Base:  Base{ID: math.MaxUint64},
		When:  time.Date(2024, 5, 1, 10, 0, 0, 123456789, time.FixedZone("", 2*3600)),
		Local: time.Date(2024, 5, 1, 10, 0, 0, 0, soapenc.NoZone()),
		Data:  []byte{0, 1, 2, 255}, Hex: soapenc.HexBinary{0xca, 0xfe},
		Dec: "-12.50", F32: 1.1, Inf: math.Inf(-1), Small: -128, Flag: true,
		Note: &note, Nested: []Base{{ID: 1}, {ID: 2}},
	}
	for _, style := range styles {
		for _, v := range versions {
			t.Run(style.String()+"/"+v.String(), func(t *testing.T) {
				svc := rpc.NewService(echoNS, "Sink", rpc.WithStyle(style))
				rpc.Register(svc, "sink", func(_ context.Context, r *SinkReq) (*SinkResp, error) {
					return &SinkResp{Out: r.In, Multi: r.Multi}, nil
				})
				c := rpc.NewClient(loopback(t, svc), echoNS, rpc.WithStyle(style), rpc.WithVersion(v))
				got, err := rpc.Call[SinkResp](t.Context(), c, "sink", SinkReq{In: in, Multi: [][]int{{1, 2}, {3}}})
				require.NoError(t, err)
				o := got.Out
				assert.True(t, in.When.Equal(o.When), "%v", o.When)
				assert.True(t, in.Local.Equal(o.Local), "%v", o.Local)
				o.When, o.Local = in.When, in.Local
				assert.Equal(t, in, o)
				assert.Equal(t, [][]int{{1, 2}, {3}}, got.Multi)
			})
		}
	}
}
