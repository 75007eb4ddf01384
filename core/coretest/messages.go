package coretest

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
)

// Namespace is the namespace of the elements the suites send.
const Namespace = "urn:soapwire:coretest"

// body returns the XML of a body element <t:local>text</t:local>.
func body(local, text string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, `<t:%s xmlns:t="%s">`, local, Namespace)
	xml.EscapeText(&b, []byte(text))
	fmt.Fprintf(&b, `</t:%s>`, local)
	return b.Bytes()
}

// bodyText returns the text of the body element.
func bodyText(t *testing.T, m *core.Message) string {
	t.Helper()
	var v struct {
		XMLName xml.Name
		Text    string `xml:",chardata"`
	}
	require.NoError(t, m.Body().Decode(&v), "decode the body")
	require.Equal(t, Namespace, v.XMLName.Space, "body element namespace")
	return v.Text
}

// bodyBytes returns the body's children as written by Body.WriteTo.
func bodyBytes(t *testing.T, m *core.Message) []byte {
	t.Helper()
	var b bytes.Buffer
	_, err := m.Body().WriteTo(&b)
	require.NoError(t, err, "read the body")
	return b.Bytes()
}

// block returns a header block of the suite's namespace with the given
// attributes.
func block(t *testing.T, local, text, role string, mustUnderstand, relay bool) core.HeaderBlock {
	t.Helper()
	b, err := core.ParseHeaderBlock(body(local, text))
	require.NoError(t, err)
	b.Role, b.MustUnderstand, b.Relay = role, mustUnderstand, relay
	return b
}

// headers is the set of header blocks the suites send in v.
func headers(t *testing.T, v core.Version) []core.HeaderBlock {
	role := core.RoleNext
	if v == core.V11 {
		role = core.RoleNextV11
	}
	hs := []core.HeaderBlock{
		block(t, "Trace", "trace-1", "", true, false),
		block(t, "Hop", "hop & <more>", role, false, false),
		block(t, "Custom", "custom-role", "urn:soapwire:coretest:role", true, false),
	}
	if v == core.V12 {
		hs = append(hs, block(t, "Relayed", "relay-me", role, false, true))
	}
	return hs
}

// requireHeaders checks that got holds want's blocks, in order, with their
// names, SOAP attributes and content intact.
func requireHeaders(t *testing.T, want, got []core.HeaderBlock) {
	t.Helper()
	require.Len(t, got, len(want), "header blocks")
	for i := range want {
		w, g := want[i], got[i]
		assert.Equal(t, w.Name, g.Name, "header block %d name", i)
		assert.Equal(t, w.Role, g.Role, "header block %s role", w.Name.Local)
		assert.Equal(t, w.MustUnderstand, g.MustUnderstand, "header block %s mustUnderstand", w.Name.Local)
		assert.Equal(t, w.Relay, g.Relay, "header block %s relay", w.Name.Local)
		var wv, gv struct {
			Text string `xml:",chardata"`
		}
		require.NoError(t, xml.Unmarshal(bodyOf(w), &wv))
		require.NoError(t, g.Decode(&gv), "decode header block %s", w.Name.Local)
		assert.Equal(t, wv.Text, gv.Text, "header block %s content", w.Name.Local)
	}
}

func bodyOf(b core.HeaderBlock) []byte { return b.XML }

// message returns a message of version v with every field the suites check.
func message(t *testing.T, v core.Version, local, text string) *core.Message {
	m := core.NewMessage(v, core.RawBody(body(local, text)))
	m.Action = Namespace + "/" + local
	m.ID = core.NewMessageID()
	m.RelatesTo = core.NewMessageID()
	m.ReplyTo = "mailto:replies@example.org"
	m.FaultTo = "nats:coretest.faults"
	m.Envelope.Headers = headers(t, v)
	return m
}

// snapshot copies what the suite checks of m, before a binding can change
// it.
func snapshot(m *core.Message) *core.Message {
	c := *m
	env := *m.Envelope
	env.Headers = slices.Clone(env.Headers)
	c.Envelope = &env
	return &c
}

