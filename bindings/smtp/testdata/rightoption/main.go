// Each constructor with options it takes, the shared ones included: this
// must compile (TestWrongOptionDoesNotCompile).
package main

import (
	"log/slog"
	"strings"
	"time"

	soapsmtp "github.com/soapwire/soapwire/bindings/smtp"
	"github.com/soapwire/soapwire/core"
)

func main() {
	log := slog.Default()
	mb, _ := soapsmtp.OpenMaildir("dir", soapsmtp.WithSyncMode(soapsmtp.SyncFiles))
	_, _ = soapsmtp.NewSender("127.0.0.1:25", "shop@example.org", soapsmtp.WithLogger(log), soapsmtp.WithTLS(nil),
		soapsmtp.WithDialTimeout(time.Second), soapsmtp.WithIOTimeout(time.Second), soapsmtp.WithRetry(2, time.Second))
	_ = soapsmtp.NewReceiver(mb, soapsmtp.WithLogger(log), soapsmtp.WithLimits(core.Limits{}),
		soapsmtp.WithAddresses("soap@example.org"), soapsmtp.WithArchive())
	_ = soapsmtp.NewServer("127.0.0.1:25", mb, soapsmtp.WithLogger(log), soapsmtp.WithAddresses("soap@example.org"),
		soapsmtp.WithIOTimeout(time.Second), soapsmtp.WithSessionTimeout(time.Minute))
	_, _ = soapsmtp.StartServer(mb, soapsmtp.WithAddresses("soap@example.org"), soapsmtp.WithListenAddr("127.0.0.1:0"))
	_, _ = soapsmtp.ReadMail(strings.NewReader(""), soapsmtp.WithLimits(core.Limits{}), soapsmtp.WithAddresses("soap@example.org"))
}
