// Command transport gives NewTransport an option of Subscribe: it must not
// compile (TestWrongOptionDoesNotCompile).
package main

import soapnats "github.com/soapwire/soapwire/bindings/nats"

func main() { _ = soapnats.NewTransport(nil, "s", soapnats.WithConcurrency(1)) }
