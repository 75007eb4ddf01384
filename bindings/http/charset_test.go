package http_test

import (
	"encoding/binary"
	"net/http"
	"testing"
	"unicode/utf16"

	"github.com/stretchr/testify/assert"

	"github.com/soapwire/soapwire/core"
)

func utf16NoBOM(s string, le bool) []byte {
	var b []byte
	for _, u := range utf16.Encode([]rune(s)) {
		if le {
			b = binary.LittleEndian.AppendUint16(b, u)
		} else {
			b = binary.BigEndian.AppendUint16(b, u)
		}
	}
	return b
}

// TestHandlerUTF16Labelled: a request in UTF-16 without a byte order mark
// is read when its Content-Type's charset says UTF-16 (RFC 7303: the label
// decides); without the label it is refused with a Sender fault in the
// media type's version.
func TestHandlerUTF16Labelled(t *testing.T) {
	srv := serve(t, echo)
	for _, v := range []core.Version{core.V11, core.V12} {
		env := envelope(v, "", `<t:echoString xmlns:t="`+testNS+`"><message>héllo</message></t:echoString>`)
		for _, c := range []struct {
			name, charset string
			le            bool
			status        int
		}{
			{"utf-16le", "utf-16le", true, 200},
			{"utf-16be", "utf-16be", false, 200},
			{"utf-16, little-endian", "utf-16", true, 200},
			{"utf-16, big-endian", "utf-16", false, 200},
			{"no label", "", true, map[core.Version]int{core.V11: 500, core.V12: 400}[v]},
		} {
			t.Run(v.String()+"/"+c.name, func(t *testing.T) {
				ct := v.MediaType()
				if c.charset != "" {
					ct += "; charset=" + c.charset
				}
				resp, data := post(t, srv.URL, map[string]string{"Content-Type": ct}, bytesReader(utf16NoBOM(env, c.le)))
				assert.Equal(t, c.status, resp.StatusCode, "%s", data)
				if c.status == http.StatusOK {
					_, r := readReply(t, data)
					assert.Equal(t, "héllo", r.Return)
					return
				}
				_, f := readFault(t, data)
				assert.Equal(t, core.CodeSender, f.Code)
			})
		}
	}
}
