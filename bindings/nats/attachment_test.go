package nats_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soapnats "github.com/soapwire/soapwire/bindings/nats"
	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/coretest"
)

// attachFeatures keeps the suites' large part under the embedded server's
// max_payload (1 MiB): a package travels as one NATS message.
var attachFeatures = coretest.Features{AttachmentBytes: 600 << 10}

// TestConformanceAttachments runs core/coretest's attachment suites over
// NATS request-reply (Transport to Subscription: the request's package in
// the payload, its Content-Type in the header, the reply in the request's
// packaging) and over JetStream (Publisher to Receiver).
func TestConformanceAttachments(t *testing.T) {
	t.Run("RoundTrip", func(t *testing.T) {
		coretest.TestAttachmentsRoundTrip(t, attachFeatures, func(t *testing.T, h core.Handler) core.RoundTripper {
			s := startServer(t)
			subscribe(t, connect(t, s), "coretest.attach", h)
			return soapnats.NewTransport(connect(t, s), "nats:coretest.attach")
		})
	})
	t.Run("JetStream", func(t *testing.T) {
		s := startServer(t)
		nc := connect(t, s)
		createStream(t, nc, "ATTACH", false, "attach.>")
		createStream(t, nc, "DEAD", false, "soapwire.dead.>")
		pub, err := soapnats.NewPublisher(nc, "")
		require.NoError(t, err)
		var n atomic.Int64
		coretest.TestAttachmentsSendReceive(t, attachFeatures, func(t *testing.T) (core.Sender, core.Receiver, string) {
			i := n.Add(1)
			addr := fmt.Sprintf("nats:attach.%d?stream=ATTACH", i)
			return pub, newReceiver(t, nc, addr, fmt.Sprintf("attach%d", i)), addr
		})
	})
}

// bigPackage is an MTOM request with one part of n bytes.
func bigPackage(v core.Version, n int) *core.Message {
	m := core.NewMessage(v, core.Body{})
	m.Action = "urn:upload"
	m.Packaging = core.MTOM
	m.Attachments = append(m.Attachments, core.BytesAttachment("application/octet-stream", bytes.Repeat([]byte{0xA5}, n)))
	return m
}

// TestAttachmentOverMaxPayload: a package larger than the server's
// max_payload is refused before it is sent, with an error naming the
// size and max_payload, and the connection stays up.
func TestAttachmentOverMaxPayload(t *testing.T) {
	s := startServer(t)
	nc := connect(t, s)
	subscribe(t, nc, "big", core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		return m.Reply(core.Body{}), nil
	}))
	tr := soapnats.NewTransport(connect(t, s), "nats:big")
	_, err := tr.RoundTrip(t.Context(), bigPackage(core.V12, 3<<20))
	require.Error(t, err)
	assert.ErrorIs(t, err, soapnats.ErrTooLarge)
	assert.ErrorIs(t, err, core.ErrTooLarge)
	assert.Contains(t, err.Error(), "max_payload")
	assert.Contains(t, err.Error(), fmt.Sprint(nc.MaxPayload()))

	createStream(t, nc, "BIG", false, "bigjs.>")
	pub, err := soapnats.NewPublisher(nc, "")
	require.NoError(t, err)
	err = pub.Send(t.Context(), withTo(bigPackage(core.V11, 3<<20), "nats:bigjs.1?stream=BIG"))
	assert.ErrorIs(t, err, soapnats.ErrTooLarge)
	assert.Contains(t, err.Error(), "max_payload")

	// the connection is still up: a small package goes through
	resp, err := tr.RoundTrip(t.Context(), bigPackage(core.V12, 10<<10))
	require.NoError(t, err)
	resp.Close()
	assert.True(t, nc.IsConnected())
}

func withTo(m *core.Message, to string) *core.Message {
	m.To = to
	return m
}

// TestAttachmentServerRefusals: broken packages sent as requests are
// answered with a Sender fault, the handler not called.
func TestAttachmentServerRefusals(t *testing.T) {
	s := startServer(t)
	var called atomic.Int64
	subscribe(t, connect(t, s), "refuse", core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		called.Add(1)
		return m.Reply(core.Body{}), nil
	}))
	nc := connect(t, s)
	env := `<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><x/></s:Body></s:Envelope>`
	for _, c := range []struct{ name, ctype, body string }{
		{"no boundary", `multipart/related; type="text/xml"`, env},
		{"never closed", `multipart/related; type="text/xml"; boundary=b`, "--b\r\nContent-Type: text/xml\r\n\r\n" + env + "\r\n--b\r\nContent-Type: a/b\r\n\r\nxyz"},
		{"root not SOAP", `multipart/related; type="text/plain"; boundary=b`, "--b\r\nContent-Type: text/plain\r\n\r\nhello\r\n--b--\r\n"},
		{"include without XOP", `multipart/related; type="text/xml"; boundary=b`, "--b\r\nContent-Type: text/xml\r\n\r\n" +
			`<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><x><xop:Include xmlns:xop="http://www.w3.org/2004/08/xop/include" href="cid:a"/></x></s:Body></s:Envelope>` + "\r\n--b--\r\n"},
	} {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			msg := nats.NewMsg("refuse")
			msg.Header.Set(soapnats.HeaderContentType, c.ctype)
			msg.Data = []byte(c.body)
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			resp, err := nc.RequestMsgWithContext(ctx, msg)
			require.NoError(t, err)
			m, err := soapnats.Decode(resp, core.Limits{})
			require.NoError(t, err)
			f := m.Fault()
			require.NotNil(t, f, "a fault answers %s", c.name)
			assert.Equal(t, core.CodeSender, f.Code, f.Error())
			if !strings.HasPrefix(c.name, "include") {
				// (a wrong include is met as the handler reads the body)
				assert.Zero(t, called.Load(), "the handler is not called")
			}
		})
	}
}

// TestAttachmentDecode: Decode reads a package published by Encode, the
// parts intact.
func TestAttachmentDecode(t *testing.T) {
	for _, p := range []core.Packaging{core.MTOM, core.SwA} {
		t.Run(p.String(), func(t *testing.T) {
			m := bigPackage(core.V11, 100<<10)
			m.Packaging = p
			msg, err := soapnats.Encode(m, "x.y", 1<<20)
			require.NoError(t, err)
			assert.True(t, strings.HasPrefix(msg.Header.Get(soapnats.HeaderContentType), "multipart/related;"))
			got, err := soapnats.Decode(msg, core.Limits{})
			require.NoError(t, err)
			defer got.Close()
			assert.Equal(t, p, got.Packaging)
			require.Len(t, got.Attachments, 1)
			rc, err := got.Attachments[0].Open()
			require.NoError(t, err)
			b, err := io.ReadAll(rc)
			rc.Close()
			require.NoError(t, err)
			assert.True(t, bytes.Equal(bytes.Repeat([]byte{0xA5}, 100<<10), b))
		})
	}
}
