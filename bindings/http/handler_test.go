package http_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/xml"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soaphttp "github.com/soapwire/soapwire/bindings/http"
	"github.com/soapwire/soapwire/core"
)

func utf16LE(s string) []byte {
	var b bytes.Buffer
	b.Write([]byte{0xFF, 0xFE})
	for _, u := range utf16.Encode([]rune(s)) {
		binary.Write(&b, binary.LittleEndian, u)
	}
	return b.Bytes()
}

// TestHandlerRequestShapes sends requests as real clients do and checks the
// handler saw the right action and answered in the right version.
func TestHandlerRequestShapes(t *testing.T) {
	srv := serve(t, echo)
	lax := serve(t, echo, soaphttp.WithContentTypeOptional())
	tests := []struct {
		name    string
		version core.Version
		headers map[string]string
		prolog  string
		utf16   bool
		action  string
	}{
		{"1.1 quoted SOAPAction", core.V11, map[string]string{"Content-Type": "text/xml; charset=utf-8", "SOAPAction": `"urn:echo"`}, "", false, "urn:echo"},
		{"1.1 unquoted SOAPAction", core.V11, map[string]string{"Content-Type": "text/xml", "SOAPAction": `urn:echo`}, "", false, "urn:echo"},
		{"1.1 suds Soapaction spelling", core.V11, map[string]string{"Content-Type": "text/xml; charset=utf-8", "Soapaction": `"urn:echo"`}, "", false, "urn:echo"},
		{"1.1 lower-case header name", core.V11, map[string]string{"Content-Type": "text/xml; charset=UTF-8", "soapaction": `"urn:echo"`}, "", false, "urn:echo"},
		{"1.1 spyne bare operation name", core.V11, map[string]string{"Content-Type": "text/xml; charset=utf-8", "SOAPAction": `"echoString"`}, "", false, "echoString"},
		{"1.1 empty SOAPAction", core.V11, map[string]string{"Content-Type": "text/xml; charset=utf-8", "SOAPAction": `""`}, "", false, ""},
		{"1.1 no SOAPAction", core.V11, map[string]string{"Content-Type": "text/xml"}, "", false, ""},
		{"1.1 zeep single-quoted declaration", core.V11, map[string]string{"Content-Type": "text/xml; charset=utf-8", "SOAPAction": `"urn:echo"`}, "<?xml version='1.0' encoding='utf-8'?>\n", false, "urn:echo"},
		{"1.1 UTF-16 with a byte order mark", core.V11, map[string]string{"Content-Type": "text/xml; charset=utf-16", "SOAPAction": `"urn:echo"`}, `<?xml version="1.0" encoding="UTF-16"?>`, true, "urn:echo"},
		{"1.2 node-soap action only in Content-Type", core.V12, map[string]string{"Content-Type": `application/soap+xml; charset=utf-8; action="urn:echo"`}, "", false, "urn:echo"},
		{"1.2 zeep action in both", core.V12, map[string]string{"Content-Type": `application/soap+xml; charset=utf-8; action="urn:echo"`, "SOAPAction": `"urn:echo"`}, "<?xml version='1.0' encoding='utf-8'?>", false, "urn:echo"},
		{"1.2 unquoted action parameter", core.V12, map[string]string{"Content-Type": `application/soap+xml;action=urn:echo`}, `<?xml version="1.0" encoding="UTF-8"?>` + "\n", false, "urn:echo"},
		{"1.2 no action", core.V12, map[string]string{"Content-Type": `application/soap+xml`}, "", false, ""},
		{"WithContentTypeOptional, no Content-Type: the envelope decides", core.V12, map[string]string{}, "", false, ""},
		{"WithContentTypeOptional, no Content-Type, 1.1", core.V11, map[string]string{"SOAPAction": `"urn:echo"`}, "", false, "urn:echo"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := []byte(tt.prolog + envelope(tt.version, "", echoBody))
			if tt.utf16 {
				body = utf16LE(tt.prolog + envelope(tt.version, "", echoBody))
			}
			url := srv.URL
			if strings.HasPrefix(tt.name, "WithContentTypeOptional") {
				url = lax.URL
			}
			resp, data := post(t, url, tt.headers, bytes.NewReader(body))
			require.Equal(t, http.StatusOK, resp.StatusCode, "%s", data)
			assert.Equal(t, ctype(tt.version), resp.Header.Get("Content-Type"))
			m, r := readReply(t, data)
			assert.Equal(t, tt.version, m.Version())
			assert.Equal(t, "hello", r.Return)
			assert.Equal(t, tt.action, r.Action)
		})
	}
}

