// Command subscribe gives Subscribe an option of NewTransport: it must not
// compile (TestWrongOptionDoesNotCompile).
package main

import (
	"context"

	soapnats "github.com/soapwire/soapwire/bindings/nats"
)

func main() { _, _ = soapnats.Subscribe(context.Background(), nil, "s", nil, soapnats.WithTimeout(1)) }
