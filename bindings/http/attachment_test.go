package http_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soaphttp "github.com/soapwire/soapwire/bindings/http"
	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/coretest"
)

// Attachments over HTTP: MIME packages (MTOM/XOP, SwA) in both directions,
// both versions, and the refusals. Names start with att.

// attData is n bytes of a pattern that shows a shifted or cut copy.
func attData(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + i/251)
	}
	return b
}

func attDigest(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// attSeen is what attEcho saw of a request.
type attSeen struct {
	mu          sync.Mutex
	packaging   core.Packaging
	version     core.Version
	action      string
	contentType string // the request's Content-Type header
	soapAction  string
	parts       []string // "type size digest"
}

// attEcho answers each request with its attachments, in reverse order,
// named by a body that lists their Content-IDs.
func attEcho(seen *attSeen) core.Handler {
	return core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		r, _ := soaphttp.RequestFromContext(ctx)
		seen.mu.Lock()
		seen.packaging, seen.version, seen.action = m.Packaging, m.Version(), m.Action
		seen.contentType, seen.soapAction = r.Header.Get("Content-Type"), r.Header.Get("SOAPAction")
		seen.parts = nil
		var body strings.Builder
		body.WriteString(`<t:echoed xmlns:t="` + testNS + `">`)
		reply := m.Reply(core.Body{})
		for i := len(m.Attachments) - 1; i >= 0; i-- {
			a := m.Attachments[i]
			rc, err := a.Open()
			if err != nil {
				seen.mu.Unlock()
				return nil, err
			}
			data, err := io.ReadAll(rc)
			rc.Close()
			if err != nil {
				seen.mu.Unlock()
				return nil, err
			}
			seen.parts = append(seen.parts, fmt.Sprintf("%s %d %s", a.Type, len(data), attDigest(data)))
			// the reply streams the request's part from where it was
			// read (memory or its spool file) until the request is closed
			out := core.NewAttachment(a.Type, a.Open, a.Size())
			reply.Attachments = append(reply.Attachments, out)
			body.WriteString(`<t:part>cid:` + out.ID + `</t:part>`)
		}
		seen.mu.Unlock()
		body.WriteString(`</t:echoed>`)
		reply.Envelope.Body = core.RawBody([]byte(body.String()))
		return reply, nil
	})
}

// attRequest is a request of version v and packaging p carrying parts.
func attRequest(v core.Version, p core.Packaging, parts ...*core.Attachment) *core.Message {
	m := core.NewMessage(v, core.RawBody([]byte(`<t:upload xmlns:t="`+testNS+`"><t:name>invoice.pdf</t:name></t:upload>`)))
	m.Action = "urn:soapwire:test:upload"
	m.Packaging = p
	m.Attachments = parts
	return m
}

