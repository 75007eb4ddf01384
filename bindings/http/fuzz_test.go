package http_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	soaphttp "github.com/soapwire/soapwire/bindings/http"
	"github.com/soapwire/soapwire/core"
)

// FuzzHandler sends arbitrary POSTs (Content-Type, SOAPAction, Accept,
// Authorization, body) to NewHandler and checks every answer is one the
// package documents: a known status, and for a SOAP content type an
// envelope of that version, a fault unless the status is 200.
func FuzzHandler(f *testing.F) {
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	for _, s := range []struct{ ct, action, accept, auth, body string }{
		{"text/xml; charset=utf-8", `"urn:echo"`, "", "Basic " + b64("u:p"), envelope(core.V11, "", echoBody)},
		{`application/soap+xml; action="urn:echo"`, "", "", "Basic " + b64("u:p"), envelope(core.V12, "", echoBody)},
		{"application/soap+xml;action=urn:x", `"urn:y"`, "text/xml", "Basic " + b64("u:p"), envelope(core.V12, `<wsa:Action xmlns:wsa="http://www.w3.org/2005/08/addressing">urn:z</wsa:Action>`, echoBody)},
		{"", "", "application/soap+xml", "Basic " + b64("u:p"), envelope(0, "", echoBody)},
		{"text/xml", "oneway", "", "Basic " + b64("u:p"), envelope(core.V11, "", echoBody)},
		{"text/xml", "fault", "", "Basic " + b64("u:p"), envelope(core.V11, "", echoBody)},
		{"application/soap+xml", "fault", "", "Basic " + b64("u:p"), envelope(core.V12, `<x:h xmlns:x="urn:x" soap-env:mustUnderstand="true"/>`, echoBody)},
		{"text/xml; charset=utf-16", "", "", "Basic " + b64("u:p"), string(utf16LE(envelope(core.V11, "", echoBody)))},
		{"text/xml", "", "", "Basic " + b64("u:\x00p"), envelope(core.V11, "", echoBody)},
		{"text/xml", "", "", "Basic !!", envelope(core.V11, "", echoBody)},
		{"text/xml", "", "", "", envelope(core.V11, "", echoBody)},
		{"application/json", "", "", "Basic " + b64("u:p"), "{}"},
		{"text/xml; charset", "", "", "Basic " + b64("u:p"), "<"},
		{"text/xml", "", "", "Basic " + b64("u:p"), ""},
		{"application/soap+xml", "", "", "Basic " + b64("u:p"), strings.Repeat("<a>", 100)},
		{"application/soap+xml", "", "", "Basic " + b64("u:p"), envelope(core.V12, "", `<t:echoString xmlns:t="urn:soapwire:test"><message>`+strings.Repeat("x", 5000)+`</message></t:echoString>`)},
	} {
		f.Add(s.ct, s.action, s.accept, s.auth, []byte(s.body))
	}
	// MIME packages (MTOM, SwA): whole, without a boundary, never closed
	inc := `<t:echoString xmlns:t="urn:soapwire:test"><message><xop:Include xmlns:xop="http://www.w3.org/2004/08/xop/include" href="cid:p1@x"/></message></t:echoString>`
	mtom := attPackage("b", core.V11, `application/xop+xml; type="text/xml"`, inc, [3]string{"p1@x", "text/plain", "hello"})
	swa := attPackage("b", core.V12, `application/soap+xml; action="urn:echo"`, echoBody, [3]string{"p1@x", "image/png", "\x89PNG"})
	for _, s := range []struct{ ct, body string }{
		{`multipart/related; type="application/xop+xml"; start="<root@x>"; start-info="text/xml"; boundary="b"`, mtom},
		{`multipart/related; type="application/soap+xml"; start="<root@x>"; boundary=b`, swa},
		{`multipart/related; type="application/xop+xml"; start-info="text/xml"`, mtom},
		{`multipart/related; type="text/xml"; boundary="b"`, mtom[:len(mtom)-8]},
	} {
		f.Add(s.ct, "", "", "Basic "+b64("u:p"), []byte(s.body))
	}
	h := core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		switch m.Action {
		case "oneway":
			return nil, m.Body().Discard()
		case "fault":
			return nil, core.SenderFault("refused")
		}
		// stream the request body back, so body errors surface while the
		// reply is written
		return m.Reply(core.StreamBody(m.Body().Name(), func(w io.Writer) error {
			_, err := m.Body().WriteTo(w)
			return err
		})), nil
	})
	srv := soaphttp.NewHandler(h,
		soaphttp.WithLimits(core.Limits{MaxBytes: 4096}),
		soaphttp.WithAuth(soaphttp.StaticCredentials(map[string]string{"u": "p"})))
	f.Fuzz(func(t *testing.T, ct, action, accept, auth string, body []byte) {
		req := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
		for k, v := range map[string]string{"Content-Type": ct, "SOAPAction": action, "Accept": accept, "Authorization": auth} {
			if v != "" {
				req.Header.Set(k, v)
			}
		}
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		resp := rec.Result()
		data := rec.Body.Bytes()
		switch resp.StatusCode {
		case 200, 202, 400, 401, 413, 415, 500:
		default:
			t.Fatalf("status %d", resp.StatusCode)
		}
		mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
		if resp.StatusCode == 202 || (resp.StatusCode == 400 && len(data) == 0) {
			if len(data) != 0 {
				t.Fatalf("%d with a body: %q", resp.StatusCode, data)
			}
			return
		}
		if mt != core.MediaTypeV11 && mt != core.MediaTypeV12 {
			if resp.StatusCode != 415 {
				t.Fatalf("%d as %q: %q", resp.StatusCode, mt, data)
			}
			return
		}
		if cl := resp.Header.Get("Content-Length"); cl != "" && cl != strconv.Itoa(len(data)) {
			t.Fatalf("Content-Length %s for %d bytes", cl, len(data))
		}
		m, err := core.ReadMessage(bytes.NewReader(data), core.Limits{})
		if err != nil {
			t.Fatalf("%d reply is not an envelope: %v\n%s", resp.StatusCode, err, data)
		}
		if want := map[string]core.Version{core.MediaTypeV11: core.V11, core.MediaTypeV12: core.V12}[mt]; m.Version() != want {
			t.Fatalf("a %s envelope sent as %s", m.Version(), mt)
		}
		if err := m.Body().Discard(); err != nil {
			t.Fatalf("reply body: %v\n%s", err, data)
		}
		if fault := m.Fault(); (fault == nil) != (resp.StatusCode == 200) {
			t.Fatalf("status %d with fault %v", resp.StatusCode, fault)
		}
	})
}

