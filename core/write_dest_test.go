package core_test

import (
	"bufio"
	"bytes"
	"encoding/xml"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
)

// writeOnly hides every method but Write: the writer buffers on its own.
type writeOnly struct{ w io.Writer }

func (o writeOnly) Write(p []byte) (int, error) { return o.w.Write(p) }

// TestWriteDestinations: the writer appends into the destination's own
// buffer when it lends one (bytes.Buffer, bufio.Writer of any size, even
// one already holding bytes) and uses its own otherwise; the bytes are the
// same every way, for a message much larger than any buffer.
func TestWriteDestinations(t *testing.T) {
	body := `<m:Big xmlns:m="urn:m">` + strings.Repeat(`<m:i a="x&amp;y">text &lt; more</m:i>`, 2000) + `</m:Big>`
	msg := func() *core.Message {
		m, err := core.ReadMessage(strings.NewReader(envOf(core.V12, wrap(`<h:a xmlns:h="urn:h">v</h:a>`, body))), core.Limits{})
		require.NoError(t, err)
		m.ID = "urn:uuid:1"
		return m
	}
	var want bytes.Buffer
	n, err := msg().WriteTo(writeOnly{&want})
	require.NoError(t, err)
	require.Equal(t, int64(want.Len()), n)
	require.Greater(t, want.Len(), 64<<10)

	for name, size := range map[string]int{"bufio 512": 512, "bufio 4096": 4096, "bufio 64KiB": 64 << 10} {
		t.Run(name, func(t *testing.T) {
			var out bytes.Buffer
			bw := bufio.NewWriterSize(&out, size)
			bw.WriteString("<!-- before -->")
			n, err := msg().WriteTo(bw)
			require.NoError(t, err)
			require.NoError(t, bw.Flush())
			assert.Equal(t, int64(want.Len()), n)
			assert.Equal(t, "<!-- before -->"+want.String(), out.String())
		})
	}
	t.Run("bytes.Buffer", func(t *testing.T) {
		var out bytes.Buffer
		out.WriteString("x")
		n, err := msg().WriteTo(&out)
		require.NoError(t, err)
		assert.Equal(t, int64(want.Len()), n)
		assert.Equal(t, "x"+want.String(), out.String())
	})
	t.Run("a stream body copying another body", func(t *testing.T) {
		in := msg()
		reply := in.Reply(core.StreamBody(xml.Name{Space: "urn:m", Local: "Big"}, func(w io.Writer) error {
			_, err := in.Body().WriteTo(w) // into the envelope's own writer
			return err
		}))
		var a, b bytes.Buffer
		_, err := reply.WriteTo(&a)
		require.NoError(t, err)
		assert.Equal(t, 2000, strings.Count(a.String(), "<m:i "))
		in2 := msg()
		reply2 := in2.Reply(core.StreamBody(xml.Name{Space: "urn:m", Local: "Big"}, func(w io.Writer) error {
			_, err := in2.Body().WriteTo(writeOnly{w})
			return err
		}))
		_, err = reply2.WriteTo(&b)
		require.NoError(t, err)
		assert.Equal(t, stripIDs(b.String()), stripIDs(a.String()), "the same bytes as through a separate buffer")
	})
}

// stripIDs drops the fresh message ids two replies differ by.
func stripIDs(s string) string {
	return regexp.MustCompile(`urn:uuid:[0-9a-f]{8}-[0-9a-f-]{27}`).ReplaceAllString(s, "urn:uuid:…")
}

// TestStreamCopyDeclaresOnce: a stream body that copies a request's body
// before writing anything else writes the same bytes as the request's body
// returned as the reply's: its children are the Body's, where the
// envelope's prefix is bound, and do not declare it again (an echo over
// NATS carried xmlns:soap twice). Copied below an element of the stream's
// own, which may bind the prefix to something else, they declare it.
func TestStreamCopyDeclaresOnce(t *testing.T) {
	const enc = "http://schemas.xmlsoap.org/soap/encoding/"
	for _, v := range versions {
		body := `<t:op xmlns:t="urn:t" soap:encodingStyle="` + enc + `"><t:a>1</t:a></t:op><t:op2 xmlns:t="urn:t"/>`
		in := `<soap:Envelope xmlns:soap="{ns}"><soap:Body>` + body + `</soap:Body></soap:Envelope>`
		read := func() *core.Message {
			m, err := core.ReadMessage(strings.NewReader(envOf(v, in)), core.Limits{})
			require.NoError(t, err)
			return m
		}
		write := func(m *core.Message) string {
			var b bytes.Buffer
			_, err := m.WriteTo(&b)
			require.NoError(t, err)
			return b.String()
		}
		name := xml.Name{Space: "urn:t", Local: "op"}

		req := read()
		echoed := write(req.Reply(req.Body()))
		assert.Equal(t, 1, strings.Count(echoed, `xmlns:soap=`), echoed)
		req = read()
		streamed := write(req.Reply(core.StreamBody(name, func(w io.Writer) error {
			_, err := req.Body().WriteTo(w)
			return err
		})))
		assert.Equal(t, echoed, streamed, "SOAP %s: a stream copying the body first", v)

		// below an element of the stream's own that binds soap elsewhere
		req = read()
		wrapped := write(req.Reply(core.StreamBody(name, func(w io.Writer) error {
			if _, err := io.WriteString(w, `<w:wrap xmlns:w="urn:w" xmlns:soap="urn:other">`); err != nil {
				return err
			}
			if _, err := req.Body().WriteTo(w); err != nil {
				return err
			}
			_, err := io.WriteString(w, `</w:wrap>`)
			return err
		})))
		var got struct {
			Op struct {
				Enc xml.Attr `xml:",any,attr"`
			} `xml:"Body>wrap>op"`
		}
		require.NoError(t, xml.Unmarshal([]byte(wrapped), &got), wrapped)
		assert.Equal(t, xml.Attr{Name: xml.Name{Space: v.Namespace(), Local: "encodingStyle"}, Value: enc}, got.Op.Enc,
			"SOAP %s: the copy below the wrapper declares the envelope's prefix: %s", v, wrapped)
	}
}