// TestAttachmentRoundTrip: a Transport posts a package (MTOM, SwA) in each
// version with a small part and one beyond the spool threshold; NewHandler
// reads it with core.ReadPackage, the handler gets the parts intact, and
// its reply goes back in the request's packaging, read by the Transport.
func TestAttachmentRoundTrip(t *testing.T) {
	small := []byte("%PDF-1.4 a small invoice\r\n--not-a-boundary\r\n")
	large := attData(3<<20 + 17) // spooled on both sides (1 MiB threshold)
	for _, v := range []core.Version{core.V11, core.V12} {
		for _, p := range []core.Packaging{core.MTOM, core.SwA} {
			t.Run(v.String()+"/"+p.String(), func(t *testing.T) {
				seen := &attSeen{}
				spool := t.TempDir()
				srv := serve(t, attEcho(seen), soaphttp.WithLimits(core.Limits{SpoolDir: spool}))
				tr := soaphttp.NewTransport(srv.URL, soaphttp.WithLimits(core.Limits{SpoolDir: spool}))
				t.Cleanup(tr.CloseIdleConnections)
				a1 := core.BytesAttachment("application/pdf", small)
				a2 := core.NewAttachment("application/octet-stream", func() (io.ReadCloser, error) {
					return io.NopCloser(bytes.NewReader(large)), nil
				}, int64(len(large)))
				req := attRequest(v, p, a1, a2)
				reply, err := tr.RoundTrip(t.Context(), req)
				require.NoError(t, err)
				defer reply.Close()

				seen.mu.Lock()
				assert.Equal(t, p, seen.packaging)
				assert.Equal(t, v, seen.version)
				assert.Equal(t, "urn:soapwire:test:upload", seen.action)
				assert.Equal(t, req.ContentType(), seen.contentType, "the request's Content-Type is the package's")
				if v == core.V11 {
					assert.Equal(t, `"urn:soapwire:test:upload"`, seen.soapAction, "1.1 keeps its SOAPAction header")
				} else {
					assert.Empty(t, seen.soapAction, "1.2's action is in the package's Content-Type")
				}
				assert.Equal(t, []string{
					fmt.Sprintf("application/octet-stream %d %s", len(large), attDigest(large)),
					fmt.Sprintf("application/pdf %d %s", len(small), attDigest(small)),
				}, seen.parts, "the handler got both parts intact")
				seen.mu.Unlock()

				assert.Equal(t, p, reply.Packaging, "the reply comes in the request's packaging")
				assert.Equal(t, v, reply.Version())
				mt, params, err := mime.ParseMediaType(reply.Meta[soaphttp.MetaType])
				require.NoError(t, err)
				assert.Equal(t, "multipart/related", mt)
				if p == core.MTOM {
					assert.Equal(t, core.MediaTypeXOP, params["type"])
					assert.Equal(t, v.MediaType(), strings.SplitN(params["start-info"], ";", 2)[0])
				} else {
					assert.Equal(t, v.MediaType(), params["type"])
				}
				require.Len(t, reply.Attachments, 2)
				assert.Equal(t, large, coretest.PartBytes(t, reply.Attachments[0]))
				assert.True(t, reply.Attachments[0].Spooled(), "a 3 MiB part is spooled, not held in memory")
				assert.Equal(t, small, coretest.PartBytes(t, reply.Attachments[1]))
				assert.Equal(t, "application/pdf", reply.Attachments[1].Type)
				var echoed struct {
					Parts []string `xml:"part"`
				}
				require.NoError(t, reply.Body().Decode(&echoed))
				assert.Equal(t, []string{"cid:" + reply.Attachments[0].ID, "cid:" + reply.Attachments[1].ID}, echoed.Parts)

				require.NoError(t, reply.Close())
				ents, err := os.ReadDir(spool)
				require.NoError(t, err)
				assert.Empty(t, ents, "no spool file is left on either side")
			})
		}
	}
}

// TestAttachmentReplyPackaging: a reply goes as a package when it has
// attachments (in the request's packaging) or asks for one (Packaging
// set); a reply without either to a package request is a plain envelope.
func TestAttachmentReplyPackaging(t *testing.T) {
	cases := []struct {
		name      string
		req       core.Packaging
		reply     func(m *core.Message) *core.Message
		want      core.Packaging
		wantParts int
	}{
		{"no attachments to MTOM", core.MTOM, func(m *core.Message) *core.Message {
			return m.Reply(core.RawBody([]byte(`<t:ok xmlns:t="` + testNS + `"/>`)))
		}, core.Inline, 0},
		{"MTOM asked to an inline request", core.Inline, func(m *core.Message) *core.Message {
			r := m.Reply(core.RawBody([]byte(`<t:ok xmlns:t="` + testNS + `"/>`)))
			r.Packaging = core.MTOM
			r.Attachments = []*core.Attachment{core.BytesAttachment("text/plain", []byte("hi"))}
			return r
		}, core.MTOM, 1},
		{"SwA asked to an MTOM request", core.MTOM, func(m *core.Message) *core.Message {
			r := m.Reply(core.RawBody([]byte(`<t:ok xmlns:t="` + testNS + `"/>`)))
			r.Packaging = core.SwA
			r.Attachments = []*core.Attachment{core.BytesAttachment("text/plain", []byte("hi"))}
			return r
		}, core.SwA, 1},
		{"attachments to SwA", core.SwA, func(m *core.Message) *core.Message {
			r := m.Reply(core.RawBody([]byte(`<t:ok xmlns:t="` + testNS + `"/>`)))
			r.Attachments = []*core.Attachment{core.BytesAttachment("text/plain", []byte("hi"))}
			return r
		}, core.SwA, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := serve(t, core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
				return c.reply(m), nil
			}))
			tr := soaphttp.NewTransport(srv.URL)
			t.Cleanup(tr.CloseIdleConnections)
			var parts []*core.Attachment
			if c.req != core.Inline {
				parts = []*core.Attachment{core.BytesAttachment("text/plain", []byte("req"))}
			}
			reply, err := tr.RoundTrip(t.Context(), attRequest(core.V11, c.req, parts...))
			require.NoError(t, err)
			defer reply.Close()
			assert.Equal(t, c.want, reply.Packaging)
			assert.Len(t, reply.Attachments, c.wantParts)
			if c.want == core.Inline {
				assert.Equal(t, "text/xml; charset=utf-8", reply.Meta[soaphttp.MetaType])
			}
		})
	}
}

