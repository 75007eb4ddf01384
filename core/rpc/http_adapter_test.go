package rpc_test

import (
	"net/http"
	"strings"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/rpc"
)

// soapHTTP adapts a Service to net/http the way bindings/http does, in a
// few lines: ?wsdl, SOAPAction, and faults with 500 (1.1, 1.2 Receiver) or
// 400 (1.2 Sender).
func soapHTTP(svc *rpc.Service) http.Handler {
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
