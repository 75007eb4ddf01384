package interop_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soaphttp "github.com/soapwire/soapwire/bindings/http"
	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/wsdl"
	"github.com/soapwire/soapwire/core/xsd"
	"github.com/soapwire/soapwire/internal/interop/genmtom/mtomdocs"
)

// mtomDocsImpl is the generated server's implementation: it reads the
// document, notes the Content-ID of the value it got (a part's own, or a
// fresh one for inline base64) and answers a copy of it.
type mtomDocsImpl struct {
	mu  sync.Mutex
	ids []string
}

func (d *mtomDocsImpl) Store(ctx context.Context, in *mtomdocs.Store) (*mtomdocs.StoreResponse, error) {
	rc, err := in.Doc.Open()
	if err != nil {
		return nil, err
	}
	n, err := io.Copy(io.Discard, rc)
	rc.Close()
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	d.ids = append(d.ids, in.Doc.Attachment().ID)
	d.mu.Unlock()
	return &mtomdocs.StoreResponse{Size: n, Copy: xsd.Some(core.NewBinary(in.Doc.Attachment()))}, nil
}

// mtomWire is what went over HTTP: the request's and the reply's Content-Type
// and bytes.
type mtomWire struct {
	reqType, replyType string
	req, reply         []byte
}

// mtomTap records the exchanges of an HTTP client.
type mtomTap struct {
	mu  sync.Mutex
	got []mtomWire
}

func (t *mtomTap) RoundTrip(r *http.Request) (*http.Response, error) {
	req, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, err
	}
	r.Body = io.NopCloser(bytes.NewReader(req))
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	reply, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(reply))
	t.mu.Lock()
	t.got = append(t.got, mtomWire{r.Header.Get("Content-Type"), resp.Header.Get("Content-Type"), req, reply})
	t.mu.Unlock()
	return resp, nil
}

func (t *mtomTap) last() mtomWire {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.got[len(t.got)-1]
}

// mtomDocBytes is a 1 MiB document whose every 3-byte group differs from its
// neighbours', so its base64 has no long repeats to be found by chance.
func mtomDocBytes() []byte {
	b := make([]byte, 1<<20)
	for i := range b {
		b[i] = byte(i*7 + i>>8 + i>>16)
	}
	return b
}

func mtomReadAll(t *testing.T, b core.Binary) []byte {
	t.Helper()
	rc, err := b.Open()
	require.NoError(t, err)
	defer rc.Close()
	data, err := io.ReadAll(rc)
	require.NoError(t, err)
	return data
}

// mtomAssertPackage checks that a message went as an MTOM package carrying doc as
// a part: multipart/related of XOP, an xop:Include in the root, no base64
// of doc anywhere, doc's bytes as they are.
func mtomAssertPackage(t *testing.T, contentType string, body, doc []byte) {
	t.Helper()
	mt, params, err := mime.ParseMediaType(contentType)
	require.NoError(t, err)
	assert.Equal(t, "multipart/related", mt)
	assert.Equal(t, "application/xop+xml", params["type"])
	assert.Contains(t, string(body), "Include xmlns:")
	assert.Contains(t, string(body), `href="cid:`)
	assert.True(t, bytes.Contains(body, doc), "the document's bytes travel as they are")
	assert.False(t, bytes.Contains(body, []byte(base64.StdEncoding.EncodeToString(doc[:3<<10]))), "no base64 of the document")
	assert.Less(t, len(body), len(doc)+4<<10, "the package is the document and little more")
}

// mtomAssertInline checks that a message went as a plain envelope with doc in
// base64.
func mtomAssertInline(t *testing.T, contentType string, body, doc []byte) {
	t.Helper()
	mt, _, err := mime.ParseMediaType(contentType)
	require.NoError(t, err)
	assert.Equal(t, "text/xml", mt)
	assert.NotContains(t, string(body), "Include")
	assert.True(t, bytes.Contains(body, []byte(base64.StdEncoding.EncodeToString(doc))), "the document in base64")
}