// TestAttachmentInlineRequestReplyWithAttachments: a handler that answers an
// inline request with attachments and no packaging gets no silent drop:
// the write fails and the client gets a Receiver fault.
func TestAttachmentInlineRequestReplyWithAttachments(t *testing.T) {
	srv := serve(t, core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		r := m.Reply(core.RawBody([]byte(`<t:ok xmlns:t="` + testNS + `"/>`)))
		r.Attachments = []*core.Attachment{core.BytesAttachment("text/plain", []byte("hi"))}
		return r, nil
	}))
	tr := soaphttp.NewTransport(srv.URL)
	t.Cleanup(tr.CloseIdleConnections)
	_, err := tr.RoundTrip(t.Context(), attRequest(core.V12, core.Inline))
	f := core.FaultOf(err)
	require.NotNil(t, f, "%v", err)
	assert.True(t, f.Remote)
	assert.Equal(t, core.CodeReceiver, f.Code)
}

// attPackage builds a package by hand: the root envelope of version v, then
// parts, each "Content-ID|Content-Type|body".
func attPackage(boundary string, v core.Version, rootType, body string, parts ...[3]string) string {
	var b strings.Builder
	b.WriteString("--" + boundary + "\r\nContent-Type: " + rootType + "\r\nContent-ID: <root@x>\r\n\r\n")
	b.WriteString(envelope(v, "", body))
	for _, p := range parts {
		b.WriteString("\r\n--" + boundary + "\r\nContent-ID: <" + p[0] + ">\r\nContent-Type: " + p[1] + "\r\n\r\n" + p[2])
	}
	b.WriteString("\r\n--" + boundary + "--\r\n")
	return b.String()
}

