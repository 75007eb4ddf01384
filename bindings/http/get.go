package http

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/soapwire/soapwire/core"
)

// Describer is a handler that can describe itself in WSDL (core/rpc's
// Service is one). NewHandler answers "GET ?wsdl" with it, address being the
// URL the request was made to (scheme://host/path).
type Describer interface {
	WSDL(w io.Writer, address string) error
}

func (s *handler) serveGet(ctx context.Context, w http.ResponseWriter, r *http.Request) {
	if s.desc != nil && wantsWSDL(r) {
		s.serveWSDL(ctx, w, r)
		return
	}
	if s.o.get == nil {
		http.NotFound(w, r)
		return
	}
	m, err := s.o.get(ctx, r)
	v := acceptVersion(r.Header.Get("Accept"))
	if v == 0 {
		v = core.V12
	}
	if err != nil {
		f := core.FaultOf(err)
		if f.Version != 0 {
			v = f.Version
		}
		s.writeFault(ctx, w, nil, f, v, faultStatus(f, v))
		return
	}
	if m == nil {
		http.NotFound(w, r)
		return
	}
	if m.Envelope == nil {
		m.Envelope = &core.Envelope{}
	}
	if m.Envelope.Version == 0 {
		m.Envelope.Version = v
	}
	status := http.StatusOK
	if f := m.Fault(); f != nil {
		status = faultStatus(f, m.Version())
	}
	if err := s.write(ctx, w, m, status); err != nil {
		f := core.FaultOf(err)
		s.writeFault(ctx, w, nil, f, m.Version(), faultStatus(f, m.Version()))
	}
}

func wantsWSDL(r *http.Request) bool {
	for _, kv := range strings.Split(r.URL.RawQuery, "&") {
		k, _, _ := strings.Cut(kv, "=")
		if strings.EqualFold(k, "wsdl") {
			return true
		}
	}
	return false
}

func (s *handler) serveWSDL(ctx context.Context, w http.ResponseWriter, r *http.Request) {
	base := s.o.publicURL
	if base == "" {
		base = "http://" + r.Host
		if r.TLS != nil {
			base = "https://" + r.Host
		}
	}
	address := base + r.URL.EscapedPath()
	var buf bytes.Buffer
	if err := s.desc.WSDL(&buf, address); err != nil {
		s.o.log.ErrorContext(ctx, "soap: writing the WSDL failed", slog.Any("err", err))
		http.Error(w, "the service description could not be written", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/xml; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	w.Write(buf.Bytes())
}
