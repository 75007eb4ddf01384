package interop_test

import (
	"bytes"
	"context"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soaphttp "github.com/soapwire/soapwire/bindings/http"
	"github.com/soapwire/soapwire/core"
	swa "github.com/soapwire/soapwire/internal/interop/genswa"
)

// swaImpl implements gen/testdata/swa.wsdl's port type: Archive reads the
// scan and returns a copy of its bytes as the thumbnail (without a type:
// the binding's image/png), or none when the title is "no thumb".
type swaImpl struct {
	mu   sync.Mutex
	scan []byte
	id   string
	typ  string
}

func (i *swaImpl) Archive(_ context.Context, in *swa.Archive, scan *core.Attachment) (*swa.Archived, *core.Attachment, error) {
	r, err := scan.Open()
	if err != nil {
		return nil, nil, err
	}
	defer r.Close()
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, nil, err
	}
	i.mu.Lock()
	i.scan, i.id, i.typ = data, scan.ID, scan.Type
	i.mu.Unlock()
	if in.Title == "no thumb" {
		return &swa.Archived{Id: in.Title}, nil, nil
	}
	return &swa.Archived{Id: in.Title, Size: int64(len(data))}, core.BytesAttachment("", bytes.Clone(data)), nil
}

func (i *swaImpl) Ping(_ context.Context, in *string) (*string, error) {
	s := "pong " + *in
	return &s, nil
}

// wire records the requests a server got: Content-Type and body.
type wire struct {
	mu   sync.Mutex
	ct   string
	body []byte
}

func (w *wire) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(rw, err.Error(), http.StatusBadRequest)
			return
		}
		w.mu.Lock()
		w.ct, w.body = r.Header.Get("Content-Type"), b
		w.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(b))
		h.ServeHTTP(rw, r)
	})
}

// TestGeneratedSwA: gen/testdata/swa.wsdl's Archive, whose binding carries the
// input's "scan" and the output's "thumb" as MIME parts, is generated with
// them as *core.Attachment argument and result; the generated client sends
// a 1 MiB scan to the generated server over bindings/http as SOAP with
// Attachments (multipart/related, a text/xml root, the part's Content-ID
// <scan=...@...> as the WS-I Attachments Profile has it, its type the
// binding's), the implementation gets the bytes, and the thumbnail comes
// back the same way (type image/png from the binding, ID <thumb=...>). A
// request without the part is a Sender fault naming it; a part whose
// Content-ID names none is taken by its place; a nil part is refused
// before sending; an implementation that returns no thumbnail fails.
func TestGeneratedSwA(t *testing.T) {
	impl := &swaImpl{}
	w := &wire{}
	srv := httptest.NewServer(w.wrap(soaphttp.NewHandler(swa.NewArchiverServer(impl))))
	t.Cleanup(srv.Close)
	tr := soaphttp.NewTransport(srv.URL)
	t.Cleanup(tr.CloseIdleConnections)
	c := swa.NewArchiverPortClient(tr)
	ctx := t.Context()

	scan := make([]byte, 1<<20)
	for i := range scan {
		scan[i] = byte(i*7 + i>>11)
	}
	out, thumb, err := c.Archive(ctx, &swa.Archive{Title: "deed"}, core.BytesAttachment("", scan))
	require.NoError(t, err)
	assert.Equal(t, "deed", out.Id)
	assert.Equal(t, int64(len(scan)), out.Size)
	assert.True(t, bytes.Equal(scan, impl.scan), "the server got the scan's bytes")
	assert.True(t, strings.HasPrefix(impl.id, "scan="), "Content-ID %q", impl.id)
	assert.Equal(t, "application/pdf", impl.typ, "the binding's type")
	require.NotNil(t, thumb)
	assert.True(t, strings.HasPrefix(thumb.ID, "thumb="), "Content-ID %q", thumb.ID)
	assert.Equal(t, "image/png", thumb.Type)
	r, err := thumb.Open()
	require.NoError(t, err)
	got, err := io.ReadAll(r)
	require.NoError(t, err)
	require.NoError(t, r.Close())
	assert.True(t, bytes.Equal(scan, got), "the thumbnail's bytes")

	// the wire: multipart/related, a text/xml root, the part named
	mt, params, err := mime.ParseMediaType(w.ct)
	require.NoError(t, err)
	assert.Equal(t, "multipart/related", mt)
	assert.Equal(t, "text/xml", params["type"])
	mr := multipart.NewReader(bytes.NewReader(w.body), params["boundary"])
	root, err := mr.NextPart()
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(root.Header.Get("Content-Type"), "text/xml"), root.Header.Get("Content-Type"))
	env, err := io.ReadAll(root)
	require.NoError(t, err)
	assert.Contains(t, string(env), "title>deed</")
	part, err := mr.NextPart()
	require.NoError(t, err)
	assert.Regexp(t, `^<scan=[0-9a-f]{32}@soapwire>$`, part.Header.Get("Content-Id"))
	assert.Equal(t, "application/pdf", part.Header.Get("Content-Type"))
	data, err := io.ReadAll(part)
	require.NoError(t, err)
	assert.True(t, bytes.Equal(scan, data))
	_, err = mr.NextPart()
	assert.ErrorIs(t, err, io.EOF, "one attachment")

	// a part whose Content-ID names no part: taken by its place
	m := core.NewMessage(core.V11, core.RawBody([]byte(`<Archive xmlns="urn:example:swa"><title>by place</title></Archive>`)))
	m.Action = "urn:example:swa:Archive"
	m.Packaging = core.SwA
	m.Attachments = []*core.Attachment{core.BytesAttachment("application/pdf", []byte("%PDF-1.7"))}
	reply, err := tr.RoundTrip(ctx, m)
	require.NoError(t, err)
	require.NoError(t, reply.Close())
	assert.Equal(t, "%PDF-1.7", string(impl.scan))

	// no part: a Sender fault naming it, the implementation not called
	impl.scan = nil
	m = core.NewMessage(core.V11, core.RawBody([]byte(`<Archive xmlns="urn:example:swa"><title>none</title></Archive>`)))
	m.Action = "urn:example:swa:Archive"
	_, err = tr.RoundTrip(ctx, m)
	var f *core.Fault
	require.ErrorAs(t, err, &f)
	assert.Equal(t, core.CodeSender, f.Code)
	assert.Contains(t, f.Reason, "the MIME part scan is missing")
	assert.Nil(t, impl.scan)

	// a nil part: refused before sending
	before := w.body
	_, _, err = c.Archive(ctx, &swa.Archive{Title: "x"}, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the MIME part scan of the request is missing")
	assert.Equal(t, before, w.body, "nothing sent")

	// an implementation returning no thumbnail: a Receiver fault
	_, _, err = c.Archive(ctx, &swa.Archive{Title: "no thumb"}, core.BytesAttachment("", []byte("x")))
	require.ErrorAs(t, err, &f)
	assert.Equal(t, core.CodeReceiver, f.Code)

	// the operation without parts is a plain envelope
	in := "hello"
	pong, err := c.Ping(ctx, &in)
	require.NoError(t, err)
	assert.Equal(t, "pong hello", *pong)
	assert.True(t, strings.HasPrefix(w.ct, "text/xml"), w.ct)
}
