// Command transport gives NewTransport an option of the Server and the
// Inbox: it must not compile (TestWrongOptionDoesNotCompile).
package main

import (
	"log/slog"

	"github.com/soapwire/soapwire/examples/custom-binding/unixsock"
)

func main() { _ = unixsock.NewTransport("", unixsock.WithLogger(slog.Default())) }
