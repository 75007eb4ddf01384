package nats_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soapnats "github.com/soapwire/soapwire/bindings/nats"
	"github.com/soapwire/soapwire/core"
)

// TestObjectStoreSlowHandler: a handler that reads an object part slower
// than nats.go's default timeout (5 s for a Get whose context has no
// deadline) still gets the whole part: the download has the part's own
// budget (a minute and a second a MiB). It failed with nats.ErrTimeout
// when the part was opened with the Subscription's context unbounded.
func TestObjectStoreSlowHandler(t *testing.T) {
	if testing.Short() {
		t.Skip("waits 6 s inside a handler")
	}
	s := startServer(t, soapnats.WithMaxPayload(1<<20))
	nc := connect(t, s)
	createBucket(t, nc, "PARTS")
	data := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB: eight chunks of the bucket
	var got atomic.Value
	subscribe(t, nc, "slow", core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		if len(m.Attachments) != 1 {
			return nil, fmt.Errorf("%d parts", len(m.Attachments))
		}
		rc, err := m.Attachments[0].Open()
		if err != nil {
			return nil, err
		}
		defer rc.Close()
		first := make([]byte, 1024)
		if _, err := io.ReadFull(rc, first); err != nil {
			return nil, err
		}
		time.Sleep(6 * time.Second) // the handler is busy elsewhere
		rest, err := io.ReadAll(rc)
		if err != nil {
			return nil, fmt.Errorf("reading the rest of the part: %w", err)
		}
		got.Store(append(first, rest...))
		return m.Reply(core.Body{}), nil
	}), soapnats.WithObjectStore("PARTS", 0))

	m := core.NewMessage(core.V12, core.Body{})
	m.Action = "urn:slow"
	m.Packaging = core.MTOM
	m.Attachments = append(m.Attachments, core.BytesAttachment("application/pdf", data))
	tr := soapnats.NewTransport(connect(t, s), "nats:slow", soapnats.WithObjectStore("PARTS", 0), soapnats.WithTimeout(30*time.Second))
	resp, err := tr.RoundTrip(t.Context(), m)
	require.NoError(t, err)
	defer resp.Close()
	assert.Nil(t, resp.Fault(), "the handler read the whole part")
	assert.Equal(t, data, got.Load())
}
