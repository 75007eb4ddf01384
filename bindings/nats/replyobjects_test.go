package nats_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soapnats "github.com/soapwire/soapwire/bindings/nats"
	"github.com/soapwire/soapwire/core"
)

// readPart returns the bytes of a.
func readPart(t testing.TB, a *core.Attachment) []byte {
	t.Helper()
	rc, err := a.Open()
	require.NoError(t, err)
	defer rc.Close()
	b, err := io.ReadAll(rc)
	require.NoError(t, err)
	return b
}

// TestObjectStoreTransportReplyDeleted: a reply whose part is over the
// threshold travels through the bucket (max_payload 1 MiB, a 3 MiB part),
// and the bucket is empty once RoundTrip returns, while the caller still
// reads the part (its Content-ID, type, headers and bytes), which the
// reply holds itself: spooled to a file beyond SpoolThreshold, or in
// memory below it. The part under the threshold and the body are the
// reply's as sent.
func TestObjectStoreTransportReplyDeleted(t *testing.T) {
	s := startServer(t, soapnats.WithMaxPayload(1<<20))
	nc := connect(t, s)
	st := createBucket(t, nc, "PARTS")
	big := bytes.Repeat([]byte("0123456789abcdef"), 3<<16) // 3 MiB
	small := []byte("a small part, carried in the message")
	var bigID string
	subscribe(t, nc, "report", core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		r := m.Reply(core.RawBody(body("reportResponse", "attached")))
		r.Packaging = core.MTOM
		a := core.BytesAttachment("application/pdf", big)
		a.Header = map[string][]string{"Content-Disposition": {`attachment; filename="report.pdf"`}}
		bigID = a.ID
		r.Attachments = append(r.Attachments, a, core.BytesAttachment("text/plain", small))
		return r, nil
	}), soapnats.WithObjectStore("PARTS", 0))

	for _, c := range []struct {
		name    string
		lim     core.Limits
		spooled bool
	}{
		{"spooled", core.Limits{}, true},
		{"in memory", core.Limits{SpoolThreshold: 8 << 20}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr := soapnats.NewTransport(connect(t, s), "nats:report", soapnats.WithObjectStore("PARTS", 0), soapnats.WithLimits(c.lim))
			resp, err := tr.RoundTrip(testCtx(t), core.NewMessage(core.V12, core.RawBody(body("report", "q1"))))
			require.NoError(t, err)
			defer resp.Close()
			assert.Empty(t, objectNames(t, st), "the reply's object is deleted before RoundTrip returns")

			assert.Equal(t, core.MTOM, resp.Packaging)
			require.Len(t, resp.Attachments, 2)
			a := resp.Attachments[0]
			assert.Equal(t, bigID, a.ID)
			assert.Equal(t, "application/pdf", a.Type)
			assert.Equal(t, `attachment; filename="report.pdf"`, a.Header.Get("Content-Disposition"))
			assert.Equal(t, int64(len(big)), a.Size())
			assert.Equal(t, c.spooled, a.Spooled())
			assert.Equal(t, big, readPart(t, a), "read after the object is gone")
			assert.Equal(t, big, readPart(t, a), "and again")
			assert.Equal(t, "text/plain", resp.Attachments[1].Type)
			assert.Equal(t, small, readPart(t, resp.Attachments[1]))
			assert.Equal(t, "attached", text(t, resp))
		})
	}

	t.Run("over MaxPartBytes", func(t *testing.T) {
		// refused before the object is read: left alone, as every reader does
		tr := soapnats.NewTransport(connect(t, s), "nats:report", soapnats.WithObjectStore("PARTS", 0), soapnats.WithLimits(core.Limits{MaxPartBytes: 1 << 20}))
		_, err := tr.RoundTrip(testCtx(t), core.NewMessage(core.V12, core.RawBody(body("report", "q2"))))
		require.ErrorIs(t, err, soapnats.ErrBadReply)
		assert.Contains(t, err.Error(), "over the reader's limits")
		names := objectNames(t, st)
		assert.Len(t, names, 1)
		for _, n := range names {
			require.NoError(t, st.Delete(t.Context(), n))
		}
	})
}

