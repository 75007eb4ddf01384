// Command server gives NewServer an option of NewInbox: it must not compile
// (TestWrongOptionDoesNotCompile).
package main

import "github.com/soapwire/soapwire/examples/custom-binding/unixsock"

func main() { _ = unixsock.NewServer(nil, unixsock.WithMaxAttempts(2)) }