// TestGeneratedMTOMRoundTrip: a client soapwire gen made of a port whose
// WS-Policy requires MTOM (wsp:PolicyReference to
// wsoma:OptimizedMimeSerialization) sends a 1 MiB core.Binary (an element
// with xmime:expectedContentTypes) to the generated server over
// bindings/http as an MTOM part: multipart/related of XOP, an xop:Include
// in the root, no base64 of it; the server gets the part itself (its
// Content-ID, not a copy) and answers in MTOM with the same bytes. The port
// without the policy, and the MTOM port with wsdl.WithPackaging(core.Inline),
// send it inline in base64 and are answered inline.
func TestGeneratedMTOMRoundTrip(t *testing.T) {
	impl := &mtomDocsImpl{}
	srv := httptest.NewServer(soaphttp.NewHandler(mtomdocs.NewDocsServer(impl)))
	t.Cleanup(srv.Close)
	tp := &mtomTap{}
	rt := soaphttp.NewTransport(srv.URL, soaphttp.WithClient(&http.Client{Transport: tp}))
	doc := mtomDocBytes()
	thumb := []byte("\x89PNG small")

	call := func(t *testing.T, store func(context.Context, *mtomdocs.Store, ...wsdl.CallOption) (*mtomdocs.StoreResponse, error)) *mtomdocs.StoreResponse {
		t.Helper()
		th := core.NewBinary(core.BytesAttachment("image/png", thumb))
		th.ContentType = "image/png"
		out, err := store(t.Context(), &mtomdocs.Store{Name: "scan.pdf", Doc: core.NewBinary(core.BytesAttachment("application/pdf", doc)),
			Thumb: &th, Checksum: []byte{1, 2, 3}})
		require.NoError(t, err)
		assert.Equal(t, int64(len(doc)), out.Size)
		require.False(t, out.Copy.Nil)
		assert.True(t, bytes.Equal(doc, mtomReadAll(t, out.Copy.Value)), "the copy comes back intact")
		return out
	}

	t.Run("MTOM", func(t *testing.T) {
		c := mtomdocs.NewDocsMTOMClient(rt)
		call(t, c.Store)
		w := tp.last()
		mtomAssertPackage(t, w.reqType, w.req, doc)
		assert.Contains(t, string(w.req), "Content-ID: <"+impl.ids[len(impl.ids)-1]+">", "the server's value is the part itself")
		assert.Contains(t, string(w.req), `contentType="image/png"`, "xmime:contentType written")
		mtomAssertPackage(t, w.replyType, w.reply, doc)
	})
	t.Run("NoPolicy", func(t *testing.T) {
		c := mtomdocs.NewDocsPlainClient(rt)
		call(t, c.Store)
		w := tp.last()
		mtomAssertInline(t, w.reqType, w.req, doc)
		mtomAssertInline(t, w.replyType, w.reply, doc)
	})
	t.Run("Override", func(t *testing.T) {
		c := mtomdocs.NewDocsMTOMClient(rt, wsdl.WithPackaging(core.Inline))
		call(t, c.Store)
		w := tp.last()
		mtomAssertInline(t, w.reqType, w.req, doc)
		mtomAssertInline(t, w.replyType, w.reply, doc)
	})
	t.Run("PerCall", func(t *testing.T) {
		c := mtomdocs.NewDocsPlainClient(rt)
		call(t, func(ctx context.Context, in *mtomdocs.Store, opts ...wsdl.CallOption) (*mtomdocs.StoreResponse, error) {
			return c.Store(ctx, in, wsdl.WithPackaging(core.MTOM))
		})
		w := tp.last()
		mtomAssertPackage(t, w.reqType, w.req, doc)
		mtomAssertPackage(t, w.replyType, w.reply, doc)
	})
}
