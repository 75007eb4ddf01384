// Options given to constructors that do not take them: each line must be
// refused by the compiler (TestWrongOptionDoesNotCompile).
package main

import (
	"time"

	soapsftp "github.com/soapwire/soapwire/bindings/sftp"
)

func main() {
	c := soapsftp.NewClient("127.0.0.1:22", "user", soapsftp.WithLease(time.Minute))
	_ = soapsftp.NewSender(c, soapsftp.WithPassword("x"))
	_, _ = soapsftp.NewPoller(c, "/orders", soapsftp.WithIOTimeout(time.Second))
	_, _ = soapsftp.StartServer("root", "user", soapsftp.WithKeepAlive(time.Second))
}
