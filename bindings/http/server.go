package http

import (
	"log/slog"
	"net/http"
	"time"
)

// Server timeouts NewServer sets. Raise ReadTimeout and WriteTimeout on the
// returned server (or per request with http.ResponseController) for
// documents that take longer to send.
const (
	DefaultReadHeaderTimeout = 10 * time.Second
	DefaultReadTimeout       = 2 * time.Minute
	DefaultWriteTimeout      = 2 * time.Minute
	DefaultIdleTimeout       = 90 * time.Second
	DefaultMaxHeaderBytes    = 64 << 10
)

// NewServer returns an *http.Server for h listening on addr, with timeouts
// that stop slow or stalled clients from holding connections: header
// 10 s, whole request 2 min, response 2 min, idle keep-alive 90 s, and
// request headers bounded to 64 KiB. net/http's own errors go to the
// WithLogger logger (discarded by default). Adjust the fields before
// serving if these do not fit. The handler NewHandler returns bounds the
// request body's pace within ReadTimeout on its own (WithBodyTimeout).
func NewServer(addr string, h http.Handler, opts ...ServerOption) *http.Server {
	o := newServerConfig(opts)
	return &http.Server{
		Addr:              addr,
		Handler:           h,
		ReadHeaderTimeout: DefaultReadHeaderTimeout,
		ReadTimeout:       DefaultReadTimeout,
		WriteTimeout:      DefaultWriteTimeout,
		IdleTimeout:       DefaultIdleTimeout,
		MaxHeaderBytes:    DefaultMaxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(o.log.Handler(), slog.LevelWarn),
	}
}
