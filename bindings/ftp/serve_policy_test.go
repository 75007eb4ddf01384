package ftp_test

import (
	"context"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soapftp "github.com/soapwire/soapwire/bindings/ftp"
	"github.com/soapwire/soapwire/core"
)

// TestServeRefusesUnroutableReplyTo: a request whose ReplyTo the FTP Sender
// cannot reach (an http: address, a folder on another server) or the
// policy refuses is parked in failed/ with the fault, before the handler
// runs: nothing is uploaded anywhere. A request answered on the drop's own
// back-channel still is.
func TestServeRefusesUnroutableReplyTo(t *testing.T) {
	e := newEnv(t)
	p := e.poller(t, "/rpc")
	var runs atomic.Int64
	serve(t, p, core.HandlerFunc(func(_ context.Context, m *core.Message) (*core.Message, error) {
		runs.Add(1)
		return m.Reply(core.RawBody([]byte(`<t:Pong xmlns:t="` + testNS + `">` + text(t, m) + `</t:Pong>`))), nil
	}), soapftp.NewSender(e.client), core.WithLogger(e.trace.With("by", "serve")))

	hostile := map[string]string{
		"http.xml":    "http://partner.example/replies",
		"foreign.xml": "ftp://other.example/partners/us/inbox",
		"mail.xml":    "mailto:victim@third.example",
	}
	for name, replyTo := range hostile {
		req := ping(core.V12, "hostile")
		req.ReplyTo = replyTo
		upload(t, e, "/rpc/inbox/"+name, envelope(t, req))
	}
	legit := ping(core.V12, "legit")
	legit.ReplyTo = core.AnonymousAddress
	upload(t, e, "/rpc/inbox/legit.xml", envelope(t, legit))

	require.Eventually(t, func() bool {
		return len(e.files(t, "rpc/outbox")) == 1 && len(e.files(t, "rpc/failed")) == 2*len(hostile)
	}, 20*time.Second, 10*time.Millisecond, "outbox %v, failed %v", e.files(t, "rpc/outbox"), e.files(t, "rpc/failed"))
	assert.Equal(t, int64(1), runs.Load(), "the handler ran for the legitimate request only")
	for name, replyTo := range hostile {
		b, err := os.ReadFile(e.path("rpc", "failed", strings.TrimSuffix(name, ".xml")+".fault.xml"))
		require.NoError(t, err, name)
		assert.Contains(t, string(b), replyTo, "%s: the fault names the refused address", name)
	}
}
