package wsdl_test

import (
	"context"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/coretest"
	"github.com/soapwire/soapwire/core/wsdl"
	"github.com/soapwire/soapwire/core/xsd"
)

// TestStubCallParts: CallParts sends its parts in an SwA package with
// Content-IDs naming them (the Attachments Profile's form, the name
// %-escaped) and the binding's type where the attachment has none, without
// changing the caller's attachment; it finds the reply's parts by name,
// else by place, and a reply without one is a *ReplyError naming it.
func TestStubCallParts(t *testing.T) {
	assert.Regexp(t, `^scan=[0-9a-f]{32}@soapwire$`, wsdl.PartContentID("scan"))
	assert.Regexp(t, `^a%20b=`, wsdl.PartContentID("a b"))

	var got *core.Message
	reply := func(parts ...*core.Attachment) core.Handler {
		return core.HandlerFunc(func(_ context.Context, m *core.Message) (*core.Message, error) {
			got = m
			r := m.Reply(core.RawBody([]byte(`<ok xmlns="urn:t"/>`)))
			r.Packaging = core.SwA
			r.Attachments = parts
			return r, nil
		})
	}
	op := &wsdl.StubOperation{Name: "Put"}
	write := func(e *xsd.Encoder) error { e.Start("urn:t", "put"); e.End(); return nil }
	read := func(d *xsd.Decoder) error { return d.Skip("urn:t", "ok") }
	named := core.BytesAttachment("image/png", []byte("png"))
	named.ID = wsdl.PartContentID("thumb")
	mine := core.BytesAttachment("", []byte("scan bytes"))
	id := mine.ID

	// by name (the named part second), then by place
	plain := core.BytesAttachment("text/plain", []byte("note"))
	s := wsdl.NewStub(coretest.NewPipe(coretest.WithHandler(reply(plain, named))), core.V11, "")
	out := []wsdl.StubPart{{Name: "note"}, {Name: "thumb"}}
	require.NoError(t, s.CallParts(t.Context(), op, write, nil, []wsdl.StubPart{{Name: "scan", Type: "application/pdf", Attachment: mine}}, read, nil, out))
	assert.Equal(t, core.SwA, got.Packaging)
	require.Len(t, got.Attachments, 1)
	assert.Regexp(t, `^scan=[0-9a-f]{32}@soapwire$`, got.Attachments[0].ID)
	assert.Equal(t, "application/pdf", got.Attachments[0].Type)
	assert.Equal(t, id, mine.ID, "the caller's attachment is not changed")
	assert.Empty(t, mine.Type)
	for i, want := range []string{"note", "png"} {
		r, err := out[i].Attachment.Open()
		require.NoError(t, err)
		b, _ := io.ReadAll(r)
		r.Close()
		assert.Equal(t, want, string(b))
	}

	// missing: the only attachment names another part
	s = wsdl.NewStub(coretest.NewPipe(coretest.WithHandler(reply(named))), core.V11, "")
	out = []wsdl.StubPart{{Name: "note"}}
	err := s.CallParts(t.Context(), op, write, nil, nil, read, nil, out)
	var re *wsdl.ReplyError
	require.ErrorAs(t, err, &re)
	assert.Contains(t, err.Error(), "the MIME part note is missing")

	// a nil request part: refused before sending
	got = nil
	err = s.CallParts(t.Context(), op, write, nil, []wsdl.StubPart{{Name: "scan"}}, read, nil, nil)
	assert.ErrorContains(t, err, "the MIME part scan of the request is missing")
	assert.Nil(t, got)
}
