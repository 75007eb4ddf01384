// Command server gives StartServer an option of NewReceiver: it must not
// compile (TestWrongOptionDoesNotCompile).
package main

import soapnats "github.com/soapwire/soapwire/bindings/nats"

func main() { _, _ = soapnats.StartServer("", soapnats.WithPrefetch(1)) }
