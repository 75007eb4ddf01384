// Options given to constructors that do not take them: each line must be
// refused by the compiler (TestWrongOptionDoesNotCompile).
package main

import (
	"strings"

	soapsmtp "github.com/soapwire/soapwire/bindings/smtp"
	"github.com/soapwire/soapwire/core"
)

func main() {
	mb, _ := soapsmtp.OpenMaildir("dir", soapsmtp.WithArchive())
	_, _ = soapsmtp.NewSender("127.0.0.1:25", "shop@example.org", soapsmtp.WithSyncMode(soapsmtp.SyncFiles))
	_ = soapsmtp.NewReceiver(mb, soapsmtp.WithTLS(nil))
	_ = soapsmtp.NewServer("127.0.0.1:25", mb, soapsmtp.WithLimits(core.Limits{}))
	_, _ = soapsmtp.StartServer(mb, soapsmtp.WithCredentials("user", "pass"))
	_, _ = soapsmtp.ReadMail(strings.NewReader(""), soapsmtp.WithLogger(nil))
}