// TestObjectStoreTransportDeleteFails: when a reply's object cannot be
// deleted (the bucket is sealed), the failure is logged as a warning and
// the reply is returned, its part read from the object.
func TestObjectStoreTransportDeleteFails(t *testing.T) {
	s := startServer(t)
	nc := connect(t, s)
	st := createBucket(t, nc, "PARTS")
	data := bytes.Repeat([]byte{0xA5, 0x5A, 0x00, 0xFF}, 100<<8) // 100 KiB
	_, err := st.PutBytes(t.Context(), "kept", data)
	require.NoError(t, err)
	require.NoError(t, st.Seal(t.Context()))
	sub, err := nc.Subscribe("sealed", func(req *nats.Msg) {
		reply := externalRequest("", "PARTS", "kept")
		_ = req.RespondMsg(reply)
	})
	require.NoError(t, err)
	t.Cleanup(func() { _ = sub.Unsubscribe() })

	log, logs := newLogs()
	tr := soapnats.NewTransport(connect(t, s), "nats:sealed", soapnats.WithObjectStore("PARTS", 0), soapnats.WithLogger(log))
	resp, err := tr.RoundTrip(testCtx(t), core.NewMessage(core.V11, core.RawBody(body("get", "kept"))))
	require.NoError(t, err)
	defer resp.Close()
	require.Len(t, resp.Attachments, 1)
	assert.Equal(t, "p1@x", resp.Attachments[0].ID)
	assert.Equal(t, "application/pdf", resp.Attachments[0].Type)
	assert.Equal(t, data, readPart(t, resp.Attachments[0]))
	assert.Contains(t, logs.String(), "level=WARN")
	assert.Contains(t, logs.String(), "deleting a reply's objects failed")
	assert.Contains(t, logs.String(), "subject=sealed")
	assert.Equal(t, []string{"kept"}, objectNames(t, st), "the delete failed")
}

// TestObjectStoreDeadLetterKeepsObjects: a message dead-lettered keeps its
// objects (the dead letter names them); a Receiver given the bucket that
// reads the dead-letter stream reads the part from the object, and its Ack
// deletes it, as any Receiver's does.
func TestObjectStoreDeadLetterKeepsObjects(t *testing.T) {
	s := startServer(t, soapnats.WithMaxPayload(1<<20))
	nc := connect(t, s)
	createStream(t, nc, "ORDERS", false, "orders.>")
	createStream(t, nc, "DEAD", false, "soapwire.dead.>")
	createStream(t, nc, "DEAD2", false, "dead2.>")
	st := createBucket(t, nc, "PARTS")
	pub, err := soapnats.NewPublisher(nc, "nats:orders.1?stream=ORDERS", soapnats.WithObjectStore("PARTS", 1<<10))
	require.NoError(t, err)
	data := bytes.Repeat([]byte{3, 1, 4, 1, 5, 9, 2, 6}, 2<<17) // 2 MiB
	m := core.NewMessage(core.V11, core.RawBody(body("order", "o-1")))
	m.Packaging = core.SwA
	m.Attachments = append(m.Attachments, core.BytesAttachment("image/tiff", data))
	require.NoError(t, pub.Send(t.Context(), m))
	require.Len(t, objectNames(t, st), 1)

	r := newReceiver(t, nc, "nats:orders.1?stream=ORDERS", "orders", soapnats.WithObjectStore("PARTS", 0), soapnats.WithMaxDeliveries(1))
	d, err := r.Receive(testCtx(t))
	require.NoError(t, err)
	require.NoError(t, d.Nack(t.Context(), errors.New("no stock")))
	d.Message().Close()
	assert.Len(t, objectNames(t, st), 1, "the dead letter names it: kept")

	dr := newReceiver(t, nc, "nats:soapwire.dead.orders?stream=DEAD", "deadletters", soapnats.WithObjectStore("PARTS", 0), soapnats.WithDeadLetter("dead2.deadletters"))
	dd, err := dr.Receive(testCtx(t))
	require.NoError(t, err)
	dm := dd.Message()
	defer dm.Close()
	require.Len(t, dm.Attachments, 1)
	assert.Equal(t, "image/tiff", dm.Attachments[0].Type)
	assert.Equal(t, data, readPart(t, dm.Attachments[0]))
	assert.Len(t, objectNames(t, st), 1, "kept until the dead letter is settled")
	require.NoError(t, dd.Ack(t.Context()))
	assert.Empty(t, objectNames(t, st), "the dead letter's Ack deletes it")
}
