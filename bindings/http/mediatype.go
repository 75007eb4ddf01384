package http

import (
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/soapwire/soapwire/core"
)

// contentType is what a request's Content-Type says.
type contentType struct {
	present bool
	version core.Version // 0: not a SOAP media type (a package: its type or start-info names none)
	action  string       // the 1.2 action parameter (a package's is core.ReadPackage's to take)
	charset string
	// multipart: a MIME package (multipart/related, MTOM or SwA); version
	// is then what its type or start-info parameter announces for the
	// root, the root part's own type deciding once read
	multipart bool
}

func parseContentType(h string) (contentType, bool) {
	if ct, ok := commonContentType(h); ok {
		return ct, true
	}
	return parseMediaType(h)
}

// commonContentType reads the Content-Type values SOAP clients send most
// without the MIME parser (its map and copies): what parseMediaType would
// make of them (TestCommonContentTypes).
func commonContentType(h string) (contentType, bool) {
	switch h {
	case "text/xml; charset=utf-8", "text/xml;charset=utf-8", "text/xml; charset=UTF-8", "text/xml;charset=UTF-8",
		`text/xml; charset="utf-8"`, `text/xml; charset="UTF-8"`:
		return contentType{present: true, version: core.V11, charset: "utf-8"}, true
	case "text/xml":
		return contentType{present: true, version: core.V11}, true
	case "application/soap+xml; charset=utf-8", "application/soap+xml;charset=utf-8", "application/soap+xml; charset=UTF-8",
		"application/soap+xml;charset=UTF-8", `application/soap+xml; charset="utf-8"`:
		return contentType{present: true, version: core.V12, charset: "utf-8"}, true
	case "application/soap+xml":
		return contentType{present: true, version: core.V12}, true
	}
	return contentType{}, false
}

// parseMediaType reads any Content-Type with the MIME parser.
func parseMediaType(h string) (contentType, bool) {
	if strings.TrimSpace(h) == "" {
		return contentType{}, true
	}
	mt, params, err := mime.ParseMediaType(h)
	if err == mime.ErrInvalidMediaParameter {
		// An unquoted value with characters MIME wants quoted, as in
		// action=urn:x: accept it, as SOAP peers do.
		var ok bool
		if params, ok = looseParams(h); !ok {
			return contentType{present: true}, false
		}
	} else if err != nil {
		return contentType{present: true}, false
	}
	if mt == core.MediaTypeMultipartRel {
		return packageType(params)
	}
	ct := contentType{present: true, action: params["action"], charset: strings.ToLower(params["charset"])}
	switch mt {
	case core.MediaTypeV11:
		ct.version = core.V11
	case core.MediaTypeV12:
		ct.version = core.V12
	default:
		return ct, false
	}
	switch ct.charset {
	case "", "utf-8", "utf8", "utf-16", "utf-16le", "utf-16be":
		return ct, true
	}
	return ct, false
}

// packageType reads the parameters of a multipart/related Content-Type: a
// package is served when its type is a SOAP root (application/xop+xml for
// MTOM, text/xml or application/soap+xml for SwA) or absent (the root part
// says). A missing boundary is core.ReadPackage's to refuse, with the
// Sender fault of a malformed package.
func packageType(params map[string]string) (contentType, bool) {
	ct := contentType{present: true, multipart: true}
	root := params["type"]
	if strings.EqualFold(root, core.MediaTypeXOP) {
		root = params["start-info"]
	}
	if root == "" {
		return ct, true
	}
	mt, _, err := mime.ParseMediaType(root)
	if err != nil && err != mime.ErrInvalidMediaParameter {
		return ct, false
	}
	switch strings.ToLower(mt) {
	case core.MediaTypeV11:
		ct.version = core.V11
	case core.MediaTypeV12:
		ct.version = core.V12
	default:
		return ct, false
	}
	return ct, true
}

// soapAction returns the SOAPAction header (any spelling: net/http
// canonicalizes header names), without its quotes.
func soapAction(h http.Header) string {
	return unquote(strings.TrimSpace(h.Get("SOAPAction")))
}

func unquote(s string) string {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		return s[1 : len(s)-1]
	}
	return s
}

// acceptVersion returns the version an Accept header prefers, or 0.
func acceptVersion(h string) core.Version {
	if h == "" {
		return 0
	}
	var q11, q12 float64 = -1, -1
	for _, part := range strings.Split(h, ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil && err != mime.ErrInvalidMediaParameter {
			continue
		}
		q := 1.0
		if s, ok := params["q"]; ok {
			if f, err := strconv.ParseFloat(s, 64); err == nil {
				q = f
			}
		}
		switch mt {
		case core.MediaTypeV11:
			q11 = max(q11, q)
		case core.MediaTypeV12:
			q12 = max(q12, q)
		}
	}
	switch {
	case q12 > q11 && q12 > 0:
		return core.V12
	case q11 > q12 && q11 > 0:
		return core.V11
	}
	return 0
}

// chooseVersion picks the version of a reply that no envelope decided: the
// content type's, else the Accept header's, else def.
func chooseVersion(r *http.Request, ct contentType, def core.Version) core.Version {
	if ct.version != 0 {
		return ct.version
	}
	if v := acceptVersion(r.Header.Get("Accept")); v != 0 {
		return v
	}
	return def
}

// mediaType is the Content-Type of a reply in version v.
func mediaType(v core.Version) string {
	if v == core.V12 {
		return "application/soap+xml; charset=utf-8"
	}
	return "text/xml; charset=utf-8"
}

// faultStatus is the HTTP status of a fault in version v: SOAP 1.2 Part 2
// §7.5 answers Sender faults 400 and the others 500; SOAP 1.1 answers every
// fault 500.
func faultStatus(f *core.Fault, v core.Version) int {
	if v == core.V12 && f.Code == core.CodeSender {
		return http.StatusBadRequest
	}
	return http.StatusInternalServerError
}

// looseParams splits the parameters of a media type that mime refuses:
// name=value pairs separated by semicolons, values quoted or not.
func looseParams(h string) (map[string]string, bool) {
	parts := strings.Split(h, ";")
	params := make(map[string]string, len(parts)-1)
	for _, p := range parts[1:] {
		k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
		k = strings.ToLower(strings.TrimSpace(k))
		if !ok || k == "" {
			return nil, false
		}
		params[k] = unquote(strings.TrimSpace(v))
	}
	return params, true
}
