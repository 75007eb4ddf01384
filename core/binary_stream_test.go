package core_test

import (
	"encoding/xml"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
)

// decodeBinaryAt reads m's body to the start tag of p:data and takes its
// value with Body.DecodeBinary.
func decodeBinaryAt(t *testing.T, m *core.Message) (core.Binary, error) {
	t.Helper()
	for {
		tok, err := m.Body().Next()
		require.NoError(t, err)
		if tok.Kind == core.StartElement && string(tok.Name.Local) == "data" {
			return m.Body().DecodeBinary()
		}
	}
}

// TestBodyDecodeBinary: Body.DecodeBinary takes an MTOM message's
// xop:Include as its part itself (the same *Attachment, not read), decodes
// inline base64 (white space allowed), and the body reads on after the
// element; it refuses an element inside, bad base64, and an Include in a
// message that is not MTOM, with a Sender fault.
func TestBodyDecodeBinary(t *testing.T) {
	data := []byte(strings.Repeat("part bytes ", 500))
	m, err := xoRead(t, xoEnvelope(xoInclude("cid:img@x")+`<p:after/>`), data, core.Limits{})
	require.NoError(t, err)
	defer m.Close()
	b, err := decodeBinaryAt(t, m)
	require.NoError(t, err)
	assert.Same(t, m.Attachment("img@x"), b.Attachment(), "the part itself")
	rc, err := b.Open()
	require.NoError(t, err)
	got, _ := io.ReadAll(rc)
	rc.Close()
	assert.Equal(t, data, got)
	tok, err := m.Body().Next()
	require.NoError(t, err)
	assert.Equal(t, "after", string(tok.Name.Local), "the body reads on")

	m, err = core.ReadMessage(strings.NewReader(xoEnvelope("<p:data>aGVs\n bG8=</p:data>")), core.Limits{})
	require.NoError(t, err)
	b, err = decodeBinaryAt(t, m)
	require.NoError(t, err)
	rc, err = b.Open()
	require.NoError(t, err)
	got, _ = io.ReadAll(rc)
	rc.Close()
	assert.Equal(t, "hello", string(got))

	for _, bad := range []struct{ in, want string }{
		{"<p:data><p:x/></p:data>", "element x inside a base64Binary value"},
		{"<p:data>a*b=</p:data>", "not base64"},
		{xoInclude("cid:img@x"), "not an XOP package"},
	} {
		m, err := core.ReadMessage(strings.NewReader(xoEnvelope(bad.in)), core.Limits{})
		require.NoError(t, err)
		_, err = decodeBinaryAt(t, m)
		var f *core.Fault
		require.True(t, errors.As(err, &f), "%s: %v", bad.in, err)
		assert.Equal(t, core.CodeSender, f.Code)
		assert.Contains(t, f.Reason, bad.want)
	}
}

// TestNewBinary: NewBinary stands for an attachment outside any message:
// encoding/xml writes it inline; nil gives the zero Binary.
func TestNewBinary(t *testing.T) {
	type v struct {
		XMLName xml.Name    `xml:"v"`
		Doc     core.Binary `xml:"doc"`
	}
	out, err := xml.Marshal(v{Doc: core.NewBinary(core.BytesAttachment("text/plain", []byte("hi")))})
	require.NoError(t, err)
	assert.Equal(t, "<v><doc>aGk=</doc></v>", string(out))
	assert.Nil(t, core.NewBinary(nil).Attachment())
}
