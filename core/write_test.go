package core_test

import (
	"bytes"
	"encoding/xml"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// mustBlock parses a header block or fails.
func mustBlock(t *testing.T, raw string) core.HeaderBlock {
	t.Helper()
	b, err := core.ParseHeaderBlock([]byte(raw))
	require.NoError(t, err)
	return b
}

type golden struct {
	name string
	msg  func(t *testing.T, v core.Version) *core.Message
	opts core.WriteOptions
}

func envMsg(v core.Version, body core.Body, headers ...core.HeaderBlock) *core.Message {
	return &core.Message{Envelope: &core.Envelope{Version: v, Headers: headers, Body: body}}
}

var goldens = []golden{
	{name: "request", msg: func(t *testing.T, v core.Version) *core.Message {
		return envMsg(v, core.RawBody([]byte(reqBody)))
	}},
	{name: "empty", msg: func(t *testing.T, v core.Version) *core.Message { return envMsg(v, core.Body{}) }},
	{name: "headers", msg: func(t *testing.T, v core.Version) *core.Message {
		kept := mustBlock(t, `<h:kept xmlns:h="urn:h">as is</h:kept>`)
		mu := mustBlock(t, `<h:mu xmlns:h="urn:h" h:own="1"><h:v>x</h:v></h:mu>`)
		mu.MustUnderstand, mu.Role = true, core.RoleNext
		relay := mustBlock(t, `<r:relay xmlns:r="urn:r" xmlns:soap="urn:not-soap" soap:x="y"/>`)
		relay.Relay, relay.Role, relay.EncodingStyle = true, "urn:role", core.EncodingStyleV12
		changed := mustBlock(t, `<h:off xmlns:h="urn:h" xmlns:e="`+v.Namespace()+`" e:mustUnderstand="1" e:role="urn:x" e:actor="urn:x">y</h:off>`)
		changed.MustUnderstand, changed.Role = false, ""
		fields := core.HeaderBlock{Name: xml.Name{Space: "urn:f", Local: "fromFields"}, MustUnderstand: true, Role: "urn:r2"}
		return envMsg(v, core.RawBody([]byte(reqBody)), kept, mu, relay, changed, fields)
	}},
	{name: "addressing", msg: func(t *testing.T, v core.Version) *core.Message {
		m := envMsg(v, core.RawBody([]byte(reqBody)), mustBlock(t, `<h:a xmlns:h="urn:h"/>`))
		m.ID, m.RelatesTo, m.To, m.Action = "urn:uuid:2", "urn:uuid:1", "nats:orders", "urn:place"
		m.ReplyTo, m.FaultTo = core.AnonymousAddress, "mailto:faults@example.com"
		return m
	}},
	{name: "fault-sender-subcodes", msg: func(t *testing.T, v core.Version) *core.Message {
		return envMsg(v, core.FaultBody(&core.Fault{Code: core.CodeSender, Reason: "bad token",
			Subcodes: []xml.Name{{Space: "urn:app", Local: "Auth"}, {Space: "urn:app", Local: "Expired"}}}))
	}},
	{name: "fault-receiver-internal", msg: func(t *testing.T, v core.Version) *core.Message {
		return envMsg(v, core.FaultBody(core.FaultOf(errors.New("db down: secret dsn"))))
	}},
	{name: "fault-full", msg: func(t *testing.T, v core.Version) *core.Message {
		return envMsg(v, core.FaultBody(&core.Fault{Code: core.CodeReceiver, Reason: "broken", Lang: "en-GB",
			Translations: []core.Text{{Lang: "de", Text: "kaputt"}, {Lang: "fr", Text: "cassé"}},
			Node:         "urn:node", Role: core.RoleUltimateReceiver,
			Detail: []byte(`<d:why xmlns:d="urn:d">disk <d:n>3</d:n></d:why>`)}))
	}},
	{name: "fault-mustunderstand", msg: func(t *testing.T, v core.Version) *core.Message {
		return envMsg(v, core.FaultBody(&core.Fault{Code: core.CodeMustUnderstand, Reason: "not understood",
			NotUnderstood: []xml.Name{{Space: "urn:h", Local: "sec"}, {Space: "urn:g", Local: "tx"}}}))
	}},
	{name: "fault-versionmismatch", msg: func(t *testing.T, v core.Version) *core.Message {
		return envMsg(v, core.FaultBody(&core.Fault{Code: core.CodeVersionMismatch, Reason: "wrong envelope"}))
	}},
	{name: "fault-dataencodingunknown", msg: func(t *testing.T, v core.Version) *core.Message {
		return envMsg(v, core.FaultBody(&core.Fault{Code: core.CodeDataEncodingUnknown, Reason: "unknown encoding"}))
	}},
	{name: "options", opts: core.WriteOptions{Prefix: "env", XMLDeclaration: true}, msg: func(t *testing.T, v core.Version) *core.Message {
		m := envMsg(v, core.FaultBody(&core.Fault{Code: core.CodeSender, Reason: "r"}), mustBlock(t, `<h:a xmlns:h="urn:h"/>`))
		m.ID = "urn:uuid:3"
		return m
	}},
	{name: "prefix-collisions", opts: core.WriteOptions{Prefix: "h"}, msg: func(t *testing.T, v core.Version) *core.Message {
		b := mustBlock(t, `<h:a xmlns:h="urn:h"><h:b/></h:a>`)
		b.MustUnderstand = true
		m := envMsg(v, core.RawBody([]byte(`<h:Get xmlns:h="urn:m"/>`)), b)
		m.ID = "urn:uuid:4"
		return m
	}},
	{name: "prefix-wsa", opts: core.WriteOptions{Prefix: "wsa"}, msg: func(t *testing.T, v core.Version) *core.Message {
		m := envMsg(v, core.RawBody([]byte(reqBody)))
		m.ID, m.ReplyTo = "urn:uuid:5", core.NoneAddress
		return m
	}},
}

func TestWriteGolden(t *testing.T) {
	for _, v := range versions {
		for _, g := range goldens {
			name := g.name + "-" + strings.ReplaceAll(v.String(), ".", "") + ".xml"
			t.Run(name, func(t *testing.T) {
				var buf bytes.Buffer
				n, err := g.msg(t, v).Write(&buf, g.opts)
				require.NoError(t, err)
				assert.Equal(t, int64(buf.Len()), n)
				path := filepath.Join("testdata", "golden", name)
				if *update {
					require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
					require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
				}
				want, err := os.ReadFile(path)
				require.NoError(t, err, "run go test -run TestWriteGolden -update ./core/ to create it")
				assert.Equal(t, string(want), buf.String())
				// always re-readable, and a fixed point
				m, err := readAll(buf.String(), core.Limits{})
				require.NoError(t, err)
				assert.Equal(t, v, m.Version())
				checkRoundTrip(t, buf.Bytes(), core.Limits{}, g.opts)
			})
		}
	}
}

func TestWriteHeaderFieldsWin(t *testing.T) {
	raw := `<h:a xmlns:h="urn:h" xmlns:e="` + core.NamespaceV11 + `" e:actor="` + core.RoleNextV11 + `" e:mustUnderstand="1">v</h:a>`
	b := mustBlock(t, raw)
	assert.Equal(t, core.RoleNextV11, b.Role)
	assert.True(t, b.MustUnderstand)

	write := func(v core.Version, b core.HeaderBlock) core.HeaderBlock {
		var buf bytes.Buffer
		_, err := envMsg(v, core.Body{}, b).WriteTo(&buf)
		require.NoError(t, err)
		m, err := readAll(buf.String(), core.Limits{})
		require.NoError(t, err, buf.String())
		require.Len(t, m.Envelope.Headers, 1)
		return m.Envelope.Headers[0]
	}
	var buf bytes.Buffer
	_, err := envMsg(core.V11, core.Body{}, b).WriteTo(&buf)
	require.NoError(t, err)
	assert.Contains(t, buf.String(), raw, "unchanged fields: the block is written verbatim")

	got := write(core.V12, b)
	assert.Equal(t, core.RoleNextV11, got.Role, "moved into 1.2, the SOAP attributes are rewritten in 1.2")
	assert.True(t, got.MustUnderstand)
	assert.Contains(t, string(got.XML), `mustUnderstand="true"`)
	assert.NotContains(t, string(got.XML), "e:mustUnderstand")
	assert.NotContains(t, string(got.XML), "actor=")

	b.MustUnderstand, b.Role, b.EncodingStyle = false, "", core.EncodingStyleV11
	got = write(core.V11, b)
	assert.False(t, got.MustUnderstand)
	assert.Empty(t, got.Role)
	assert.Equal(t, core.EncodingStyleV11, got.EncodingStyle)
	assert.NotContains(t, string(got.XML), "mustUnderstand")

	b.Relay = true
	assert.False(t, write(core.V11, b).Relay, "1.1 has no relay")
	assert.True(t, write(core.V12, b).Relay)

	_, err = envMsg(core.V11, core.Body{}, core.HeaderBlock{Name: xml.Name{Local: "bare"}}).WriteTo(&buf)
	assert.ErrorContains(t, err, "not namespace-qualified")
}

func TestWriteEscaping(t *testing.T) {
	const nasty = "a & b < c > d \" e ' f \r g \n h \t i ]]> j"
	for _, v := range versions {
		f := &core.Fault{Code: core.CodeSender, Reason: nasty + " \x01 k \xff l \uFFFE m", Node: nasty}
		block := core.HeaderBlock{Name: xml.Name{Space: "urn:h", Local: "a"}, Role: nasty, MustUnderstand: true}
		var buf bytes.Buffer
		_, err := envMsg(v, core.FaultBody(f), block).WriteTo(&buf)
		require.NoError(t, err)
		out := buf.String()
		for _, esc := range []string{"&amp;", "&lt;", "&gt;", "&#xD;", "&quot;", "&#xA;", "&#x9;", "]]&gt;"} {
			assert.Contains(t, out, esc)
		}
		assert.NotContains(t, out, "\x01")
		assert.NotContains(t, out, "\r")
		m, err := readAll(out, core.Limits{})
		require.NoError(t, err, out)
		got := m.Fault()
		require.NotNil(t, got)
		assert.Equal(t, nasty+" \uFFFD k \uFFFD l \uFFFD m", got.Reason, "illegal characters become U+FFFD")
		assert.Equal(t, nasty, got.Node)
		require.Len(t, m.Envelope.Headers, 1)
		assert.Equal(t, nasty, m.Envelope.Headers[0].Role, "attribute values keep \\r \\n \\t")
	}
}

func TestWriteEnvelopeDefaults(t *testing.T) {
	var buf bytes.Buffer
	_, err := (&core.Envelope{Body: core.RawBody([]byte(reqBody))}).WriteTo(&buf)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(buf.String(), `<soap:Envelope xmlns:soap="`+core.NamespaceV11+`">`), "the zero Version writes 1.1 with the soap prefix")
	assert.Equal(t, core.V11, core.VersionOf(core.NamespaceV11))
	assert.Equal(t, core.V12, core.VersionOf(core.NamespaceV12))
	assert.Equal(t, core.Version(0), core.VersionOf("urn:x"))
	assert.Equal(t, "text/xml", core.V11.MediaType())
	assert.Equal(t, "application/soap+xml", core.V12.MediaType())
	assert.Equal(t, "unknown", core.Version(0).String())
}

