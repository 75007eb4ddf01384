// Options given to constructors that do not take them: each line must be
// refused by the compiler (TestWrongOptionDoesNotCompile).
package main

import (
	"context"
	"time"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/document"
)

func main() {
	var out core.Sender
	var fn document.HandleFunc
	store := document.NewMemoryStore()
	_ = document.NewHandler(fn, document.WithFallback(nil))
	_ = document.NewCorrelator(out, "mailto:replies@example.org", document.WithOutbox(out))
	_ = document.NewMessage("mailto:orders@example.org", nil, document.WithTracking(store, time.Time{}))
	_, _ = document.Send(context.Background(), out, "mailto:orders@example.org", nil, document.WithStore(store))
	_ = (&document.Incoming{}).Reply(nil, document.WithTimeout(time.Second))
}
