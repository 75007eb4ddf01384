// Each constructor with options it takes, the shared ones included: this
// must compile (TestWrongOptionDoesNotCompile).
package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/document"
)

func main() {
	var out core.Sender
	var fn document.HandleFunc
	log := slog.Default()
	store := document.NewMemoryStore()
	_ = document.NewHandler(fn, document.WithStore(store), document.WithLogger(log), document.WithOutbox(out),
		document.WithReplyPolicy(core.ReplyPolicy{}), document.WithReceipts(), document.WithLease(time.Minute),
		document.WithRetention(time.Hour, 10), document.WithMaxReplay(1<<10))
	_ = document.NewCorrelator(out, "mailto:replies@example.org", document.WithStore(store), document.WithLogger(log),
		document.WithFallback(nil), document.WithTimeout(time.Second))
	_ = document.NewMessage("mailto:orders@example.org", nil, document.WithVersion(core.V11), document.WithAction("urn:a"),
		document.WithMessageID("urn:x"), document.WithConversation("urn:c"), document.WithReplyTo("mailto:r@example.org"),
		document.WithFaultTo("mailto:f@example.org"), document.WithHeader(core.HeaderBlock{}))
	_, _ = document.Send(context.Background(), out, "mailto:orders@example.org", nil, document.WithAction("urn:a"),
		document.WithTracking(store, time.Time{}))
	_ = (&document.Incoming{}).Reply(nil, document.WithAction("urn:b"))
}
