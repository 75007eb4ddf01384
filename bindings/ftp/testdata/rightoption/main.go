// Each constructor with options it takes, the shared ones included: this
// must compile (TestWrongOptionDoesNotCompile).
package main

import (
	"crypto/tls"
	"log/slog"
	"time"

	soapftp "github.com/soapwire/soapwire/bindings/ftp"
	"github.com/soapwire/soapwire/core"
)

func main() {
	log := slog.Default()
	_, _ = soapftp.StartServer("root", "user", "pass", soapftp.WithLogger(log), soapftp.WithTLS(&tls.Config{}),
		soapftp.WithListenAddr("127.0.0.1:0"))
	c := soapftp.NewClient("127.0.0.1:21", "user", "pass", soapftp.WithLogger(log), soapftp.WithTLS(&tls.Config{}),
		soapftp.WithPoolSize(2), soapftp.WithDialTimeout(time.Second), soapftp.WithIOTimeout(time.Second), soapftp.WithEPSV(false))
	_ = soapftp.NewSender(c, soapftp.WithLogger(log))
	_, _ = soapftp.NewPoller(c, "/orders", soapftp.WithLogger(log), soapftp.WithLayout(soapftp.DefaultLayout()),
		soapftp.WithPollInterval(time.Second), soapftp.WithMaxPollInterval(time.Minute), soapftp.WithSettle(time.Second),
		soapftp.WithLease(time.Minute), soapftp.WithLimits(core.Limits{}), soapftp.WithSpool(1<<20, ""))
}
