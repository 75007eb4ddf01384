// Command wrongoption gives each constructor of bindings/http the options it
// takes: it compiles. TestWrongOptionDoesNotCompile builds it alone, then
// with each wrong_*.go file, whose one line gives a constructor an option
// of another, and which must not compile.
package main

import (
	"log/slog"
	"net/http"

	soaphttp "github.com/soapwire/soapwire/bindings/http"
	"github.com/soapwire/soapwire/core"
)

var (
	h  core.Handler
	hh http.Handler
	l  *slog.Logger
)

func main() {
	_ = soaphttp.NewHandler(h, soaphttp.WithLimits(core.Limits{}), soaphttp.WithLogger(l), soaphttp.WithAuth(nil), soaphttp.WithRealm("r"),
		soaphttp.WithGet(nil), soaphttp.WithDescriber(nil), soaphttp.WithPublicURL(""))
	_ = soaphttp.NewTransport("", soaphttp.WithLimits(core.Limits{}), soaphttp.WithClient(nil), soaphttp.WithCredentials("u", "p"))
	_ = soaphttp.NewServer("", hh, soaphttp.WithLogger(l))
}
