package core_test

import (
	"encoding/xml"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
)

// TestFaultWithVersion: a fault re-expressed in a version is a copy when
// the version changes and f itself when it does not; the original is never
// modified, and the copy keeps every other field.
func TestFaultWithVersion(t *testing.T) {
	cause := errors.New("disk full")
	base := core.Fault{
		Code:     core.CodeSender,
		Subcodes: []xml.Name{{Space: "urn:x", Local: "Bad"}},
		Reason:   "bad",
		Node:     "urn:node",
		Role:     "urn:role",
		Detail:   []byte(`<d xmlns="urn:x"/>`),
		Remote:   true,
		Cause:    cause,
	}
	tests := []struct {
		name string
		from core.Version
		to   core.Version
		same bool // the same *Fault comes back
	}{
		{"none to 1.1", 0, core.V11, false},
		{"none to 1.2", 0, core.V12, false},
		{"1.1 to 1.2", core.V11, core.V12, false},
		{"1.2 to 1.1", core.V12, core.V11, false},
		{"1.1 to 1.1", core.V11, core.V11, true},
		{"1.2 to 1.2", core.V12, core.V12, true},
		{"1.2 to none", core.V12, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := base
			f.Version = tt.from
			got := f.WithVersion(tt.to)
			require.NotNil(t, got)
			assert.Equal(t, tt.to, got.Version)
			assert.Equal(t, tt.from, f.Version, "the original keeps its version")
			if tt.same {
				assert.Same(t, &f, got)
				return
			}
			assert.NotSame(t, &f, got)
			want := base
			want.Version = tt.to
			assert.Equal(t, want, *got, "every other field is kept")
			assert.ErrorIs(t, got, cause)
		})
	}
}

// TestFaultWithVersionWritten: the re-expressed fault writes in its new
// version's form when a binding answers with it.
func TestFaultWithVersionWritten(t *testing.T) {
	f := &core.Fault{Code: core.CodeSender, Reason: "bad", Version: core.V11}
	for _, v := range []core.Version{core.V11, core.V12} {
		t.Run(v.String(), func(t *testing.T) {
			g := f.WithVersion(v)
			back, raw := pmWire(t, core.NewMessage(g.Version, core.FaultBody(g)))
			got := back.Fault()
			require.NotNil(t, got, "%s", raw)
			assert.Equal(t, v, back.Version())
			assert.Equal(t, v, got.Version)
			assert.Equal(t, core.CodeSender, got.Code)
			if v == core.V12 {
				assert.Contains(t, string(raw), ":Sender</")
			} else {
				assert.Contains(t, string(raw), ":Client</faultcode>")
			}
		})
	}
	assert.Equal(t, core.V11, f.Version)
}

func TestFaultWithVersionNil(t *testing.T) {
	var f *core.Fault
	assert.Nil(t, f.WithVersion(core.V12))
}
