// Command right gives each constructor of bindings/http every option it
// takes: it compiles (TestWrongOptionDoesNotCompile), so the refusals of the
// programs beside it come from their one wrong option.
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
