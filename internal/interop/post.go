package interop

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/soapwire/soapwire/core"
)

// Reply is what a server answered to Post.
type Reply struct {
	Status int
	Header http.Header
	Body   string
}

// Envelope returns a SOAP envelope of version v whose Body holds body (XML
// text), with the envelope namespace bound to the prefix "soap".
func Envelope(v core.Version, body string) string {
	return `<?xml version="1.0" encoding="UTF-8"?>` +
		`<soap:Envelope xmlns:soap="` + v.Namespace() + `"><soap:Body>` + body + `</soap:Body></soap:Envelope>`
}

// Post sends Envelope(v, body) to url as a client of version v does: SOAP
// 1.1 as text/xml with a quoted SOAPAction header, SOAP 1.2 as
// application/soap+xml with the action in the Content-Type. It returns the
// reply whatever its status; a request that gets no reply fails t.
func Post(t testing.TB, url string, v core.Version, action, body string) Reply {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(Envelope(v, body)))
	if err != nil {
		t.Fatalf("interop: %v", err)
	}
	if v == core.V12 {
		req.Header.Set("Content-Type", `application/soap+xml; charset=utf-8; action="`+action+`"`)
	} else {
		req.Header.Set("Content-Type", "text/xml; charset=utf-8")
		req.Header.Set("SOAPAction", `"`+action+`"`)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("interop: POST %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("interop: reading the reply of %s: %v", url, err)
	}
	return Reply{Status: resp.StatusCode, Header: resp.Header, Body: string(b)}
}
