// Command server gives NewServer an option of NewHandler and NewTransport:
// it must not compile (TestWrongOptionDoesNotCompile).
package main

import (
	soaphttp "github.com/soapwire/soapwire/bindings/http"
	"github.com/soapwire/soapwire/core"
)

func main() { _ = soaphttp.NewServer("", nil, soaphttp.WithLimits(core.Limits{})) }
