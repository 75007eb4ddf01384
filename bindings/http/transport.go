package http

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/soapwire/soapwire/core"
)

// Transport sends envelopes to an HTTP endpoint. It is a core.RoundTripper
// (request-response) and a core.Sender (one-way), safe for concurrent use.
type Transport struct {
	url    string
	client *http.Client
	own    *http.Transport
	o      transportConfig
	max    int64 // resolved Limits.MaxBytes of replies; 0: none
	pkgMax int64 // resolved Limits.MaxPackageBytes of replies; 0: none

	// answers to peer-named addresses that must be checked where they
	// connect (answerdial.go); made for the first
	checkedMu   sync.Mutex
	checkedMade bool
	checked     *http.Client // nil: the client cannot be checked
	checkedTr   *http.Transport
}

var (
	_ core.RoundTripper = (*Transport)(nil)
	_ core.Sender       = (*Transport)(nil)
)

// NewTransport returns a Transport posting to url. A call whose ctx has no
// deadline is bounded by WithTimeout (DefaultTimeout).
func NewTransport(url string, opts ...TransportOption) *Transport {
	t := &Transport{url: url, o: newTransportConfig(opts)}
	switch mb := t.o.limits.MaxBytes; {
	case mb == 0:
		t.max = core.DefaultLimits().MaxBytes
	case mb > 0:
		t.max = mb
	}
	t.pkgMax = packageMax(t.o.limits)
	t.client = t.o.client
	if t.client == nil {
		t.own = http.DefaultTransport.(*http.Transport).Clone()
		t.own.MaxIdleConnsPerHost = 64
		if t.o.resolver != nil {
			d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second, Resolver: t.o.resolver}
			t.own.DialContext = d.DialContext
		}
		t.client = &http.Client{Transport: t.own}
	}
	return t
}

// CloseIdleConnections closes the keep-alive connections of the Transport's
// own client (not of one given with WithClient).
func (t *Transport) CloseIdleConnections() {
	if t.own != nil {
		t.own.CloseIdleConnections()
	}
	t.checkedMu.Lock()
	tr := t.checkedTr
	t.checkedMu.Unlock()
	if tr != nil {
		tr.CloseIdleConnections()
	}
}

// RoundTrip posts m and returns the reply. SOAP 1.1 is sent as text/xml with
// a quoted SOAPAction header, SOAP 1.2 as application/soap+xml with the
// action parameter; m.Action is the action.
//
//   - 200 with an envelope: the reply, with Meta "http.status" and
//     "http.content-type". A small reply is read whole and its connection
//     released at once; a larger one streams: consume its body (or cancel ctx)
//     to release the connection.
//   - a fault (usually 500, or 400 for SOAP 1.2 Sender faults): a nil reply
//     and a *core.Fault error with Remote set. Its Cause is a *StatusError
//     holding the HTTP status and content type (Cause is never sent on).
//   - 202 (or 204, or 200 with an empty body): (nil, nil), accepted.
//   - anything else (an HTML error page, an empty 400, a wrong content type):
//     a *StatusError.
//   - a reply in the other SOAP version than m, answer or fault: an error
//     wrapping a VersionMismatch *core.Fault this side found (not Remote);
//     the server's own VersionMismatch fault is returned as its fault
//     (core.CheckReplyVersion).
//   - a Content-Length over WithLimits' MaxBytes: an error with
//     core.ErrTooLarge, before the body is read.
func (t *Transport) RoundTrip(ctx context.Context, m *core.Message) (*core.Message, error) {
	return t.exchange(ctx, t.url, m)
}

// Send posts a one-way message to m.To when it is an http:// or https://
// address, else to the Transport's URL. 200 and 202 are success (a reply
// body is read and dropped); a fault comes back as a *core.Fault, anything
// else as a *StatusError. The HTTP status is set in m.Meta[MetaStatus].
func (t *Transport) Send(ctx context.Context, m *core.Message) error {
	url := t.url
	if to := strings.ToLower(m.To); strings.HasPrefix(to, "http://") || strings.HasPrefix(to, "https://") {
		url = m.To
	}
	ctx, p := t.bound(ctx)
	resp, err := t.post(ctx, url, m, p)
	if err != nil {
		p.done()
		return err
	}
	// What the server confirmed, for the sender's records (document.Send
	// puts it in its Receipt).
	m.SetMeta(MetaStatus, strconv.Itoa(resp.StatusCode))
	reply, err := t.reply(resp, sentVersion(m))
	if err != nil {
		return err
	}
	if reply != nil {
		defer reply.Close()
		if err := reply.Body().Discard(); err != nil {
			return fmt.Errorf("http: send to %s: reading the reply: %w", url, err)
		}
	}
	return nil
}

func (t *Transport) exchange(ctx context.Context, url string, m *core.Message) (*core.Message, error) {
	ctx, p := t.bound(ctx)
	resp, err := t.post(ctx, url, m, p)
	if err != nil {
		p.done()
		return nil, err
	}
	return t.reply(resp, sentVersion(m))
}

