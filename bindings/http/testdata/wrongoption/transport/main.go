// Command transport gives NewTransport an option of NewHandler and
// NewServer: it must not compile (TestWrongOptionDoesNotCompile).
package main

import (
	"log/slog"

	soaphttp "github.com/soapwire/soapwire/bindings/http"
)

func main() { _ = soaphttp.NewTransport("", soaphttp.WithLogger(slog.Default())) }