// TestAttachmentServerRefusals: every way a package is refused by
// NewHandler, with its status and fault, in both versions.
func TestAttachmentServerRefusals(t *testing.T) {
	const bnd = "b0undary"
	ok11 := attPackage(bnd, core.V11, `application/xop+xml; type="text/xml"`, echoBody, [3]string{"p1@x", "text/plain", "hello"})
	ok12 := attPackage(bnd, core.V12, `application/xop+xml; type="application/soap+xml"`, echoBody, [3]string{"p1@x", "text/plain", "hello"})
	mtom11 := `multipart/related; type="application/xop+xml"; start="<root@x>"; start-info="text/xml"; boundary="` + bnd + `"`
	mtom12 := `multipart/related; type="application/xop+xml"; start="<root@x>"; start-info="application/soap+xml"; boundary="` + bnd + `"`
	many := func(v core.Version, rootType string, n int) string {
		parts := make([][3]string, n)
		for i := range parts {
			parts[i] = [3]string{fmt.Sprintf("p%d@x", i), "text/plain", "x"}
		}
		return attPackage(bnd, v, rootType, echoBody, parts...)
	}
	big := strings.Repeat("x", 2<<10)
	cases := []struct {
		name    string
		v       core.Version // the version of the fault expected
		ctype   string
		body    string
		limits  core.Limits
		status  int
		code    core.Code
		reason  string // a part of the fault's reason
		plain   bool   // answered with a plain-text body, not a fault
		chunked bool   // sent without Content-Length
	}{
		{name: "1.1 without boundary", v: core.V11, ctype: `multipart/related; type="application/xop+xml"; start-info="text/xml"`, body: ok11,
			status: 400, code: core.CodeSender, reason: "without a boundary"},
		{name: "1.2 without boundary", v: core.V12, ctype: `multipart/related; type="application/xop+xml"; start-info="application/soap+xml"`, body: ok12,
			status: 400, code: core.CodeSender, reason: "without a boundary"},
		{name: "1.1 never closed", v: core.V11, ctype: mtom11, body: strings.TrimSuffix(ok11, "\r\n--"+bnd+"--\r\n"),
			status: 400, code: core.CodeSender, reason: "never closed"},
		{name: "1.2 never closed", v: core.V12, ctype: mtom12, body: strings.TrimSuffix(ok12, "\r\n--"+bnd+"--\r\n"),
			status: 400, code: core.CodeSender, reason: "never closed"},
		{name: "1.1 too many parts", v: core.V11, ctype: mtom11, body: many(core.V11, `application/xop+xml; type="text/xml"`, 5),
			limits: core.Limits{MaxParts: 4}, status: 500, code: core.CodeSender, reason: "more than 4 parts"},
		{name: "1.2 too many parts", v: core.V12, ctype: mtom12, body: many(core.V12, `application/xop+xml; type="application/soap+xml"`, 5),
			limits: core.Limits{MaxParts: 4}, status: 400, code: core.CodeSender, reason: "more than 4 parts"},
		{name: "1.1 part too large", v: core.V11, ctype: mtom11, body: attPackage(bnd, core.V11, `application/xop+xml; type="text/xml"`, echoBody, [3]string{"p1@x", "text/plain", big}),
			limits: core.Limits{MaxPartBytes: 1 << 10}, status: 413, code: core.CodeSender, reason: "larger than 1024 bytes"},
		{name: "1.2 part too large", v: core.V12, ctype: mtom12, body: attPackage(bnd, core.V12, `application/xop+xml; type="application/soap+xml"`, echoBody, [3]string{"p1@x", "text/plain", big}),
			limits: core.Limits{MaxPartBytes: 1 << 10}, status: 413, code: core.CodeSender, reason: "larger than 1024 bytes"},
		{name: "1.2 package too large by Content-Length", v: core.V12, ctype: mtom12, body: attPackage(bnd, core.V12, `application/xop+xml; type="application/soap+xml"`, echoBody, [3]string{"p1@x", "text/plain", big}),
			limits: core.Limits{MaxPackageBytes: 1 << 10}, status: 413, code: core.CodeSender, reason: "the package is larger than 1024 bytes"},
		{name: "1.1 package too large chunked", v: core.V11, ctype: mtom11, body: attPackage(bnd, core.V11, `application/xop+xml; type="text/xml"`, echoBody, [3]string{"p1@x", "text/plain", big}),
			limits: core.Limits{MaxPackageBytes: 1 << 10}, status: 413, code: core.CodeSender, reason: "the package is larger than 1024 bytes", chunked: true},
		{name: "1.1 part header too large", v: core.V11, ctype: mtom11, body: attPackage(bnd, core.V11, `application/xop+xml; type="text/xml"; x="`+big+`"`, echoBody),
			limits: core.Limits{MaxPartHeaderBytes: 1 << 10}, status: 500, code: core.CodeSender, reason: "header"},
		{name: "1.2 envelope sent as a 1.1 root", v: core.V11, ctype: mtom11, body: attPackage(bnd, core.V12, `application/xop+xml; type="text/xml"`, echoBody),
			status: 500, code: core.CodeVersionMismatch},
		{name: "1.1 envelope sent as a 1.2 root", v: core.V12, ctype: mtom12, body: attPackage(bnd, core.V11, `application/xop+xml; type="application/soap+xml"`, echoBody),
			status: 500, code: core.CodeVersionMismatch},
		{name: "1.2 root not XML", v: core.V12, ctype: mtom12, body: "--" + bnd + "\r\nContent-ID: <root@x>\r\nContent-Type: application/xop+xml; type=\"application/soap+xml\"\r\n\r\nnot xml\r\n--" + bnd + "--\r\n",
			status: 400, code: core.CodeSender},
		{name: "1.1 root with a DOCTYPE", v: core.V11, ctype: mtom11, body: "--" + bnd + "\r\nContent-ID: <root@x>\r\nContent-Type: application/xop+xml; type=\"text/xml\"\r\n\r\n<!DOCTYPE x [<!ENTITY a \"b\">]><x/>\r\n--" + bnd + "--\r\n",
			status: 500, code: core.CodeSender},
		{name: "1.1 SwA root not SOAP", v: core.V11, ctype: `multipart/related; type="text/xml"; boundary="` + bnd + `"`, body: "--" + bnd + "\r\nContent-Type: image/png\r\n\r\nPNG\r\n--" + bnd + "--\r\n",
			status: 400, code: core.CodeSender, reason: "not a SOAP envelope"},
		{name: "a package of images", ctype: `multipart/related; type="image/png"; boundary="` + bnd + `"`, body: ok11,
			status: 415, plain: true},
		{name: "a form upload", ctype: `multipart/form-data; boundary="` + bnd + `"`, body: ok11,
			status: 415, plain: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := serve(t, echo, soaphttp.WithLimits(c.limits))
			var body io.Reader = strings.NewReader(c.body)
			if c.chunked {
				body = io.MultiReader(body) // no length: chunked
			}
			resp, data := post(t, srv.URL, map[string]string{"Content-Type": c.ctype}, body)
			assert.Equal(t, c.status, resp.StatusCode, "%s", data)
			if c.plain {
				assert.True(t, strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain"), resp.Header.Get("Content-Type"))
				return
			}
			assert.Equal(t, c.v.MediaType(), strings.SplitN(resp.Header.Get("Content-Type"), ";", 2)[0], "the fault's version")
			m, f := readFault(t, data)
			assert.Equal(t, c.v, m.Version())
			assert.Equal(t, c.code, f.Code)
			assert.Contains(t, f.Reason, c.reason)
		})
	}
}