func TestHandlerStatuses(t *testing.T) {
	subcode := xml.Name{Space: testNS, Local: "Sub"}
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	h := core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		switch m.Action {
		case "oneway":
			return nil, m.Body().Discard()
		case "sender":
			return nil, &core.Fault{Code: core.CodeSender, Reason: "bad input", Subcodes: []xml.Name{subcode}}
		case "receiver":
			return nil, core.ReceiverFault("down")
		case "encoding":
			return nil, &core.Fault{Code: core.CodeDataEncodingUnknown, Reason: "unknown encoding"}
		case "plain":
			return nil, errors.New("secret internal detail")
		case "panic":
			panic("handler bug")
		case "faultreply":
			return m.FaultReply(core.SenderFault("as a reply")), nil
		}
		return echo(ctx, m)
	})
	node := &core.Node{URI: "urn:node", Handler: h}
	srv := serve(t, node, soaphttp.WithLogger(log), soaphttp.WithLimits(core.Limits{MaxBytes: 4096}))
	lax := serve(t, node, soaphttp.WithLogger(log), soaphttp.WithLimits(core.Limits{MaxBytes: 4096}), soaphttp.WithContentTypeOptional())
	mustUnderstand := func(v core.Version) string {
		attr := `soap-env:mustUnderstand="1"`
		return `<x:Unknown xmlns:x="urn:x" ` + attr + `/>`
	}
	big := envelope(core.V11, "", `<t:echoString xmlns:t="`+testNS+`"><message>`+strings.Repeat("x", 8192)+`</message></t:echoString>`)
	tests := []struct {
		name    string
		ct      string
		action  string
		body    string
		chunked bool
		accept  string
		status  int
		version core.Version // of the fault; 0: no fault body
		code    core.Code
		reason  string
		upgrade bool
		plain   bool // a non-SOAP body
		emptyOK bool
		lax     bool // to the handler WithContentTypeOptional
	}{
		{name: "1.1 one-way", ct: "text/xml", action: "oneway", body: envelope(core.V11, "", echoBody), status: 202, emptyOK: true},
		{name: "1.2 one-way", ct: "application/soap+xml", action: "oneway", body: envelope(core.V12, "", echoBody), status: 202, emptyOK: true},
		{name: "1.1 Client fault is 500", ct: "text/xml", action: "sender", body: envelope(core.V11, "", echoBody), status: 500, version: core.V11, code: core.CodeSender, reason: "bad input"},
		{name: "1.2 Sender fault is 400", ct: "application/soap+xml", action: "sender", body: envelope(core.V12, "", echoBody), status: 400, version: core.V12, code: core.CodeSender, reason: "bad input"},
		{name: "1.1 Server fault is 500", ct: "text/xml", action: "receiver", body: envelope(core.V11, "", echoBody), status: 500, version: core.V11, code: core.CodeReceiver, reason: "down"},
		{name: "1.2 Receiver fault is 500", ct: "application/soap+xml", action: "receiver", body: envelope(core.V12, "", echoBody), status: 500, version: core.V12, code: core.CodeReceiver, reason: "down"},
		{name: "1.2 DataEncodingUnknown is 500", ct: "application/soap+xml", action: "encoding", body: envelope(core.V12, "", echoBody), status: 500, version: core.V12, code: core.CodeDataEncodingUnknown},
		{name: "1.2 fault returned as a reply is 400", ct: "application/soap+xml", action: "faultreply", body: envelope(core.V12, "", echoBody), status: 400, version: core.V12, code: core.CodeSender},
		{name: "1.1 MustUnderstand is 500", ct: "text/xml", body: envelope(core.V11, mustUnderstand(core.V11), echoBody), status: 500, version: core.V11, code: core.CodeMustUnderstand},
		{name: "1.2 MustUnderstand is 500", ct: "application/soap+xml", body: envelope(core.V12, mustUnderstand(core.V12), echoBody), status: 500, version: core.V12, code: core.CodeMustUnderstand},
		{name: "plain error hides its text", ct: "text/xml", action: "plain", body: envelope(core.V11, "", echoBody), status: 500, version: core.V11, code: core.CodeReceiver, reason: core.InternalErrorReason},
		{name: "panic is a Receiver fault", ct: "application/soap+xml", action: "panic", body: envelope(core.V12, "", echoBody), status: 500, version: core.V12, code: core.CodeReceiver, reason: core.InternalErrorReason},
		{name: "VersionMismatch in 1.2 with Upgrade", ct: "application/soap+xml", body: envelope(0, "", echoBody), status: 500, version: core.V12, code: core.CodeVersionMismatch, upgrade: true},
		{lax: true, name: "WithContentTypeOptional: VersionMismatch without a content type is 1.2", body: envelope(0, "", echoBody), status: 500, version: core.V12, code: core.CodeVersionMismatch, upgrade: true},
		{name: "VersionMismatch sent as text/xml is 1.1", ct: "text/xml", body: envelope(0, "", echoBody), status: 500, version: core.V11, code: core.CodeVersionMismatch},
		{name: "text/xml with a 1.2 envelope is a 1.1 VersionMismatch", ct: "text/xml", body: envelope(core.V12, "", echoBody), status: 500, version: core.V11, code: core.CodeVersionMismatch},
		{name: "application/soap+xml with a 1.1 envelope is a 1.2 VersionMismatch", ct: "application/soap+xml", body: envelope(core.V11, "", echoBody), status: 500, version: core.V12, code: core.CodeVersionMismatch, upgrade: true},
		{lax: true, name: "WithContentTypeOptional: VersionMismatch, no Content-Type, Accept text/xml is 1.1", accept: "text/xml", body: envelope(0, "", echoBody), status: 500, version: core.V11, code: core.CodeVersionMismatch},
		{name: "1.2 not XML is a Sender fault", ct: "application/soap+xml", body: "this is not XML", status: 400, version: core.V12, code: core.CodeSender},
		{name: "1.1 not XML is a Client fault", ct: "text/xml", body: "{\"json\": true}", status: 500, version: core.V11, code: core.CodeSender},
		{lax: true, name: "WithContentTypeOptional: not XML without a Content-Type is an empty 400", body: "{\"json\": true}", status: 400, emptyOK: true},
		{lax: true, name: "WithContentTypeOptional: empty without a Content-Type is an empty 400", body: "", status: 400, emptyOK: true},
		{name: "1.1 empty body is a Client fault", ct: "text/xml", body: "", status: 500, version: core.V11, code: core.CodeSender},
		{name: "1.2 empty body is a Sender fault", ct: "application/soap+xml", body: "", status: 400, version: core.V12, code: core.CodeSender},
		{name: "root not an Envelope is a Client fault", ct: "text/xml", body: `<order xmlns="urn:x"><id>1</id></order>`, status: 500, version: core.V11, code: core.CodeSender},
		{name: "1.2 DOCTYPE before the Envelope is a Sender fault", ct: "application/soap+xml", body: `<!DOCTYPE x [<!ENTITY a "b">]>` + envelope(core.V12, "", echoBody), status: 400, version: core.V12, code: core.CodeSender},
		{name: "1.1 DOCTYPE before the Envelope is a Client fault", ct: "text/xml", body: `<!DOCTYPE x>` + envelope(core.V11, "", echoBody), status: 500, version: core.V11, code: core.CodeSender},
		{name: "1.2 processing instruction before the Envelope is a Sender fault", ct: "application/soap+xml", body: `<?pi x?>` + envelope(core.V12, "", echoBody), status: 400, version: core.V12, code: core.CodeSender},
		{name: "1.1 unsupported declared encoding is a Client fault", ct: "text/xml", body: `<?xml version="1.0" encoding="ISO-8859-1"?>` + envelope(core.V11, "", echoBody), status: 500, version: core.V11, code: core.CodeSender},
		{name: "1.2 UTF-32 is a Sender fault", ct: "application/soap+xml", body: "\x00\x00\xfe\xff\x00\x00\x00<", status: 400, version: core.V12, code: core.CodeSender},
		{name: "1.1 malformed envelope is a Client fault", ct: "text/xml", body: envelope(core.V11, "", `<a:b/>`), status: 500, version: core.V11, code: core.CodeSender},
		{name: "1.2 malformed envelope is a Sender fault", ct: "application/soap+xml", body: envelope(core.V12, "", `<a:b/>`), status: 400, version: core.V12, code: core.CodeSender},
		{name: "1.2 processing instruction in the envelope", ct: "application/soap+xml", body: envelope(core.V12, "<?pi x?>", echoBody), status: 400, version: core.V12, code: core.CodeSender},
		{name: "no Content-Type is 415", body: envelope(core.V11, "", echoBody), status: 415, plain: true},
		{name: "no Content-Type, 1.2, is 415", body: envelope(core.V12, "", echoBody), status: 415, plain: true},
		{name: "no Content-Type, not SOAP, is 415", body: "{}", status: 415, plain: true},
		{name: "json is 415", ct: "application/json", body: `{}`, status: 415, plain: true},
		{name: "application/xml is 415", ct: "application/xml", body: envelope(core.V11, "", echoBody), status: 415, plain: true},
		{name: "ISO-8859-1 is 415", ct: "text/xml; charset=iso-8859-1", body: envelope(core.V11, "", echoBody), status: 415, plain: true},
		{name: "malformed content type is 415", ct: "text/xml; charset", body: envelope(core.V11, "", echoBody), status: 415, plain: true},
		{name: "over the limit with a Content-Length is 413", ct: "text/xml", body: big, status: 413, version: core.V11, code: core.CodeSender},
		{name: "over the limit chunked is 413", ct: "text/xml", body: big, chunked: true, status: 413, version: core.V11, code: core.CodeSender},
		{lax: true, name: "WithContentTypeOptional: over the limit, no Content-Type, Accept picks 1.2", accept: "application/soap+xml", body: big, status: 413, version: core.V12, code: core.CodeSender},
		{lax: true, name: "WithContentTypeOptional: over the limit, no Content-Type, Accept prefers 1.1", accept: "application/soap+xml;q=0.4, text/xml", body: big, status: 413, version: core.V11, code: core.CodeSender},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var body = strings.NewReader(tt.body)
			url := srv.URL
			if tt.lax {
				url = lax.URL
			}
			req, err := http.NewRequest(http.MethodPost, url, body)
			require.NoError(t, err)
			if tt.chunked {
				req.ContentLength = -1
				req.Body = struct {
					*strings.Reader
					noClose
				}{body, noClose{}}
			}
			if tt.ct != "" {
				req.Header.Set("Content-Type", tt.ct)
			}
			if tt.action != "" {
				req.Header.Set("SOAPAction", `"`+tt.action+`"`)
			}
			if tt.accept != "" {
				req.Header.Set("Accept", tt.accept)
			}
			resp, data := do(t, req)
			require.Equal(t, tt.status, resp.StatusCode, "%s", data)
			switch {
			case tt.emptyOK:
				assert.Empty(t, data)
				return
			case tt.plain:
				assert.NotContains(t, resp.Header.Get("Content-Type"), "xml")
				return
			}
			assert.Equal(t, ctype(tt.version), resp.Header.Get("Content-Type"))
			m, f := readFault(t, data)
			assert.Equal(t, tt.version, m.Version())
			assert.Equal(t, tt.code, f.Code, "%s", data)
			if tt.reason != "" {
				assert.Equal(t, tt.reason, f.Reason)
			}
			assert.NotContains(t, string(data), "secret internal detail")
			assert.NotContains(t, string(data), "handler bug")
			if tt.upgrade {
				assert.Contains(t, string(data), "Upgrade")
				assert.Contains(t, string(data), core.NamespaceV11)
			}
		})
	}
	assert.Contains(t, logs.String(), "handler bug", "the panic is logged")
}

