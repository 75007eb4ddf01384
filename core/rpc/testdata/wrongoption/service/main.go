// Command service gives NewService an option of NewClient: it must not
// compile (TestWrongOptionDoesNotCompile).
package main

import (
	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/rpc"
)

func main() { _ = rpc.NewService("urn:x", "X", rpc.WithVersion(core.V12)) }