// TestAttachmentServerNotCalledOnRefusal: a refused package never reaches
// the handler.
func TestAttachmentServerNotCalledOnRefusal(t *testing.T) {
	called := false
	srv := serve(t, core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		called = true
		return nil, nil
	}))
	resp, _ := post(t, srv.URL, map[string]string{"Content-Type": `multipart/related; type="text/xml"`}, strings.NewReader("--x\r\n\r\n"))
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
	assert.False(t, called)
}

// TestAttachmentXOPRefusals: an xop:Include that names no part of the
// package, or whose href is not a cid: URL, is a Sender fault (400 in 1.2,
// 500 in 1.1) whether the handler decodes the body or not (the verdict on
// the whole request reads it); an xop:Include in a plain envelope too.
func TestAttachmentXOPRefusals(t *testing.T) {
	const bnd = "b0undary"
	decoding := core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		var req struct {
			Data core.Binary `xml:"data"`
		}
		if err := m.Body().Decode(&req); err != nil {
			return nil, err
		}
		return m.Reply(core.RawBody([]byte(`<t:ok xmlns:t="` + testNS + `"/>`))), nil
	})
	ignoring := core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		return m.Reply(core.RawBody([]byte(`<t:ok xmlns:t="` + testNS + `"/>`))), nil
	})
	include := func(href string) string {
		return `<t:upload xmlns:t="` + testNS + `"><data><xop:Include xmlns:xop="http://www.w3.org/2004/08/xop/include" href="` + href + `"/></data></t:upload>`
	}
	for _, v := range []core.Version{core.V11, core.V12} {
		rootType := `application/xop+xml; type="` + v.MediaType() + `"`
		pkgType := `multipart/related; type="application/xop+xml"; start="<root@x>"; start-info="` + v.MediaType() + `"; boundary="` + bnd + `"`
		want := map[core.Version]int{core.V11: 500, core.V12: 400}[v]
		cases := []struct {
			name, ctype, body string
		}{
			{"a missing part", pkgType, attPackage(bnd, v, rootType, include("cid:missing@x"), [3]string{"p1@x", "text/plain", "hello"})},
			{"an http href", pkgType, attPackage(bnd, v, rootType, include("http://example.org/p1"), [3]string{"p1@x", "text/plain", "hello"})},
			{"a plain envelope", ctype(v), envelope(v, "", include("cid:p1@x"))},
		}
		for _, c := range cases {
			for name, h := range map[string]core.Handler{"decoding": decoding, "ignoring": ignoring} {
				t.Run(v.String()+"/"+c.name+"/"+name, func(t *testing.T) {
					srv := serve(t, h)
					resp, data := post(t, srv.URL, map[string]string{"Content-Type": c.ctype}, strings.NewReader(c.body))
					assert.Equal(t, want, resp.StatusCode, "%s", data)
					m, f := readFault(t, data)
					assert.Equal(t, v, m.Version())
					assert.Equal(t, core.CodeSender, f.Code)
					assert.Contains(t, strings.ToLower(f.Reason), "include", f.Reason)
				})
			}
		}
	}
	// the part that is there resolves
	srv := serve(t, decoding)
	resp, data := post(t, srv.URL, map[string]string{"Content-Type": `multipart/related; type="application/xop+xml"; start="<root@x>"; start-info="text/xml"; boundary="` + bnd + `"`},
		strings.NewReader(attPackage(bnd, core.V11, `application/xop+xml; type="text/xml"`, include("cid:p1@x"), [3]string{"p1@x", "text/plain", "hello"})))
	assert.Equal(t, http.StatusOK, resp.StatusCode, "%s", data)
}

