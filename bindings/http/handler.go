package http

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/soapwire/soapwire/bindings/internal/ratelog"
	"github.com/soapwire/soapwire/core"
)

// Meta keys NewHandler sets on every request message.
const (
	MetaMethod     = "http.method"
	MetaPath       = "http.path"
	MetaRemoteAddr = "http.remote-addr"
	MetaUser       = "http.user"   // after WithAuth
	MetaStatus     = "http.status" // on replies returned by Transport, and on messages it sent
	MetaType       = "http.content-type"
)

type handler struct {
	h     core.Handler
	o     handlerConfig
	desc  Describer
	allow string
	max   int64 // resolved Limits.MaxBytes; 0: none
	// pkgMax is the resolved Limits.MaxPackageBytes (0: none): what a
	// multipart/related request may bring in all
	pkgMax int64
	bufs   sync.Pool
	// logs bounds the refusal lines a flood makes: a kind at once, then at
	// most one line per DefaultLogInterval with the count
	logs *ratelog.Limiter
}

// DefaultLogInterval is the least time between two log lines of one kind
// of refusal (or of failed reply): the first is written at once, those
// that follow within the interval as one line when it is up, with their
// number ("count") and the details of the last.
const DefaultLogInterval = ratelog.DefaultInterval

// NewHandler serves h over HTTP: see the package documentation for the
// request shapes it accepts and the status codes it answers. A panic in h
// becomes a Receiver fault, logged through WithLogger.
func NewHandler(h core.Handler, opts ...HandlerOption) http.Handler {
	o := newHandlerConfig(opts)
	s := &handler{h: core.Recover(o.log)(h), o: o, desc: o.describer, allow: "POST", logs: ratelog.New(o.logInterval)}
	if s.desc == nil {
		s.desc, _ = h.(Describer)
	}
	if s.desc != nil || o.get != nil {
		s.allow = "GET, POST"
	}
	switch mb := o.limits.MaxBytes; {
	case mb == 0:
		s.max = core.DefaultLimits().MaxBytes
	case mb > 0:
		s.max = mb
	}
	s.pkgMax = packageMax(o.limits)
	s.bufs.New = func() any { return bytes.NewBuffer(make([]byte, 0, 4096)) }
	return s
}

