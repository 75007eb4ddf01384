package rpc_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/rpc"
)

// soapHTTP adapts a Service to net/http the way bindings/http does, in a
// few lines: ?wsdl, SOAPAction, and faults with 500 (1.1, 1.2 Receiver) or
// 400 (1.2 Sender). seen, if not nil, is called with the version of every
// request envelope read.
func soapHTTP(svc *rpc.Service, seen func(core.Version)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && r.URL.RawQuery == "wsdl" {
			w.Header().Set("Content-Type", "text/xml; charset=utf-8")
			_ = svc.WSDL(w, "http://"+r.Host+r.URL.Path)
			return
		}
		var reply *core.Message
		status := http.StatusOK
		m, err := core.ReadMessage(r.Body, core.Limits{})
		if err == nil {
			if seen != nil {
				seen(m.Version())
			}
			m.Action = strings.Trim(r.Header.Get("SOAPAction"), `"`)
			reply, err = svc.ServeSOAP(r.Context(), m)
		}
		v := core.V11
		if m != nil {
			v = m.Version()
		}
		if err != nil {
			f := core.FaultOf(err)
			reply = core.NewMessage(v, core.FaultBody(f))
			status = http.StatusInternalServerError
			if v == core.V12 && f.Code == core.CodeSender {
				status = http.StatusBadRequest
			}
		}
		w.Header().Set("Content-Type", v.MediaType()+"; charset=utf-8")
		w.WriteHeader(status)
		_, _ = reply.WriteTo(w)
	})
}

// peerServer serves svc over httptest for a real client and records the
// SOAP version of each request, so a test can check that a peer really
// spoke the version of the binding it was told to use.
type peerServer struct {
	URL string

	mu   sync.Mutex
	seen map[core.Version]int
}

func startPeerServer(t *testing.T, svc *rpc.Service) *peerServer {
	t.Helper()
	p := &peerServer{seen: map[core.Version]int{}}
	srv := httptest.NewServer(soapHTTP(svc, func(v core.Version) {
		p.mu.Lock()
		p.seen[v]++
		p.mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	p.URL = srv.URL + "/echo"
	return p
}

// versions returns how many requests of each version were read.
func (p *peerServer) versions() map[core.Version]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make(map[core.Version]int, len(p.seen))
	for v, n := range p.seen {
		out[v] = n
	}
	return out
}

// bindingVersion is the SOAP version of a WSDL port name's binding.
func bindingVersion(binding string) core.Version {
	if binding == "soap12" {
		return core.V12
	}
	return core.V11
}