// TestAttachmentIntermediary: a core.Node intermediary mounted with
// NewHandler forwards an MTOM request through a Transport with its parts,
// in its packaging, and the far end's package reply comes back whole.
func TestAttachmentIntermediary(t *testing.T) {
	for _, p := range []core.Packaging{core.MTOM, core.SwA} {
		t.Run(p.String(), func(t *testing.T) {
			seen := &attSeen{}
			final := serve(t, attEcho(seen))
			next := soaphttp.NewTransport(final.URL)
			t.Cleanup(next.CloseIdleConnections)
			proxy := serve(t, &core.Node{URI: "urn:proxy", Intermediary: true, Next: next})
			tr := soaphttp.NewTransport(proxy.URL)
			t.Cleanup(tr.CloseIdleConnections)
			large := attData(2<<20 + 5)
			reply, err := tr.RoundTrip(t.Context(), attRequest(core.V12, p, core.BytesAttachment("application/octet-stream", large)))
			require.NoError(t, err)
			defer reply.Close()
			seen.mu.Lock()
			assert.Equal(t, p, seen.packaging, "the far end got a package")
			assert.Equal(t, []string{fmt.Sprintf("application/octet-stream %d %s", len(large), attDigest(large))}, seen.parts)
			seen.mu.Unlock()
			assert.Equal(t, p, reply.Packaging)
			require.Len(t, reply.Attachments, 1)
			assert.Equal(t, large, coretest.PartBytes(t, reply.Attachments[0]))
		})
	}
}

