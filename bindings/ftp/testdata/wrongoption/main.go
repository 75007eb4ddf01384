// Options given to constructors that do not take them: each line must be
// refused by the compiler (TestWrongOptionDoesNotCompile).
package main

import (
	"time"

	soapftp "github.com/soapwire/soapwire/bindings/ftp"
)

func main() {
	c := soapftp.NewClient("127.0.0.1:21", "user", "pass", soapftp.WithLease(time.Minute))
	_ = soapftp.NewSender(c, soapftp.WithTLS(nil))
	_, _ = soapftp.NewPoller(c, "/orders", soapftp.WithIOTimeout(time.Second))
	_, _ = soapftp.StartServer("root", "user", "pass", soapftp.WithPollInterval(time.Second))
}
