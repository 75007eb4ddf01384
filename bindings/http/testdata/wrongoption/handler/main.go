// Command handler gives NewHandler an option of NewTransport: it must not
// compile (TestWrongOptionDoesNotCompile).
package main

import soaphttp "github.com/soapwire/soapwire/bindings/http"

func main() { _ = soaphttp.NewHandler(nil, soaphttp.WithCredentials("u", "p")) }
