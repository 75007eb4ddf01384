package nats_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soapnats "github.com/soapwire/soapwire/bindings/nats"
	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/coretest"
)

// createBucket creates the object store bucket name on nc's server.
func createBucket(t testing.TB, nc *nats.Conn, name string) jetstream.ObjectStore {
	t.Helper()
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	st, err := js.CreateObjectStore(t.Context(), jetstream.ObjectStoreConfig{Bucket: name})
	require.NoError(t, err)
	return st
}

// objectNames lists the objects in st.
func objectNames(t testing.TB, st jetstream.ObjectStore) []string {
	t.Helper()
	list, err := st.List(t.Context())
	if err == jetstream.ErrNoObjectsFound {
		return nil
	}
	require.NoError(t, err)
	var names []string
	for _, o := range list {
		names = append(names, o.Name)
	}
	return names
}

// TestConformanceAttachmentsObjectStore runs coretest's attachment suites
// with their default 3 MiB part over a server whose max_payload is 1 MiB:
// request-reply (the request's and the reply's large parts through the
// bucket) and JetStream (Publisher to Receiver).
func TestConformanceAttachmentsObjectStore(t *testing.T) {
	t.Run("RoundTrip", func(t *testing.T) {
		coretest.TestAttachmentsRoundTrip(t, coretest.Features{}, func(t *testing.T, h core.Handler) core.RoundTripper {
			s := startServer(t, soapnats.WithMaxPayload(1<<20))
			nc := connect(t, s)
			createBucket(t, nc, "PARTS")
			subscribe(t, nc, "coretest.objs", h, soapnats.WithObjectStore("PARTS", 0))
			return soapnats.NewTransport(connect(t, s), "nats:coretest.objs", soapnats.WithObjectStore("PARTS", 0))
		})
	})
	t.Run("JetStream", func(t *testing.T) {
		s := startServer(t, soapnats.WithMaxPayload(1<<20))
		nc := connect(t, s)
		createStream(t, nc, "OBJS", false, "objs.>")
		createStream(t, nc, "DEAD", false, "soapwire.dead.>")
		st := createBucket(t, nc, "PARTS")
		pub, err := soapnats.NewPublisher(nc, "", soapnats.WithObjectStore("PARTS", 0))
		require.NoError(t, err)
		var n atomic.Int64
		coretest.TestAttachmentsSendReceive(t, coretest.Features{}, func(t *testing.T) (core.Sender, core.Receiver, string) {
			i := n.Add(1)
			addr := fmt.Sprintf("nats:objs.%d?stream=OBJS", i)
			return pub, newReceiver(t, nc, addr, fmt.Sprintf("objs%d", i), soapnats.WithObjectStore("PARTS", 0)), addr
		})
		assert.Empty(t, objectNames(t, st), "every acked message's objects are deleted")
	})
}

// TestObjectStoreCarriesOverMaxPayload: a 3 MiB part with max_payload 1
// MiB is refused without WithObjectStore and carried with it; the wire
// part is the documented external-body; the objects are deleted once the
// exchange is done.
func TestObjectStoreCarriesOverMaxPayload(t *testing.T) {
	s := startServer(t, soapnats.WithMaxPayload(1<<20))
	nc := connect(t, s)
	st := createBucket(t, nc, "PARTS")
	data := bytes.Repeat([]byte("0123456789abcdef"), 3<<16) // 3 MiB
	var got atomic.Value
	subscribe(t, nc, "upload", core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		if len(m.Attachments) != 1 {
			return nil, fmt.Errorf("%d parts", len(m.Attachments))
		}
		rc, err := m.Attachments[0].Open()
		if err != nil {
			return nil, err
		}
		defer rc.Close()
		b, err := io.ReadAll(rc)
		if err != nil {
			return nil, err
		}
		got.Store(b)
		return m.Reply(core.Body{}), nil
	}), soapnats.WithObjectStore("PARTS", 0))

	newReq := func() *core.Message {
		m := core.NewMessage(core.V12, core.Body{})
		m.Action = "urn:upload"
		m.Packaging = core.MTOM
		m.Attachments = append(m.Attachments, core.BytesAttachment("application/pdf", data))
		return m
	}
	_, err := soapnats.NewTransport(connect(t, s), "nats:upload").RoundTrip(t.Context(), newReq())
	require.ErrorIs(t, err, soapnats.ErrTooLarge)
	assert.Contains(t, err.Error(), "max_payload")

	// the wire: the part as an external body, within max_payload
	wire, err := nc.SubscribeSync("upload")
	require.NoError(t, err)
	tr := soapnats.NewTransport(connect(t, s), "nats:upload", soapnats.WithObjectStore("PARTS", 0))
	req := newReq()
	resp, err := tr.RoundTrip(t.Context(), req)
	require.NoError(t, err)
	resp.Close()
	assert.Equal(t, data, got.Load())
	assert.Equal(t, "application/pdf", req.Attachments[0].Type, "the sender's message is left as it was")

	raw, err := wire.NextMsg(5 * time.Second)
	require.NoError(t, err)
	assert.Less(t, len(raw.Data), 64<<10)
	sent, err := soapnats.Decode(raw, core.Limits{})
	require.NoError(t, err)
	defer sent.Close()
	require.Len(t, sent.Attachments, 1)
	mt, params, err := mime.ParseMediaType(sent.Attachments[0].Type)
	require.NoError(t, err)
	assert.Equal(t, "message/external-body", mt)
	assert.Equal(t, "x-nats-object", params["access-type"])
	assert.Equal(t, "PARTS", params["bucket"])
	assert.Equal(t, fmt.Sprint(len(data)), params["size"])
	assert.Equal(t, req.Attachments[0].ID, sent.Attachments[0].ID)
	assert.NotEmpty(t, params["name"])

	// deleted once the reply is sent: the Subscription does it right after
	deadline := time.Now().Add(10 * time.Second)
	for len(objectNames(t, st)) > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	assert.Empty(t, objectNames(t, st))
}