type failWriter struct{ after int }

var errDisk = errors.New("disk full")

func (w *failWriter) Write(p []byte) (int, error) {
	if w.after <= 0 {
		return 0, errDisk
	}
	w.after--
	return len(p), nil
}

func TestWriteErrorsPropagate(t *testing.T) {
	big := core.RawBody([]byte(`<a xmlns="urn:a">` + strings.Repeat("x", 20000) + `</a>`))
	for _, after := range []int{0, 1, 2} {
		_, err := envMsg(core.V12, big).WriteTo(&failWriter{after: after})
		assert.ErrorIs(t, err, errDisk)
	}
}

// TestStreamBodyWriterAfterReturn: the writer a StreamBody's func gets is
// the envelope's only while the func runs; kept and used afterwards (while
// the recycled writer serves another envelope) it writes nothing and
// fails.
func TestStreamBodyWriterAfterReturn(t *testing.T) {
	var kept io.Writer
	m := core.NewMessage(core.V11, core.StreamBody(xml.Name{Local: "a"}, func(w io.Writer) error {
		kept = w
		_, err := io.WriteString(w, "<a/>")
		return err
	}))
	var first bytes.Buffer
	_, err := m.WriteTo(&first)
	require.NoError(t, err)
	require.Contains(t, first.String(), "<a/>")

	var second bytes.Buffer
	other := core.NewMessage(core.V11, core.StreamBody(xml.Name{Local: "b"}, func(w io.Writer) error {
		n, err := io.WriteString(kept, "<leak/>")
		assert.Zero(t, n)
		assert.Error(t, err)
		_, err = io.WriteString(w, "<b/>")
		return err
	}))
	_, err = other.WriteTo(&second)
	require.NoError(t, err)
	assert.NotContains(t, second.String(), "leak")
	assert.Contains(t, second.String(), "<b/>")
}
