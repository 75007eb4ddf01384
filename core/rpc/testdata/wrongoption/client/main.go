// Command client gives NewClient an option of NewService: it must not
// compile (TestWrongOptionDoesNotCompile).
package main

import (
	"log/slog"

	"github.com/soapwire/soapwire/core/rpc"
)

func main() { _ = rpc.NewClient(nil, "urn:x", rpc.WithLogger(slog.Default())) }
