// Each constructor with options it takes, the shared ones included: this
// must compile (TestWrongOptionDoesNotCompile).
package main

import (
	"log/slog"
	"time"

	"golang.org/x/crypto/ssh"

	soapsftp "github.com/soapwire/soapwire/bindings/sftp"
	"github.com/soapwire/soapwire/core"
)

func main() {
	log := slog.Default()
	var key ssh.Signer
	var pub ssh.PublicKey
	_, _ = soapsftp.StartServer("root", "user", soapsftp.WithLogger(log), soapsftp.WithPassword("p"),
		soapsftp.WithAuthorizedKey(pub), soapsftp.WithServerKey(key), soapsftp.WithListenAddr("127.0.0.1:0"))
	c := soapsftp.NewClient("127.0.0.1:22", "user", soapsftp.WithLogger(log), soapsftp.WithPassword("p"), soapsftp.WithKey(key),
		soapsftp.WithKnownHosts("/etc/ssh/ssh_known_hosts"), soapsftp.WithHostKey(pub), soapsftp.WithPoolSize(2),
		soapsftp.WithDialTimeout(time.Second), soapsftp.WithIOTimeout(time.Second), soapsftp.WithKeepAlive(time.Second))
	_ = soapsftp.NewSender(c, soapsftp.WithLogger(log))
	_, _ = soapsftp.NewPoller(c, "/orders", soapsftp.WithLogger(log), soapsftp.WithLayout(soapsftp.DefaultLayout()),
		soapsftp.WithPollInterval(time.Second), soapsftp.WithMaxPollInterval(time.Minute), soapsftp.WithSettle(time.Second),
		soapsftp.WithLease(time.Minute), soapsftp.WithLimits(core.Limits{}), soapsftp.WithSpool(1<<20, ""))
}
