// Command receiver gives NewReceiver an option of Subscribe: it must not
// compile (TestWrongOptionDoesNotCompile).
package main

import (
	"context"

	soapnats "github.com/soapwire/soapwire/bindings/nats"
)

func main() {
	_, _ = soapnats.NewReceiver(context.Background(), nil, "s", "d", soapnats.WithQueue("q"))
}