// sentVersion is the version m is sent in: the zero Version is sent as 1.1.
func sentVersion(m *core.Message) core.Version {
	if v := m.Version(); v != 0 {
		return v
	}
	return core.V11
}

// post sends m. Small envelopes are sent with a Content-Length; one larger
// than 64 KiB is streamed (chunked) as it is written.
func (t *Transport) post(ctx context.Context, url string, m *core.Message, p *progress) (*http.Response, error) {
	client, err := t.answerClient(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("http: post %s: %w", url, err)
	}
	v := sentVersion(m)
	var pkgType string
	if m.Packaging != core.Inline {
		// fixed (boundary, root Content-ID) before the package is written
		pkgType = m.ContentType()
	}
	enc := encode(m)
	select {
	case <-enc.ready:
	case <-ctx.Done():
		go enc.abandon(ctx.Err())
		return nil, fmt.Errorf("http: post %s: %w", url, context.Cause(ctx))
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, nil)
	if err != nil {
		enc.abandon(err)
		return nil, fmt.Errorf("http: post %s: %w", url, err)
	}
	if enc.pr == nil {
		if enc.err != nil {
			return nil, fmt.Errorf("http: post %s: writing the envelope: %w", url, enc.err)
		}
		data := enc.buf.Bytes()
		req.ContentLength = int64(len(data))
		req.Body = io.NopCloser(bytes.NewReader(data))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
	} else {
		req.ContentLength = -1
		req.Body = &pipeBody{Reader: io.MultiReader(bytes.NewReader(enc.buf.Bytes()), enc.pr), pr: enc.pr, p: p}
	}
	h := req.Header
	if pkgType != "" {
		// a MIME package: the 1.2 action is in its start-info (MTOM) or
		// root part (SwA); 1.1 keeps its SOAPAction header
		h["Content-Type"] = []string{pkgType}
		if v == core.V12 {
			h["Accept"] = []string{core.MediaTypeV12 + ", " + core.MediaTypeV11 + ";q=0.5, " + core.MediaTypeMultipartRel}
		} else {
			h["SOAPAction"] = []string{`"` + m.Action + `"`}
			h["Accept"] = []string{core.MediaTypeV11 + ", " + core.MediaTypeV12 + ";q=0.5, " + core.MediaTypeMultipartRel}
		}
	} else if v == core.V12 {
		ct := core.MediaTypeV12 + "; charset=utf-8"
		if m.Action != "" {
			ct += `; action="` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(m.Action) + `"`
		}
		h["Content-Type"] = []string{ct}
		h["Accept"] = []string{core.MediaTypeV12 + ", " + core.MediaTypeV11 + ";q=0.5"}
	} else {
		h["Content-Type"] = []string{"text/xml; charset=utf-8"}
		h["SOAPAction"] = []string{`"` + m.Action + `"`}
		h["Accept"] = []string{core.MediaTypeV11 + ", " + core.MediaTypeV12 + ";q=0.5"}
	}
	if t.o.hasUser {
		req.SetBasicAuth(t.o.user, t.o.pass)
	}
	resp, err := client.Do(req)
	if enc.pr != nil {
		enc.pr.Close()
		<-enc.done
	}
	if err != nil {
		return nil, fmt.Errorf("http: post %s: %w", url, p.err(err))
	}
	if p != nil {
		p.headers()
		resp.Body = &watchedBody{rc: resp.Body, p: p}
	}
	return resp, nil
}

// eagerReply is how much of a reply is read before it is parsed: a reply
// that fits is read whole and its connection released at once.
const eagerReply = 64 << 10

// reply reads resp, the answer to a request sent in version sent.
func (t *Transport) reply(resp *http.Response, sent core.Version) (*core.Message, error) {
	ctype := resp.Header.Get("Content-Type")
	if resp.StatusCode == http.StatusAccepted || resp.StatusCode == http.StatusNoContent {
		release(resp)
		return nil, nil
	}
	mt, _, _ := mime.ParseMediaType(ctype)
	ok2xx := resp.StatusCode >= 200 && resp.StatusCode < 300
	if mt == core.MediaTypeMultipartRel {
		return t.packageReply(resp, sent, ctype, ok2xx)
	}
	if mt != core.MediaTypeV11 && mt != core.MediaTypeV12 {
		if ok2xx && resp.ContentLength == 0 {
			release(resp)
			return nil, nil
		}
		return nil, statusError(resp, nil)
	}
	if t.max > 0 && resp.ContentLength > t.max {
		// refused before a byte of it is read: closing the body unread
		// closes the connection
		resp.Body.Close()
		return nil, fmt.Errorf("http: the reply announces %d bytes (Content-Length), over the limit of %d: %w", resp.ContentLength, t.max, core.ErrTooLarge)
	}
	head, err := io.ReadAll(io.LimitReader(resp.Body, eagerReply+1))
	if err != nil {
		resp.Body.Close()
		return nil, fmt.Errorf("http: reading the reply: %w", err)
	}
	var src io.Reader
	if len(head) <= eagerReply {
		release(resp)
		if len(bytes.TrimSpace(head)) == 0 && ok2xx {
			return nil, nil
		}
		src = bytes.NewReader(head)
	} else {
		src = io.MultiReader(bytes.NewReader(head), &closingReader{rc: resp.Body})
	}
	m, err := core.ReadMessage(src, t.o.limits)
	if err != nil {
		if !ok2xx {
			return nil, statusError(resp, head)
		}
		resp.Body.Close()
		return nil, fmt.Errorf("http: reading the reply: %w", err)
	}
	if err := core.CheckReplyVersion(sent, m); err != nil {
		resp.Body.Close()
		return nil, fmt.Errorf("http: reading the reply: %w", err)
	}
	if f := m.Fault(); f != nil {
		resp.Body.Close()
		if f.Cause == nil {
			f.Cause = &StatusError{Code: resp.StatusCode, ContentType: ctype}
		}
		return nil, f
	}
	m.SetMeta(MetaStatus, strconv.Itoa(resp.StatusCode))
	m.SetMeta(MetaType, ctype)
	if !ok2xx {
		resp.Body.Close()
		return nil, statusError(resp, head)
	}
	return m, nil
}

