package http

import (
	"context"
	"net/http"
)

type requestKey struct{}
type userKey struct{}

// RequestFromContext returns the HTTP request a handler called by NewHandler
// is serving. Its body belongs to the message: read the envelope, not it.
func RequestFromContext(ctx context.Context) (*http.Request, bool) {
	r, ok := ctx.Value(requestKey{}).(*http.Request)
	return r, ok
}

// UserFromContext returns the user authenticated by WithAuth.
func UserFromContext(ctx context.Context) (string, bool) {
	u, ok := ctx.Value(userKey{}).(string)
	return u, ok
}
