// Each constructor with options it takes, the shared ones included: this
// must compile (TestWrongOptionDoesNotCompile).
package main

import (
	"context"
	"log/slog"
	"time"

	soapimap "github.com/soapwire/soapwire/bindings/imap"
	"github.com/soapwire/soapwire/core"
)

func main() {
	ctx := context.Background()
	log := slog.Default()
	token := func(context.Context) (string, error) { return "t", nil }
	_, _ = soapimap.NewReceiver(ctx, "imaps://u@h/INBOX", soapimap.WithLogger(log), soapimap.WithTLS(nil),
		soapimap.WithCredentials("u", "p"), soapimap.WithOAuth("u", token), soapimap.WithPlaintext(),
		soapimap.WithDialTimeout(time.Second), soapimap.WithLimits(core.Limits{}), soapimap.WithAddresses("a@b"),
		soapimap.WithFolders("p", "d", "f"), soapimap.WithArchive(), soapimap.WithPollInterval(time.Second),
		soapimap.WithIdleInterval(time.Minute), soapimap.WithLease(time.Minute), soapimap.WithRecoverInterval(time.Second),
		soapimap.WithMaxMessageBytes(1<<20), soapimap.WithReconnect(time.Second, time.Minute))
	_, _ = soapimap.NewAppender("imaps://u@h/INBOX", "a@b", soapimap.WithLogger(log), soapimap.WithTLS(nil),
		soapimap.WithCredentials("u", "p"), soapimap.WithSubject("s"))
	_, _ = soapimap.StartServer(soapimap.WithLogger(log), soapimap.WithTLS(nil), soapimap.WithListenAddr("127.0.0.1:0"),
		soapimap.WithTokenAuth(func(context.Context, string, string) bool { return true }), soapimap.WithoutMove(), soapimap.WithoutIdle())
}