func (s *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	get := r.Method == http.MethodGet && s.allow != "POST"
	if r.Method != http.MethodPost && !get {
		s.logs.Log(r.Context(), s.o.log, slog.LevelInfo, "soap: method not allowed", slog.String("method", r.Method))
		w.Header().Set("Allow", s.allow)
		http.Error(w, "method not allowed: SOAP messages are POSTed", http.StatusMethodNotAllowed)
		return
	}
	ctx := context.WithValue(r.Context(), requestKey{}, r)
	ct, ctOK := parseContentType(r.Header.Get("Content-Type"))
	user, authed := "", false
	if s.o.auth != nil {
		var ok bool
		if user, ok = s.o.auth.authenticate(ctx, r); !ok {
			s.logs.Log(ctx, s.o.log, slog.LevelInfo, "soap: unauthorized", slog.String("remote-addr", r.RemoteAddr))
			s.unauthorized(ctx, w, r, ct)
			return
		}
		authed = true
		ctx = context.WithValue(ctx, userKey{}, user)
	}
	if get {
		s.serveGet(ctx, w, r)
		return
	}
	if !ctOK || !ct.present && !s.o.optionalCT {
		// No Content-Type is refused too, unless WithContentTypeOptional:
		// it is the one request shape a web page can POST to another
		// origin without a CORS preflight that carries an envelope as it
		// is (a Blob or ArrayBuffer body), so a hostile page could drive
		// an intranet service through a browser.
		s.logs.Log(ctx, s.o.log, slog.LevelInfo, "soap: unsupported media type", slog.String("content-type", r.Header.Get("Content-Type")))
		http.Error(w, "unsupported media type: SOAP 1.1 is text/xml, SOAP 1.2 application/soap+xml, in UTF-8 or UTF-16", http.StatusUnsupportedMediaType)
		return
	}
	max, what := s.max, "the envelope"
	if ct.multipart {
		max, what = s.pkgMax, "the package"
	}
	if max > 0 && r.ContentLength > max {
		f := &core.Fault{Code: core.CodeSender, Reason: what + " is larger than " + strconv.FormatInt(max, 10) + " bytes", Cause: core.ErrTooLarge}
		s.logs.Log(ctx, s.o.log, slog.LevelInfo, "soap: request too large", slog.Int64("content-length", r.ContentLength))
		s.writeFault(ctx, w, nil, f, chooseVersion(r, ct, core.V11), http.StatusRequestEntityTooLarge)
		return
	}
	body := &bodyReader{r: r.Body, max: max, what: what, pace: s.startPace(w, r)}
	var (
		m   *core.Message
		err error
	)
	if ct.multipart {
		// a MIME package (MTOM, SwA): its parts are read (spooled beyond
		// Limits.SpoolThreshold) before the handler runs
		m, err = core.ReadPackage(body, r.Header.Get("Content-Type"), s.o.limits)
	} else {
		// UTF-16 without a byte order mark is read when the charset says so
		m, err = core.ReadMessage(core.CharsetReader(ct.charset, body), s.o.limits)
	}
	if err == nil {
		defer m.Close() // a package's spool files, once the reply is written
		defer recycle(m, body, r.ContentLength)
	}
	if err != nil {
		f := s.bodyFault(core.FaultOf(err), body, 0)
		if notSOAP(err, body) && ct.version == 0 {
			// Not an envelope of any version (empty, not XML, another
			// root element), and not sent as SOAP: nothing to answer a
			// SOAP fault to. Sent with a SOAP media type, it is answered
			// the Sender fault saying why, in that media type's version.
			s.logs.Log(ctx, s.o.log, slog.LevelInfo, "soap: request is not SOAP", slog.String("reason", f.Reason))
			w.Header().Set("Content-Length", "0")
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		def := core.V11
		if f.Code == core.CodeVersionMismatch {
			def = core.V12
		}
		v := f.Version
		if v == 0 {
			v = chooseVersion(r, ct, def)
		}
		status := s.status(f, v, body)
		if ct.multipart {
			status = packageStatus(f, status, body)
		}
		s.logs.Log(ctx, s.o.log, slog.LevelInfo, "soap: request refused", slog.String("fault", f.Error()))
		s.writeFault(ctx, w, nil, f, v, status)
		return
	}
	v := m.Version()
	if ct.version != 0 && ct.version != v && !ct.multipart {
		// The media type names the other version: a node of that version
		// does not know this envelope's namespace, which is a
		// VersionMismatch (SOAP 1.1 §4.4.1, SOAP 1.2 Part 1 §5.4.7),
		// answered in the media type's version (1.2: with Upgrade). A
		// package's root part is held to it by core.ReadPackage.
		f := &core.Fault{Code: core.CodeVersionMismatch, Version: ct.version,
			Reason: "a SOAP " + v.String() + " envelope sent as " + ct.version.MediaType() + ", the SOAP " + ct.version.String() + " media type (SOAP " + v.String() + " is " + v.MediaType() + ")"}
		s.logs.Log(ctx, s.o.log, slog.LevelInfo, "soap: request refused", slog.String("fault", f.Error()))
		s.writeFault(ctx, w, nil, f, ct.version, faultStatus(f, ct.version))
		return
	}
	action, from := ct.action, "the Content-Type action parameter"
	if action == "" {
		action, from = soapAction(r.Header), "the SOAPAction header"
	}
	if err := m.TakeAction(action, from); err != nil {
		f := core.FaultOf(err)
		s.logs.Log(ctx, s.o.log, slog.LevelInfo, "soap: request refused", slog.String("fault", f.Error()))
		s.writeFault(ctx, w, m, f, v, faultStatus(f, v))
		return
	}
	if m.Meta == nil {
		m.Meta = make(map[string]string, 5)
	}
	m.Meta[MetaMethod] = r.Method
	m.Meta[MetaPath] = r.URL.Path
	m.Meta[MetaRemoteAddr] = r.RemoteAddr
	if authed {
		m.Meta[MetaUser] = user
	}

	// the reply waits for the verdict on the whole request (a reply that
	// reads the request as it is written is judged at its end: see write)
	reply, err := m.Verdict(s.h.ServeSOAP(ctx, m))
	if err != nil {
		f := s.bodyFault(core.FaultOf(err), body, v).WithVersion(v)
		s.logs.Log(ctx, s.o.log, slog.LevelInfo, "soap: fault", slog.String("fault", f.Error()))
		s.writeFault(ctx, w, m, f, v, s.status(f, v, body))
		return
	}
	if reply == nil {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	defer reply.Close() // a reply read from a package (an intermediary's next hop)
	if reply.Packaging == core.Inline && len(reply.Attachments) > 0 {
		// attachments go back in the request's packaging
		reply.Packaging = m.Packaging
	}
	if reply.Envelope == nil {
		reply.Envelope = &core.Envelope{}
	}
	if reply.Envelope.Version == 0 {
		reply.Envelope.Version = v
	}
	status := http.StatusOK
	if f := reply.Fault(); f != nil {
		status = faultStatus(f, reply.Version())
	}
	if err := s.write(ctx, w, reply, status); err != nil {
		f := s.bodyFault(core.FaultOf(err), body, v)
		s.logs.Log(ctx, s.o.log, slog.LevelWarn, "soap: writing the reply failed", slog.Any("err", err))
		s.writeFault(ctx, w, m, f, v, s.status(f, v, body))
	}
}

// bodyFault returns the fault that answers a request whose body could not
// be read whole: whatever the handler made of the error, the message was not
// received (too large, or the transfer broke). Otherwise it returns f.
func (s *handler) bodyFault(f *core.Fault, body *bodyReader, v core.Version) *core.Fault {
	switch {
	case body.isTooLarge() && !errors.Is(f, core.ErrTooLarge):
		return &core.Fault{Code: core.CodeSender, Version: v, Reason: body.what + " is larger than " + strconv.FormatInt(body.max, 10) + " bytes", Cause: errors.Join(core.ErrTooLarge, f)}
	case body.isTooLarge():
	case body.timedOut():
		return &core.Fault{Code: core.CodeSender, Version: v, Reason: "the request body did not arrive in time", Cause: f}
	case body.failed():
		return &core.Fault{Code: core.CodeSender, Version: v, Reason: "the request body could not be read", Cause: f}
	}
	return f
}

// notSOAP reports whether reading the request failed before a SOAP envelope
// began (core.ErrNotEnvelope: empty, not XML, another root element), while
// the body itself was read fine and under the limit.
func notSOAP(err error, body *bodyReader) bool {
	return errors.Is(err, core.ErrNotEnvelope) && !body.failed() && !body.isTooLarge()
}

// status is the status of a fault answering a request whose body is body:
// 413 when the request was larger than the limit (not when some other
// envelope was, such as a next hop's reply), 408 when it did not arrive in
// time, 400 when it could not be read (broken chunked framing, the client
// gone): HTTP's statuses for what went wrong below SOAP, in either version.
func (s *handler) status(f *core.Fault, v core.Version, body *bodyReader) int {
	switch {
	case body.isTooLarge():
		return http.StatusRequestEntityTooLarge
	case body.timedOut():
		return http.StatusRequestTimeout
	case body.failed():
		return http.StatusBadRequest
	}
	return faultStatus(f, v)
}

// packageStatus is the status of the fault f refusing a MIME package whose
// body was read fine: a package is framing like HTTP's own, so one that is
// malformed (no boundary, never closed, cut off, no root part) is 400, and
// one over a size limit (a part, the root envelope) 413, in either version.
// Otherwise (a body that did not arrive, a fault about the envelope) status.
func packageStatus(f *core.Fault, status int, body *bodyReader) int {
	switch {
	case body.isTooLarge() || body.timedOut() || body.failed():
		return status
	case errors.Is(f, core.ErrTooLarge):
		return http.StatusRequestEntityTooLarge
	case errors.Is(f, core.ErrMalformed):
		return http.StatusBadRequest
	}
	return status
}

// writeFault answers with f in version v; req, when known, is the request
// it answers (for RelatesTo).
func (s *handler) writeFault(ctx context.Context, w http.ResponseWriter, req *core.Message, f *core.Fault, v core.Version, status int) {
	var m *core.Message
	if req != nil && req.ID != "" {
		m = req.FaultReply(f)
		m.Action = core.FaultAction
	} else {
		m = core.NewMessage(v, core.FaultBody(f))
	}
	m.Envelope.Version = v
	if status == http.StatusRequestTimeout {
		// The read deadline passed, and the server's write deadline may be
		// as near (NewServer's ReadTimeout and WriteTimeout are equal):
		// give the fault a little time of its own to go out.
		_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(faultWriteTime))
	}
	if err := s.write(ctx, w, m, status); err != nil {
		s.logs.Log(ctx, s.o.log, slog.LevelError, "soap: writing a fault failed", slog.Any("err", err))
		http.Error(w, "internal server error", http.StatusInternalServerError)
	}
}

// write writes m with the given status. The reply is buffered up to 32 KiB
// before the status is sent, so an error while writing a small reply still
// becomes a fault; an error after that aborts the response (the client sees a
// truncated reply, never a complete-looking one). A reply that reads the
// request as it is written (an echo, a StreamBody) fails here when the
// request's rest is wrong (core.Message.Verdict): within the buffer, the
// request's fault answers instead; beyond it, the response is aborted and
// the connection closed.
func (s *handler) write(ctx context.Context, w http.ResponseWriter, m *core.Message, status int) (err error) {
	buf := s.bufs.Get().(*bytes.Buffer)
	buf.Reset()
	defer func() {
		if buf.Cap() <= 64<<10 {
			s.bufs.Put(buf)
		}
	}()
	ctype := mediaType(m.Version())
	if m.Packaging != core.Inline {
		ctype = m.ContentType() // the package's: multipart/related, boundary, root
	}
	rw := &replyWriter{w: w, buf: buf, status: status, ctype: ctype}
	func() {
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				s.o.log.ErrorContext(ctx, "soap: writing the reply panicked", slog.Any("panic", p))
				err = &core.Fault{Code: core.CodeReceiver, Reason: core.InternalErrorReason, Cause: errors.New("panic while writing the reply")}
			}
		}()
		_, err = m.Write(rw, core.WriteOptions{})
	}()
	if err != nil {
		if rw.committed {
			s.logs.Log(ctx, s.o.log, slog.LevelWarn, "soap: reply aborted after it started", slog.Any("err", err))
			panic(http.ErrAbortHandler)
		}
		return err
	}
	if !rw.committed {
		rw.commit(buf.Len())
	}
	return nil
}

