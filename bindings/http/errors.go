package http

import (
	"fmt"
	"io"
	"net/http"
	"unicode/utf8"
)

// StatusError is a reply that is not SOAP: an HTML error page, an empty 400,
// a wrong content type.
type StatusError struct {
	Code        int    // HTTP status code
	ContentType string // the reply's Content-Type
	Body        string // the start of the reply body (at most 512 bytes)
}

func (e *StatusError) Error() string {
	s := fmt.Sprintf("http: %d %s", e.Code, http.StatusText(e.Code))
	if e.ContentType != "" {
		s += " (" + e.ContentType + ")"
	}
	if e.Body != "" {
		s += ": " + e.Body
	}
	return s
}

const snippetLen = 512

// statusError builds a StatusError from resp; head, when not nil, is what was
// already read of the body. resp.Body is drained a little and closed.
func statusError(resp *http.Response, head []byte) *StatusError {
	if head == nil {
		head, _ = io.ReadAll(io.LimitReader(resp.Body, snippetLen))
	}
	release(resp)
	if len(head) > snippetLen {
		head = head[:snippetLen]
	}
	for len(head) > 0 && !utf8.Valid(head) {
		head = head[:len(head)-1]
	}
	return &StatusError{Code: resp.StatusCode, ContentType: resp.Header.Get("Content-Type"), Body: string(head)}
}
