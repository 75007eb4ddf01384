// Package ratelog bounds the log lines a flood makes: a Limiter writes a
// kind of line (a message) at once, then at most one line per interval
// for the ones that follow, with their count, so that a peer sending a
// million refused requests costs the log a few lines, and every refusal
// is still in one. It is the approach of bindings/nats's dropped-request
// lines, for the refusals of the HTTP handler and the SMTP server.
package ratelog
