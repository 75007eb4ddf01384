// Options given to constructors that do not take them: each line must be
// refused by the compiler (TestWrongOptionDoesNotCompile).
package main

import (
	"context"

	soapimap "github.com/soapwire/soapwire/bindings/imap"
	"github.com/soapwire/soapwire/core"
)

func main() {
	ctx := context.Background()
	_, _ = soapimap.NewReceiver(ctx, "imaps://u@h/INBOX", soapimap.WithSubject("x"))
	_, _ = soapimap.NewAppender("imaps://u@h/INBOX", "a@b", soapimap.WithLimits(core.Limits{}))
	_, _ = soapimap.StartServer(soapimap.WithCredentials("u", "p"))
	_, _ = soapimap.StartServer(soapimap.WithArchive())
	_, _ = soapimap.NewReceiver(ctx, "imaps://u@h/INBOX", soapimap.WithoutMove())
}