const replyBuffer = 32 << 10

type replyWriter struct {
	w         http.ResponseWriter
	buf       *bytes.Buffer
	status    int
	ctype     string
	committed bool
}

func (rw *replyWriter) Write(p []byte) (int, error) {
	if rw.committed {
		return rw.w.Write(p)
	}
	if rw.buf.Len()+len(p) <= replyBuffer {
		return rw.buf.Write(p)
	}
	// the reply goes out while it is written: it may still be reading
	// the request (an echo, a StreamBody copying it), which net/http
	// allows on HTTP/1.1 only in full-duplex mode (HTTP/2 always is)
	_ = http.NewResponseController(rw.w).EnableFullDuplex()
	if err := rw.commit(-1); err != nil {
		return 0, err
	}
	return rw.w.Write(p)
}

// AvailableBuffer lends the free space of the reply buffer (within its
// bound) until the reply is committed: core's envelope writer appends into
// it and hands it back to Write, so the envelope is not copied twice.
func (rw *replyWriter) AvailableBuffer() []byte {
	if rw.committed {
		return nil
	}
	b := rw.buf.AvailableBuffer()
	if room := replyBuffer - rw.buf.Len(); cap(b) > room {
		b = b[:0:max(room, 0)]
	}
	return b
}

// Grow makes room for n more bytes in the reply buffer, within its bound.
func (rw *replyWriter) Grow(n int) {
	if !rw.committed && rw.buf.Len()+n <= replyBuffer {
		rw.buf.Grow(n)
	}
}

