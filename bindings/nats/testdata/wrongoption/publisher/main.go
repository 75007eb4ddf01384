// Command publisher gives NewPublisher an option of the constructors that
// read: it must not compile (TestWrongOptionDoesNotCompile).
package main

import (
	soapnats "github.com/soapwire/soapwire/bindings/nats"
	"github.com/soapwire/soapwire/core"
)

func main() { _, _ = soapnats.NewPublisher(nil, "s", soapnats.WithLimits(core.Limits{})) }