type noClose struct{}

func (noClose) Close() error { return nil }

func TestHandlerMethods(t *testing.T) {
	srv := serve(t, echo)
	for _, method := range []string{http.MethodGet, http.MethodPut, http.MethodDelete, http.MethodHead, http.MethodOptions} {
		t.Run(method, func(t *testing.T) {
			req, err := http.NewRequest(method, srv.URL, nil)
			require.NoError(t, err)
			resp, _ := do(t, req)
			assert.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)
			assert.Equal(t, "POST", resp.Header.Get("Allow"))
		})
	}
}

func TestHandlerActionMismatch(t *testing.T) {
	srv := serve(t, echo)
	wsa := func(action string) string {
		return `<wsa:Action xmlns:wsa="` + core.NamespaceAddressing + `">` + action + `</wsa:Action><wsa:MessageID xmlns:wsa="` + core.NamespaceAddressing + `">urn:uuid:1</wsa:MessageID>`
	}
	tests := []struct {
		name     string
		version  core.Version
		ct       string
		action   string
		status   int
		want     string // the action the handler saw
		mismatch bool
	}{
		{"1.1 same action", core.V11, "text/xml", `"urn:a"`, 200, "urn:a", false},
		{"1.1 empty SOAPAction takes wsa:Action", core.V11, "text/xml", `""`, 200, "urn:a", false},
		{"1.1 different SOAPAction", core.V11, "text/xml", `"urn:b"`, 500, "", true},
		{"1.2 same action parameter", core.V12, `application/soap+xml; action="urn:a"`, "", 200, "urn:a", false},
		{"1.2 different action parameter", core.V12, `application/soap+xml; action="urn:b"`, "", 400, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			headers := map[string]string{"Content-Type": tt.ct}
			if tt.action != "" {
				headers["SOAPAction"] = tt.action
			}
			resp, data := post(t, srv.URL, headers, strings.NewReader(envelope(tt.version, wsa("urn:a"), echoBody)))
			require.Equal(t, tt.status, resp.StatusCode, "%s", data)
			if !tt.mismatch {
				m, r := readReply(t, data)
				assert.Equal(t, tt.want, r.Action)
				assert.Equal(t, "urn:uuid:1", m.RelatesTo)
				return
			}
			m, f := readFault(t, data)
			assert.Equal(t, core.CodeSender, f.Code)
			assert.Equal(t, "urn:uuid:1", m.RelatesTo)
			assert.True(t, f.HasSubcode(xml.Name{Space: core.NamespaceAddressing, Local: "ActionMismatch"}), "%s", data)
			if tt.version == core.V11 {
				assert.Contains(t, string(data), `>wsa:ActionMismatch</faultcode>`)
			}
			assert.Contains(t, string(f.Detail), "ProblemAction")
		})
	}
}

