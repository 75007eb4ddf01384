package rpc_test

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/rpc"
)

// BenchmarkServiceEcho: a 1 KB echoString through Service.ServeSOAP, from
// reading the request to writing the reply.
func BenchmarkServiceEcho(b *testing.B) {
	payload := strings.Repeat("abcdefgh", 128)
	for _, bc := range []struct {
		name  string
		style rpc.Style
		arg   string
	}{
		{"literal", rpc.DocumentLiteral, `<s>` + payload + `</s>`},
		{"encoded", rpc.RPCEncoded, `<s xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xsi:type="xsd:string">` + payload + `</s>`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			svc := newEchoService(rpc.WithStyle(bc.style))
			req := []byte(envelope(core.V11, `<m:echoString xmlns:m="urn:soapwire:echo">`+bc.arg+`</m:echoString>`))
			b.SetBytes(int64(len(req)))
			b.ReportAllocs()
			for b.Loop() {
				m, err := core.ReadMessage(bytes.NewReader(req), core.Limits{})
				if err != nil {
					b.Fatal(err)
				}
				reply, err := svc.ServeSOAP(b.Context(), m)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := reply.WriteTo(io.Discard); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
