package nats_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/nats-io/nats.go"

	soapnats "github.com/soapwire/soapwire/bindings/nats"
	"github.com/soapwire/soapwire/core"
)

// FuzzDecode feeds Decode (what Subscribe and Receiver run on every
// message) arbitrary payloads and header values. It must never panic; a
// refusal is a Sender (or VersionMismatch) *core.Fault with a version and a
// reason; what it accepts, Encode writes and Decode reads back the same.
func FuzzDecode(f *testing.F) {
	env11 := string(envelope(core.V11, "", string(body("ping", "x"))))
	env12 := string(envelope(core.V12, "", string(body("ping", "x"))))
	wsa := string(addressed(core.V12, "urn:a", "urn:uuid:1", "nats:svc"))
	seeds := []struct{ data, ct, action, id, target string }{
		{env11, ct11, `"urn:a"`, "", ""},
		{env12, ct12 + `; action="urn:a"`, "urn:a", "urn:uuid:9", "nats:svc"},
		{env12, ct12 + `; action=urn:a:b`, "", "", ""},
		{env12, ct11, "", "", ""},
		{env11, "", "", "", ""},
		{env11, "text/xml; ; =", "", "", ""},
		{env11, "text/xml; charset=latin1", "", "", ""},
		{env12, `application/soap+xml; action="a\"b"; action=c`, "x", "", ""},
		{wsa, ct12, "urn:a", "urn:uuid:1", "nats:svc"},
		{wsa, ct12, "urn:b", "urn:uuid:2", "nats:other"},
		{"", ct11, "", "", ""},
		{"<x/>", ct11, "", "", ""},
		{`<s:Envelope xmlns:s="urn:wrong"><s:Body/></s:Envelope>`, ct12, "", "", ""},
		{"\xef\xbb\xbf" + env11, "text/xml; charset=UTF-8", "", "", ""},
		// packages (issue 25): MTOM with an include, SwA, no boundary, never
		// closed, an external-body part naming a bucket (refused: Decode
		// reads no object store, the part stays as it is)
		{"--b\r\nContent-ID: <r>\r\nContent-Type: application/xop+xml; type=\"text/xml\"\r\n\r\n" +
			`<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><x><xop:Include xmlns:xop="http://www.w3.org/2004/08/xop/include" href="cid:p"/></x></s:Body></s:Envelope>` +
			"\r\n--b\r\nContent-ID: <p>\r\nContent-Type: application/octet-stream\r\n\r\nPNG\r\n--b--\r\n",
			`multipart/related; type="application/xop+xml"; start="<r>"; start-info="text/xml"; boundary=b`, `"urn:a"`, "", ""},
		{"--b\r\nContent-Type: text/xml\r\n\r\n" + env11 + "\r\n--b\r\nContent-ID: <p>\r\n\r\nxyz\r\n--b--\r\n", `multipart/related; type="text/xml"; boundary=b`, "", "", ""},
		{env11, `multipart/related; type="text/xml"`, "", "", ""},
		{"--b\r\nContent-Type: text/xml\r\n\r\n" + env11 + "\r\n--b\r\nContent-Type: a/b\r\n\r\nxyz", `multipart/related; type="text/xml"; boundary=b`, "", "", ""},
		{"--b\r\nContent-Type: text/xml\r\n\r\n" + env11 + "\r\n--b\r\nContent-ID: <p>\r\nContent-Type: message/external-body; access-type=x-nats-object; bucket=B; name=n\r\n\r\nContent-Type: a/b\r\n\r\n\r\n--b--\r\n", `multipart/related; type="text/xml"; boundary=b`, "", "", ""},
	}
	for _, s := range seeds {
		f.Add([]byte(s.data), s.ct, s.action, s.id, s.target)
	}
	f.Fuzz(func(t *testing.T, data []byte, ct, action, id, target string) {
		h := nats.Header{}
		for k, v := range map[string]string{"Content-Type": ct, "SOAPAction": action, "Nats-Msg-Id": id, "SOAP-Target-Service": target} {
			if v != "" {
				h[k] = []string{v}
			}
		}
		m, err := soapnats.Decode(&nats.Msg{Subject: "fuzz", Header: h, Data: data}, core.Limits{})
		if err != nil {
			var fault *core.Fault
			if !errors.As(err, &fault) {
				t.Fatalf("a refusal that is not a fault: %v", err)
			}
			if fault.Code != core.CodeSender && fault.Code != core.CodeVersionMismatch {
				t.Fatalf("refusal code %v: %v", fault.Code, fault)
			}
			if fault.Version != core.V11 && fault.Version != core.V12 {
				t.Fatalf("refusal without a version: %v", fault)
			}
			if fault.Reason == "" {
				t.Fatalf("refusal without a reason: %#v", fault)
			}
			return
		}
		if m == nil || (m.Version() != core.V11 && m.Version() != core.V12) {
			t.Fatalf("accepted without a message or version: %v", m)
		}
		defer m.Close()
		out, err := soapnats.Encode(m, "fuzz.back", 0)
		if err != nil {
			if errors.Is(err, soapnats.ErrBadHeader) {
				return
			}
			var fault *core.Fault
			if errors.As(err, &fault) {
				return // the lazily read body was refused while copying
			}
			t.Fatalf("Encode of an accepted message: %v", err)
		}
		back, err := soapnats.Decode(out, core.Limits{})
		if back != nil {
			defer back.Close()
		}
		if err != nil {
			t.Fatalf("what Encode wrote, Decode refused: %v\nheaders %v\n%s", err, out.Header, out.Data)
		}
		wantTo := m.To
		if wantTo == "" {
			wantTo = "nats:fuzz.back" // the target service: where it was sent
		}
		if back.Version() != m.Version() || back.Action != m.Action || back.ID != m.ID || back.To != wantTo {
			t.Fatalf("round trip changed the message: %v %q %q %q → %v %q %q %q",
				m.Version(), m.Action, m.ID, m.To, back.Version(), back.Action, back.ID, back.To)
		}
	})
}

// FuzzParseAddress: never a panic; an accepted address prints as an
// address that parses to the same thing.
func FuzzParseAddress(f *testing.F) {
	for _, s := range []string{"nats:a", "nats:orders.new?stream=ORDERS", "NATS:a.*.>", "a.b", "nats://h/a",
		"nats:a?stream=", "nats:a?x=1", "nats:a..b", "nats:>.a", "nats:a b", "nats:a?stream=S&stream=T", "mailto:x@y", "nats:ä.ö"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := soapnats.ParseAddress(s)
		if err != nil {
			if !errors.Is(err, soapnats.ErrAddress) {
				t.Fatalf("error without ErrAddress: %v", err)
			}
			return
		}
		if a.Subject == "" || strings.ContainsAny(a.Subject, " \t\r\n?") {
			t.Fatalf("accepted subject %q", a.Subject)
		}
		b, err := soapnats.ParseAddress(a.String())
		if err != nil || b != a {
			t.Fatalf("%q → %v → %q → %v, %v", s, a, a.String(), b, err)
		}
	})
}