func (rw *replyWriter) commit(length int) error {
	rw.committed = true
	h := rw.w.Header()
	h["Content-Type"] = []string{rw.ctype}
	if length >= 0 {
		h["Content-Length"] = []string{strconv.Itoa(length)}
	}
	rw.w.WriteHeader(rw.status)
	_, err := rw.w.Write(rw.buf.Bytes())
	return err
}

// recycleBytes is how much of a request body the handler left unread that
// is still read (and checked) once the reply is sent, so that the tokenizer
// is recycled; a larger rest is left to net/http.
const recycleBytes = 64 << 10

// recycle reads the rest of a request body the handler did not read to its
// end, when little is left (length is the request's Content-Length): the
// tokenizer then goes back to its pool at once. Errors do not matter any
// more: the reply is sent.
func recycle(m *core.Message, body *bodyReader, length int64) {
	if length < 0 || length-body.count() > recycleBytes {
		return
	}
	m.Body().Discard()
}

// faultWriteTime bounds writing the 408 fault of a body that timed out.
const faultWriteTime = 10 * time.Second

// bodyReader watches the request body: how much was read and whether
// reading it failed, so a fault can be answered right whatever the handler
// made of the error; and it holds the body to its pace, when it has one.
type bodyReader struct {
	r        io.Reader
	max      int64
	what     string // what max bounds: "the envelope", "the package"
	pace     *pace  // nil: no bound on the body's pace
	mu       sync.Mutex
	n        int64
	tooLarge bool
	timeout  bool
	err      error
}

