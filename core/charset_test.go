package core_test

import (
	"encoding/binary"
	"strings"
	"testing"
	uni16 "unicode/utf16"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
)

// utf16Bytes encodes s in UTF-16 of the given order, without a byte order
// mark.
func utf16Bytes(s string, le bool) []byte {
	var b []byte
	for _, u := range uni16.Encode([]rune(s)) {
		if le {
			b = binary.LittleEndian.AppendUint16(b, u)
		} else {
			b = binary.BigEndian.AppendUint16(b, u)
		}
	}
	return b
}

// TestCharsetReader: UTF-16 without a byte order mark is read when the
// transport's charset label says UTF-16 (either order, or the order the
// first character shows for "utf-16"); without a label it is refused, as
// before; a label on UTF-8 bytes, or on UTF-16 with a mark, changes nothing.
func TestCharsetReader(t *testing.T) {
	for _, v := range []core.Version{core.V11, core.V12} {
		env := `<s:Envelope xmlns:s="` + v.Namespace() + `"><s:Body><m:Ping xmlns:m="urn:m">é€</m:Ping></s:Body></s:Envelope>`
		decl := `<?xml version="1.0" encoding="UTF-16"?>`
		cases := []struct {
			name, label string
			data        []byte
			ok          bool
		}{
			{"LE labelled utf-16le", "utf-16le", utf16Bytes(env, true), true},
			{"BE labelled utf-16be", "UTF-16BE", utf16Bytes(env, false), true},
			{"LE labelled utf-16", "utf-16", utf16Bytes(decl+env, true), true},
			{"BE labelled utf-16", "utf-16", utf16Bytes(decl+env, false), true},
			{"LE with a mark labelled utf-16", "utf-16", append([]byte{0xFF, 0xFE}, utf16Bytes(env, true)...), true},
			{"UTF-8 labelled utf-16", "utf-16", []byte(env), true},
			{"LE without a label", "", utf16Bytes(decl+env, true), false},
			{"LE labelled utf-8", "utf-8", utf16Bytes(env, true), false},
			{"BE labelled utf-16le", "utf-16le", utf16Bytes(env, false), false},
		}
		for _, c := range cases {
			t.Run(v.String()+"/"+c.name, func(t *testing.T) {
				m, err := core.ReadMessage(core.CharsetReader(c.label, strings.NewReader(string(c.data))), core.Limits{})
				if err == nil {
					var b strings.Builder
					_, err = m.Body().WriteTo(&b)
					if c.ok {
						require.NoError(t, err)
						assert.Contains(t, b.String(), "é€")
						return
					}
				}
				if c.ok {
					require.NoError(t, err)
				}
				require.Error(t, err)
				assert.Equal(t, core.CodeSender, core.FaultOf(err).Code)
			})
		}
	}
}