// replyRoundTripper answers every request with a fixed response: the
// fuzzer's reply, without a server in between.
type replyRoundTripper struct {
	status int
	ct     string
	body   []byte
}

func (r replyRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		io.Copy(io.Discard, req.Body)
		req.Body.Close()
	}
	h := http.Header{}
	if r.ct != "" {
		h.Set("Content-Type", r.ct)
	}
	return &http.Response{
		StatusCode:    r.status,
		Header:        h,
		Body:          io.NopCloser(bytes.NewReader(r.body)),
		ContentLength: int64(len(r.body)),
		Request:       req,
	}, nil
}

// FuzzTransportReply feeds arbitrary replies (status, Content-Type, body)
// to Transport.RoundTrip: it must return a reply or an error, never both,
// and errors are faults, StatusErrors or reading errors, never a panic.
func FuzzTransportReply(f *testing.F) {
	ok := envelope(core.V11, "", `<t:r xmlns:t="urn:t">x</t:r>`)
	fault11 := envelope(core.V11, "", `<soap-env:Fault><faultcode>soap-env:Client</faultcode><faultstring>no</faultstring></soap-env:Fault>`)
	fault12 := envelope(core.V12, "", `<soap-env:Fault><soap-env:Code><soap-env:Value>soap-env:Sender</soap-env:Value></soap-env:Code><soap-env:Reason><soap-env:Text xml:lang="en">no</soap-env:Text></soap-env:Reason></soap-env:Fault>`)
	for _, s := range []struct {
		status int
		ct     string
		body   string
	}{
		{200, "text/xml; charset=utf-8", ok},
		{500, "text/xml", fault11},
		{400, "application/soap+xml", fault12},
		{200, "application/soap+xml", fault12},
		{202, "", ""},
		{204, "text/xml", ""},
		{200, "text/xml", ""},
		{400, "", ""},
		{500, "text/html", "<html><body>error</body></html>"},
		{500, "text/xml", "not xml"},
		{200, "application/json", `{"a":1}`},
		{301, "text/xml", ok},
		{200, "text/xml", ok[:40]},
		{200, "text/xml; charset", ok},
		{200, `multipart/related; type="application/xop+xml"; start="<root@x>"; start-info="text/xml"; boundary="b"`,
			attPackage("b", core.V11, `application/xop+xml; type="text/xml"`, `<t:r xmlns:t="urn:t"><xop:Include xmlns:xop="http://www.w3.org/2004/08/xop/include" href="cid:p1@x"/></t:r>`, [3]string{"p1@x", "text/plain", "x"})},
		{500, `multipart/related; type="text/xml"; boundary="b"`, attPackage("b", core.V11, "text/xml", `<soap-env:Fault><faultcode>soap-env:Client</faultcode><faultstring>no</faultstring></soap-env:Fault>`)},
		{200, `multipart/related; type="text/xml"`, "--b--"},
	} {
		f.Add(s.status, s.ct, []byte(s.body))
	}
	f.Fuzz(func(t *testing.T, status int, ct string, body []byte) {
		if status < 100 || status > 999 {
			return
		}
		tr := soaphttp.NewTransport("http://127.0.0.1/",
			soaphttp.WithClient(&http.Client{Transport: replyRoundTripper{status, ct, body}}),
			soaphttp.WithLimits(core.Limits{MaxBytes: 1 << 20}))
		reply, err := tr.RoundTrip(context.Background(), core.NewMessage(core.V11, core.RawBody([]byte(echoBody))))
		if reply != nil && err != nil {
			t.Fatalf("both a reply and %v", err)
		}
		if reply != nil {
			if reply.Fault() != nil {
				t.Fatal("a fault came back as a reply")
			}
			_ = reply.Body().Discard()
			if err := reply.Close(); err != nil {
				t.Fatalf("closing the reply: %v", err)
			}
		}
		if f := core.FaultOf(err); err != nil && f.Remote && f.Cause == nil {
			t.Fatal("a remote fault without its HTTP status")
		}
	})
}