// TestAttachmentIntermediaryKeepsIncludes: a core.Node intermediary
// forwards an MTOM request whose body names its part with an xop:Include
// (a Binary): the far end gets the part once and the Include naming it,
// so its Binary is the part, not an inline copy beside it.
func TestAttachmentIntermediaryKeepsIncludes(t *testing.T) {
	type doc struct {
		XMLName xml.Name    `xml:"urn:soapwire:test Document"`
		Scan    core.Binary `xml:"urn:soapwire:test Scan"`
	}
	scan := attData(2<<20 + 3)
	for _, v := range []core.Version{core.V11, core.V12} {
		t.Run(v.String(), func(t *testing.T) {
			got := make(chan error, 1)
			final := serve(t, core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
				var d doc
				err := m.Body().Decode(&d)
				switch {
				case err != nil:
				case m.Packaging != core.MTOM || len(m.Attachments) != 1:
					err = fmt.Errorf("packaging %s with %d parts", m.Packaging, len(m.Attachments))
				case d.Scan.Attachment() != m.Attachments[0]:
					err = fmt.Errorf("the Binary value is not the part (an inline copy)")
				case !bytes.Equal(coretest.PartBytes(t, m.Attachments[0]), scan):
					err = fmt.Errorf("the part's bytes differ")
				}
				got <- err
				return m.Reply(core.RawBody([]byte(`<t:ok xmlns:t="` + testNS + `"/>`))), err
			}), soaphttp.WithLimits(core.Limits{MaxBytes: 8 << 20}))
			next := soaphttp.NewTransport(final.URL)
			t.Cleanup(next.CloseIdleConnections)
			proxy := serve(t, &core.Node{URI: "urn:proxy", Intermediary: true, Next: next}, soaphttp.WithLimits(core.Limits{MaxBytes: 8 << 20}))
			tr := soaphttp.NewTransport(proxy.URL)
			t.Cleanup(tr.CloseIdleConnections)
			m := core.NewMessage(v, core.Body{})
			m.Packaging, m.Action = core.MTOM, "urn:soapwire:test:store"
			m.Envelope.Body = core.ValueBody(doc{Scan: m.AttachBinary(core.BytesAttachment("image/tiff", scan))})
			reply, err := tr.RoundTrip(t.Context(), m)
			require.NoError(t, err)
			defer reply.Close()
			assert.NoError(t, <-got)
		})
	}
}

// TestAttachmentSend: Transport.Send posts a package one-way; NewHandler
// hands the handler the parts and the body's Binary values resolved to
// them, and answers 202.
func TestAttachmentSend(t *testing.T) {
	type doc struct {
		XMLName xml.Name     `xml:"urn:soapwire:test Document"`
		Scan    core.Binary  `xml:"urn:soapwire:test Scan"`
		PDF     *core.Binary `xml:"urn:soapwire:test PDF,omitempty"`
	}
	scan, pdf := attData(3<<20+1), []byte("%PDF-1.7\n")
	for _, v := range []core.Version{core.V11, core.V12} {
		for _, p := range []core.Packaging{core.MTOM, core.SwA} {
			t.Run(v.String()+"/"+p.String(), func(t *testing.T) {
				got := make(chan error, 1)
				srv := serve(t, core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
					var d doc
					err := m.Body().Decode(&d)
					if err == nil {
						switch {
						case m.Packaging != p || len(m.Attachments) != 2:
							err = fmt.Errorf("packaging %s with %d parts", m.Packaging, len(m.Attachments))
						case d.PDF == nil || d.Scan.Attachment() != m.Attachments[0] || d.PDF.Attachment() != m.Attachments[1]:
							err = fmt.Errorf("the Binary values are not the parts")
						case !bytes.Equal(coretest.PartBytes(t, m.Attachments[0]), scan) || !bytes.Equal(coretest.PartBytes(t, m.Attachments[1]), pdf):
							err = fmt.Errorf("the parts' bytes differ")
						}
					}
					got <- err
					return nil, err
				}), soaphttp.WithLimits(core.Limits{MaxBytes: 8 << 20}))
				tr := soaphttp.NewTransport(srv.URL)
				t.Cleanup(tr.CloseIdleConnections)
				m := core.NewMessage(v, core.Body{})
				m.Packaging, m.Action = p, "urn:soapwire:test:store"
				d := doc{Scan: m.AttachBinary(core.BytesAttachment("image/tiff", scan))}
				b := m.AttachBinary(core.BytesAttachment("application/pdf", pdf))
				d.PDF = &b
				m.Envelope.Body = core.ValueBody(d)
				require.NoError(t, tr.Send(t.Context(), m))
				assert.Equal(t, "202", m.Meta[soaphttp.MetaStatus])
				assert.NoError(t, <-got)
			})
		}
	}
}