func (b *bodyReader) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	b.mu.Lock()
	b.n += int64(n)
	total := b.n
	if b.max > 0 && b.n > b.max {
		b.tooLarge = true
	}
	if err != nil && err != io.EOF && b.err == nil {
		b.err = err
		var ne net.Error
		b.timeout = errors.As(err, &ne) && ne.Timeout()
	}
	b.mu.Unlock()
	if err == nil && b.pace != nil {
		b.pace.arrived(total)
	}
	return n, err
}

func (b *bodyReader) timedOut() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.timeout
}

func (b *bodyReader) count() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.n
}

func (b *bodyReader) failed() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.err != nil
}

func (b *bodyReader) isTooLarge() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.tooLarge
}

// packageMax is what core.ReadPackage resolves Limits.MaxPackageBytes to (0:
// none): the field, else 4 × MaxBytes (none when MaxBytes is off).
func packageMax(l core.Limits) int64 {
	switch {
	case l.MaxPackageBytes > 0:
		return l.MaxPackageBytes
	case l.MaxPackageBytes < 0:
		return 0
	}
	d := core.DefaultLimits()
	if l == (core.Limits{}) {
		return d.MaxPackageBytes
	}
	switch mb := l.MaxBytes; {
	case mb == 0:
		return 4 * d.MaxBytes
	case mb > 0:
		return 4 * mb
	}
	return 0
}