func TestHandlerMetaAndContext(t *testing.T) {
	type seen struct {
		meta map[string]string
		req  *http.Request
	}
	got := make(chan seen, 1)
	h := core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		r, _ := soaphttp.RequestFromContext(ctx)
		got <- seen{meta: m.Meta, req: r}
		return nil, m.Body().Discard()
	})
	srv := serve(t, h)
	resp, _ := post(t, srv.URL+"/svc/echo", map[string]string{"Content-Type": "text/xml", "X-Trace": "abc"}, strings.NewReader(envelope(core.V11, "", echoBody)))
	require.Equal(t, http.StatusAccepted, resp.StatusCode)
	s := <-got
	assert.Equal(t, "POST", s.meta["http.method"])
	assert.Equal(t, "/svc/echo", s.meta["http.path"])
	assert.NotEmpty(t, s.meta["http.remote-addr"])
	assert.NotContains(t, s.meta, "http.user")
	require.NotNil(t, s.req)
	assert.Equal(t, "abc", s.req.Header.Get("X-Trace"))
}

// TestCommonContentTypes: the Content-Type values the handler reads without
// the MIME parser give what the parser gives; others go to the parser.
func TestCommonContentTypes(t *testing.T) {
	for _, h := range []string{
		"text/xml; charset=utf-8", "text/xml;charset=utf-8", "text/xml; charset=UTF-8", "text/xml;charset=UTF-8",
		`text/xml; charset="utf-8"`, `text/xml; charset="UTF-8"`, "text/xml",
		"application/soap+xml; charset=utf-8", "application/soap+xml;charset=utf-8", "application/soap+xml; charset=UTF-8",
		"application/soap+xml;charset=UTF-8", `application/soap+xml; charset="utf-8"`, "application/soap+xml",
	} {
		fast, parsed := soaphttp.ContentTypeOf(h)
		assert.NotEmpty(t, fast, "%q is read by the fast path", h)
		assert.Equal(t, parsed, fast, "%q", h)
	}
	for _, h := range []string{"text/xml; charset=iso-8859-1", `application/soap+xml; action="urn:a"`, "TEXT/XML", "text/plain", ""} {
		fast, _ := soaphttp.ContentTypeOf(h)
		assert.Empty(t, fast, "%q is left to the MIME parser", h)
	}
}