// requireSame checks that got carries what want carried.
func requireSame(t *testing.T, want, got *core.Message, wantBody []byte) {
	t.Helper()
	require.NotNil(t, got, "message")
	require.NotNil(t, got.Envelope, "envelope")
	assert.Equal(t, want.Version(), got.Version(), "version")
	assert.Equal(t, want.Action, got.Action, "Action")
	assert.Equal(t, want.ID, got.ID, "ID")
	assert.Equal(t, want.RelatesTo, got.RelatesTo, "RelatesTo")
	assert.Equal(t, want.ReplyTo, got.ReplyTo, "ReplyTo")
	assert.Equal(t, want.FaultTo, got.FaultTo, "FaultTo")
	if want.To != "" {
		assert.Equal(t, want.To, got.To, "To")
	}
	requireHeaders(t, want.Envelope.Headers, got.Envelope.Headers)
	requireSameXML(t, wantBody, bodyBytes(t, got), "body")
}

// ctx returns a context bounded by the suite's timeout.
func (f Features) ctx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), f.timeout())
	t.Cleanup(cancel)
	return ctx
}

// receive waits for the next delivery.
func (f Features) receive(t *testing.T, r core.Receiver) core.Delivery {
	t.Helper()
	d, err := r.Receive(f.ctx(t))
	require.NoError(t, err, "no message within %s", f.timeout())
	require.NotNil(t, d, "Receive returned a nil Delivery and no error")
	return d
}

// versionName names a subtest after a version.
func versionName(v core.Version) string { return "SOAP" + strings.ReplaceAll(v.String(), ".", "") }

// large returns a body element with n bytes of text in it (about n+70 in all).
func large(n int) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, `<t:Blob xmlns:t="%s">`, Namespace)
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	for i := 0; i < n; i++ {
		b.WriteByte(alphabet[(i*7+i/len(alphabet))%len(alphabet)])
	}
	b.WriteString(`</t:Blob>`)
	return b.Bytes()
}

// canonical returns XML in a form that ignores what namespace-complete
// copying may change: prefixes, namespace declarations, attribute order and
// whitespace-only text between elements.
func canonical(raw []byte) (string, error) {
	d := xml.NewDecoder(bytes.NewReader(raw))
	var b strings.Builder
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return b.String(), nil
		}
		if err != nil {
			return b.String(), err
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			fmt.Fprintf(&b, "<{%s}%s", tok.Name.Space, tok.Name.Local)
			attrs := make([]string, 0, len(tok.Attr))
			for _, a := range tok.Attr {
				if a.Name.Space == "xmlns" || a.Name.Space == "" && a.Name.Local == "xmlns" {
					continue
				}
				attrs = append(attrs, fmt.Sprintf(" {%s}%s=%q", a.Name.Space, a.Name.Local, a.Value))
			}
			slices.Sort(attrs)
			b.WriteString(strings.Join(attrs, ""))
			b.WriteString(">")
		case xml.EndElement:
			fmt.Fprintf(&b, "</{%s}%s>", tok.Name.Space, tok.Name.Local)
		case xml.CharData:
			if len(bytes.TrimSpace(tok)) > 0 {
				xml.EscapeText(&b, tok)
			}
		}
	}
}

// requireSameXML checks that got is want, up to namespace declarations and
// prefixes.
func requireSameXML(t *testing.T, want, got []byte, what string) {
	t.Helper()
	w, err := canonical(want)
	require.NoError(t, err, "%s: the suite's own XML", what)
	g, err := canonical(got)
	require.NoError(t, err, "%s: not well-formed: %.200q", what, got)
	if len(w) > 1024 {
		require.Equal(t, len(w), len(g), "%s: length", what)
		require.True(t, w == g, "%s: changed on the way", what)
		return
	}
	require.Equal(t, w, g, what)
}