// packageReply reads resp, a MIME package (MTOM, SwA), the answer to a
// request sent in version sent. The package is read whole (its parts held
// in memory, or spooled beyond Limits.SpoolThreshold) and the connection
// released; the reply holds the parts until closed (core.Message.Close).
func (t *Transport) packageReply(resp *http.Response, sent core.Version, ctype string, ok2xx bool) (*core.Message, error) {
	if max := t.pkgMax; max > 0 && resp.ContentLength > max {
		resp.Body.Close()
		return nil, fmt.Errorf("http: the reply announces %d bytes (Content-Length), over the package limit of %d: %w", resp.ContentLength, max, core.ErrTooLarge)
	}
	m, err := core.ReadPackage(resp.Body, ctype, t.o.limits)
	if err != nil {
		resp.Body.Close()
		if !ok2xx {
			return nil, &StatusError{Code: resp.StatusCode, ContentType: ctype}
		}
		return nil, fmt.Errorf("http: reading the reply: %w", err)
	}
	release(resp)
	if err := core.CheckReplyVersion(sent, m); err != nil {
		m.Close()
		return nil, fmt.Errorf("http: reading the reply: %w", err)
	}
	if f := m.Fault(); f != nil {
		m.Close()
		if f.Cause == nil {
			f.Cause = &StatusError{Code: resp.StatusCode, ContentType: ctype}
		}
		return nil, f
	}
	if !ok2xx {
		m.Close()
		return nil, &StatusError{Code: resp.StatusCode, ContentType: ctype}
	}
	m.SetMeta(MetaStatus, strconv.Itoa(resp.StatusCode))
	m.SetMeta(MetaType, ctype)
	return m, nil
}

// release drains a little of what is left of a body and closes it, so the
// connection goes back to the pool.
func release(resp *http.Response) {
	io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
	resp.Body.Close()
}

// closingReader closes the response body when it ends or fails.
type closingReader struct {
	rc   io.ReadCloser
	done bool
}

func (c *closingReader) Read(p []byte) (int, error) {
	if c.done {
		return 0, io.EOF
	}
	n, err := c.rc.Read(p)
	if err != nil {
		c.done = true
		c.rc.Close()
	}
	return n, err
}

// encoded is an envelope being written: into buf while it fits, then into
// a pipe that the request body reads.
type encoded struct {
	buf   bytes.Buffer
	pr    *io.PipeReader // set when the envelope outgrew buf
	err   error          // the write error, when it fit in buf
	ready chan struct{}  // closed once buf holds all of it, or it spilled into the pipe
	done  chan struct{}  // closed when the writing goroutine ends
}

const spillAt = 64 << 10

func encode(m *core.Message) *encoded {
	e := &encoded{ready: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(e.done)
		sw := &spillWriter{e: e}
		_, err := m.Write(sw, core.WriteOptions{})
		if sw.pw != nil {
			sw.pw.CloseWithError(err)
			return
		}
		e.err = err
		close(e.ready)
	}()
	return e
}

// abandon stops a spilled write nobody will read.
func (e *encoded) abandon(err error) {
	<-e.ready
	if e.pr != nil {
		e.pr.CloseWithError(err)
	}
}

type spillWriter struct {
	e  *encoded
	pw *io.PipeWriter
}

func (s *spillWriter) Write(p []byte) (int, error) {
	if s.pw != nil {
		return s.pw.Write(p)
	}
	if s.e.buf.Len()+len(p) <= spillAt {
		return s.e.buf.Write(p)
	}
	pr, pw := io.Pipe()
	s.e.pr, s.pw = pr, pw
	close(s.e.ready)
	return pw.Write(p)
}

// pipeBody is a streamed request's body; the bytes the connection takes
// count as its call's progress.
type pipeBody struct {
	io.Reader
	pr *io.PipeReader
	p  *progress // nil: no bound
}

func (b *pipeBody) Read(buf []byte) (int, error) {
	n, err := b.Reader.Read(buf)
	b.p.sent(n)
	return n, err
}

func (b *pipeBody) Close() error { return b.pr.Close() }