// externalRequest is a NATS request carrying a package whose one part is
// an external body naming bucket and name.
func externalRequest(subject, bucket, name string) *nats.Msg {
	ct := mime.FormatMediaType("message/external-body", map[string]string{"access-type": "x-nats-object", "bucket": bucket, "name": name})
	body := "--b\r\nContent-Type: text/xml; charset=utf-8\r\n\r\n" +
		`<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><x/></s:Body></s:Envelope>` +
		"\r\n--b\r\nContent-ID: <p1@x>\r\nContent-Type: " + ct + "\r\n\r\nContent-Type: application/pdf\r\n\r\n\r\n--b--\r\n"
	msg := nats.NewMsg(subject)
	msg.Header.Set(soapnats.HeaderContentType, `multipart/related; type="text/xml"; boundary=b`)
	msg.Data = []byte(body)
	return msg
}

// TestObjectStoreRefusals: an external part naming a bucket the server
// does not read (none configured, or another), an object not there, or
// one over the server's MaxPartBytes is a Sender fault; the handler is not
// called and the object is left alone.
func TestObjectStoreRefusals(t *testing.T) {
	s := startServer(t)
	nc := connect(t, s)
	st := createBucket(t, nc, "PARTS")
	createBucket(t, nc, "OTHER")
	_, err := st.PutBytes(t.Context(), "big", make([]byte, 100<<10))
	require.NoError(t, err)
	var called atomic.Int64
	h := core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		called.Add(1)
		return m.Reply(core.Body{}), nil
	})
	subscribe(t, nc, "none", h)
	subscribe(t, nc, "other", h, soapnats.WithObjectStore("OTHER", 0))
	subscribe(t, nc, "small", h, soapnats.WithObjectStore("PARTS", 0), soapnats.WithLimits(core.Limits{MaxPartBytes: 64 << 10}))
	cl := connect(t, s)
	for _, c := range []struct{ name, subject, bucket, object, reason string }{
		{"no bucket configured", "none", "PARTS", "big", "not configured"},
		{"another bucket", "other", "PARTS", "big", "not configured"},
		{"no such object", "other", "OTHER", "nothere", "does not hold"},
		{"over MaxPartBytes", "small", "PARTS", "big", "over the reader's limits"},
	} {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			resp, err := cl.RequestMsgWithContext(t.Context(), externalRequest(c.subject, c.bucket, c.object))
			require.NoError(t, err)
			m, err := soapnats.Decode(resp, core.Limits{})
			require.NoError(t, err)
			f := m.Fault()
			require.NotNil(t, f)
			assert.Equal(t, core.CodeSender, f.Code)
			assert.Contains(t, f.Reason, c.reason)
		})
	}
	assert.Zero(t, called.Load())
	assert.Equal(t, []string{"big"}, objectNames(t, st), "a refused message's object is left alone")
}

// TestObjectStoreReceiverDeletesOnAck: a Receiver fetches an external part
// and deletes its object when the delivery is Acked, not before.
func TestObjectStoreReceiverDeletesOnAck(t *testing.T) {
	s := startServer(t, soapnats.WithMaxPayload(1<<20))
	nc := connect(t, s)
	createStream(t, nc, "ACKS", false, "acks.>")
	createStream(t, nc, "DEAD", false, "soapwire.dead.>")
	st := createBucket(t, nc, "PARTS")
	pub, err := soapnats.NewPublisher(nc, "nats:acks.1?stream=ACKS", soapnats.WithObjectStore("PARTS", 1<<10))
	require.NoError(t, err)
	data := bytes.Repeat([]byte{7}, 2<<20)
	m := core.NewMessage(core.V11, core.Body{})
	m.Packaging = core.SwA
	m.Attachments = append(m.Attachments, core.BytesAttachment("image/png", data), core.BytesAttachment("text/plain", []byte("small")))
	require.NoError(t, pub.Send(t.Context(), m))
	assert.Len(t, objectNames(t, st), 1, "only the part over the threshold")

	r := newReceiver(t, nc, "nats:acks.1?stream=ACKS", "acks", soapnats.WithObjectStore("PARTS", 0))
	d, err := r.Receive(t.Context())
	require.NoError(t, err)
	got := d.Message()
	require.Len(t, got.Attachments, 2)
	assert.Equal(t, "image/png", got.Attachments[0].Type)
	assert.Equal(t, int64(len(data)), got.Attachments[0].Size())
	rc, err := got.Attachments[0].Open()
	require.NoError(t, err)
	b, err := io.ReadAll(rc)
	rc.Close()
	require.NoError(t, err)
	assert.Equal(t, data, b)
	assert.Len(t, objectNames(t, st), 1, "kept until the ack")
	require.NoError(t, d.Ack(t.Context()))
	assert.Empty(t, objectNames(t, st))
	got.Close()
}
