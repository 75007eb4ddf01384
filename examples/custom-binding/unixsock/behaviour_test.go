package unixsock_test

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/examples/custom-binding/unixsock"
)

// TestInboxParksAfterMaxAttempts: a message Nacked WithMaxAttempts times is
// moved to failed/ with its fault beside it, and not delivered again.
func TestInboxParksAfterMaxAttempts(t *testing.T) {
	var logs syncBuffer
	in, addr := startInbox(t, shortDir(t), unixsock.WithMaxAttempts(2), logTo(&logs))
	m := request("order 7")
	m.ID, m.To = "urn:uuid:7", addr
	require.NoError(t, unixsock.NewTransport("").Send(t.Context(), m))

	var name string
	for attempt := 1; attempt <= 2; attempt++ {
		d, err := in.Receive(t.Context())
		require.NoError(t, err)
		got := d.Message()
		assert.Equal(t, "urn:uuid:7", got.ID)
		assert.Equal(t, "urn:test/Ping", got.Action)
		assert.Equal(t, []string{"1", "2"}[attempt-1], got.Meta[unixsock.MetaAttempt], "attempt")
		name = got.Meta[unixsock.MetaFile]
		require.NoError(t, d.Nack(t.Context(), core.SenderFault("order %d refused", 7)))
	}
	failed := filepath.Join(in.Dir(), "failed", name)
	_, err := os.Stat(failed)
	require.NoError(t, err, "the message is parked")
	f, err := os.Open(failed + ".fault.xml")
	require.NoError(t, err, "its fault is beside it")
	defer f.Close()
	fm, err := core.ReadMessage(f, core.Limits{})
	require.NoError(t, err)
	require.NotNil(t, fm.Fault())
	assert.Equal(t, "order 7 refused", fm.Fault().Reason)
	assert.Equal(t, core.V12, fm.Version())
	_, err = os.Stat(filepath.Join(in.Dir(), "queue", name))
	assert.ErrorIs(t, err, os.ErrNotExist, "still queued")
	assert.Contains(t, logs.String(), "unixsock: message parked")

	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	_, err = in.Receive(ctx)
	assert.ErrorIs(t, err, context.DeadlineExceeded, "a parked message came back")
}

// TestInboxRestart: NewInbox on a folder delivers what was stored, in the
// order it was stored, drops half-received files from tmp/, and parks a
// stored file it cannot read.
func TestInboxRestart(t *testing.T) {
	dir := shortDir(t)
	in, addr := startInbox(t, dir)
	tr := unixsock.NewTransport("")
	for _, text := range []string{"one", "two", "three"} {
		m := request(text)
		m.To = addr
		require.NoError(t, tr.Send(t.Context(), m))
	}
	d, err := in.Receive(t.Context())
	require.NoError(t, err)
	require.NoError(t, d.Ack(t.Context()))
	require.NoError(t, in.Close())

	spool := filepath.Join(dir, "spool")
	require.NoError(t, os.WriteFile(filepath.Join(spool, "tmp", "00000000000000000001.frame"), []byte("SW half"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(spool, "queue", "00000000000000000002.frame"), []byte("not a frame"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(spool, "queue", "notes.txt"), []byte("not ours"), 0o600))

	var logs syncBuffer
	in2, err := unixsock.NewInbox(spool, logTo(&logs))
	require.NoError(t, err)
	t.Cleanup(func() { _ = in2.Close() })
	tmp, err := os.ReadDir(filepath.Join(spool, "tmp"))
	require.NoError(t, err)
	assert.Empty(t, tmp, "tmp/ after NewInbox")
	var got []string
	for range 2 {
		d, err := in2.Receive(t.Context())
		require.NoError(t, err)
		var v struct {
			Text string `xml:",chardata"`
		}
		require.NoError(t, d.Message().Body().Decode(&v))
		got = append(got, v.Text)
		require.NoError(t, d.Ack(t.Context()))
	}
	assert.Equal(t, []string{"two", "three"}, got)
	assert.Contains(t, logs.String(), "stored message unreadable")
	_, err = os.Stat(filepath.Join(spool, "failed", "00000000000000000002.frame.fault.xml"))
	assert.NoError(t, err, "the unreadable file is parked with its fault")
}

// TestInboxDeliveryAfterClose: a delivery out when the Inbox closes can
// still be settled; a Nacked one stays stored for the next NewInbox.
func TestInboxDeliveryAfterClose(t *testing.T) {
	dir := shortDir(t)
	in, addr := startInbox(t, dir)
	m := request("late")
	m.To = addr
	require.NoError(t, unixsock.NewTransport("").Send(t.Context(), m))
	d, err := in.Receive(t.Context())
	require.NoError(t, err)
	require.NoError(t, in.Close())
	require.NoError(t, d.Nack(t.Context(), errors.New("shutting down")))
	require.ErrorIs(t, d.Ack(t.Context()), core.ErrSettled)

	in2, err := unixsock.NewInbox(filepath.Join(dir, "spool"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = in2.Close() })
	assert.Equal(t, 1, in2.Len())
}

// TestServerCancelsHandler: the handler's ctx is cancelled when the caller
// hangs up (here: its ctx deadline), and when Serve's ctx ends.
func TestServerCancelsHandler(t *testing.T) {
	cancelled := make(chan error, 1)
	h := core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		if err := m.Body().Discard(); err != nil {
			return nil, err
		}
		<-ctx.Done()
		cancelled <- ctx.Err()
		return nil, ctx.Err()
	})
	t.Run("caller hangs up", func(t *testing.T) {
		tr := unixsock.NewTransport(startServer(t, h))
		ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
		defer cancel()
		_, err := tr.RoundTrip(ctx, request("wait"))
		require.ErrorIs(t, err, context.DeadlineExceeded)
		select {
		case err := <-cancelled:
			assert.ErrorIs(t, err, context.Canceled)
		case <-time.After(5 * time.Second):
			t.Fatal("the handler's ctx was not cancelled when the caller hung up")
		}
	})
	t.Run("shutdown", func(t *testing.T) {
		dir := shortDir(t)
		addr := unixsock.Address(filepath.Join(dir, "s.sock"))
		ln, err := unixsock.Listen(addr)
		require.NoError(t, err)
		ctx, cancel := context.WithCancel(t.Context())
		served := make(chan error, 1)
		go func() { served <- unixsock.NewServer(h).Serve(ctx, ln) }()
		calls := make(chan error, 1)
		go func() {
			_, err := unixsock.NewTransport(addr).RoundTrip(t.Context(), request("wait"))
			calls <- err
		}()
		require.Eventually(t, func() bool { return len(cancelled) == 0 && dialable(addr) }, 5*time.Second, 5*time.Millisecond)
		time.Sleep(20 * time.Millisecond) // let the call reach the handler; the test holds if it has not
		cancel()
		select {
		case err := <-served:
			require.NoError(t, err, "Serve after its ctx ended")
		case <-time.After(5 * time.Second):
			t.Fatal("Serve did not return")
		}
		require.Error(t, <-calls, "the call in flight during shutdown")
		_, err = os.Lstat(filepath.Join(dir, "s.sock"))
		assert.ErrorIs(t, err, os.ErrNotExist, "the socket file after Serve")
	})
}

func dialable(addr string) bool {
	path, _ := unixsock.ParseAddress(addr)
	c, err := net.Dial("unix", path)
	if err == nil {
		c.Close()
	}
	return err == nil
}

// TestServerHandlerPanics: a panic is a Receiver fault whose value is
// logged and never sent.
func TestServerHandlerPanics(t *testing.T) {
	var logs syncBuffer
	addr := startServer(t, core.HandlerFunc(func(context.Context, *core.Message) (*core.Message, error) {
		panic("secret: db password hunter2")
	}), logTo(&logs))
	_, err := unixsock.NewTransport(addr).RoundTrip(t.Context(), request("boom"))
	var f *core.Fault
	require.ErrorAs(t, err, &f)
	assert.Equal(t, core.CodeReceiver, f.Code)
	assert.Equal(t, core.InternalErrorReason, f.Reason)
	assert.NotContains(t, err.Error(), "hunter2")
	assert.Contains(t, logs.String(), "hunter2", "the panic is logged on the server")
}

// TestServerStreamsTheBody: the handler runs once the envelope's header has
// arrived, while the rest of the body is still on its way.
func TestServerStreamsTheBody(t *testing.T) {
	called := make(chan string, 1)
	addr := startServer(t, core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		called <- m.Body().Name().Local
		return echo(ctx, m)
	}))
	env := envelope("", `<t:Ping xmlns:t="urn:test">`+strings.Repeat("x", 100)+`</t:Ping>`)
	frame := rawFrame('C', "urn:test/Ping", env)
	split := len(frame) - 50 // inside the Ping element's text
	path, _ := unixsock.ParseAddress(addr)
	conn, err := net.Dial("unix", path)
	require.NoError(t, err)
	defer conn.Close()
	_, err = conn.Write(frame[:split])
	require.NoError(t, err)
	select {
	case name := <-called:
		assert.Equal(t, "Ping", name)
	case <-time.After(5 * time.Second):
		t.Fatal("the handler waited for the whole request")
	}
	_, err = conn.Write(frame[split:])
	require.NoError(t, err)
	var h [9]byte
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(5*time.Second)))
	_, err = io.ReadFull(conn, h[:])
	require.NoError(t, err)
	assert.Equal(t, "R", string(h[2]), "a reply")
}

// TestTransportAgainstBrokenServers: what a Transport makes of answers that
// are not right.
func TestTransportAgainstBrokenServers(t *testing.T) {
	tests := []struct {
		name   string
		answer []byte // nil: hang up without answering
		want   error  // nil: the peer's hang-up is io.ErrUnexpectedEOF or a reset, as the kernel saw it
		text   string
	}{
		{"hangs up", nil, nil, "read the answer"},
		{"not a frame", []byte("HTTP/1.1 200 OK\r\n\r\n"), unixsock.ErrProtocol, "not a frame"},
		{"too large", func() []byte {
			b := rawFrame('R', "", nil)
			binary.BigEndian.PutUint32(b[5:9], 1<<30)
			return b
		}(), core.ErrTooLarge, "over the limit"},
		{"cut short", rawFrame('R', "", envelope("", echoBody))[:40], nil, "read the answer"},
		{"wrong kind", rawFrame('A', "", nil), unixsock.ErrProtocol, "answer of kind 'A' to a call"},
		{"reply not SOAP", rawFrame('R', "", []byte("hello")), &core.Fault{Code: core.CodeSender}, "reply"},
		{"refusal with control characters", rawFrame('E', "", []byte("no\x1b[31m")), unixsock.ErrRefused, `"no\x1b[31m"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			addr := fakeServer(t, tt.answer)
			_, err := unixsock.NewTransport(addr).RoundTrip(t.Context(), request("x"))
			if tt.want == nil {
				require.True(t, errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET), "%v", err)
			} else {
				require.ErrorIs(t, err, tt.want)
			}
			assert.Contains(t, err.Error(), tt.text)
		})
	}
}

// fakeServer answers every connection with answer once it has read a
// frame's header, then hangs up.
func fakeServer(t *testing.T, answer []byte) string {
	addr := unixsock.Address(filepath.Join(shortDir(t), "fake.sock"))
	ln, err := unixsock.Listen(addr)
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			var h [9]byte
			_, _ = io.ReadFull(conn, h[:])
			_, _ = conn.Write(answer)
			conn.Close()
		}
	}()
	return addr
}

// TestTransportReplyInTheOtherVersion: a server answering a SOAP 1.2
// request in 1.1 (answer or fault) gives the caller an error, a
// VersionMismatch fault this side found (core.CheckReplyVersion), as
// soapwire's own transports do; a VersionMismatch fault is the answer.
func TestTransportReplyInTheOtherVersion(t *testing.T) {
	for name, reply := range map[string]*core.Message{
		"an answer":       core.NewMessage(core.V11, core.RawBody([]byte(`<t:Pong xmlns:t="urn:test"/>`))),
		"a fault":         core.NewMessage(core.V11, core.FaultBody(core.ReceiverFault("boom"))),
		"VersionMismatch": core.NewMessage(core.V11, core.FaultBody(&core.Fault{Code: core.CodeVersionMismatch, Reason: "only 1.1"})),
	} {
		addr := startServer(t, core.HandlerFunc(func(context.Context, *core.Message) (*core.Message, error) { return reply, nil }))
		_, err := unixsock.NewTransport(addr).RoundTrip(t.Context(), request("hi"))
		var f *core.Fault
		require.ErrorAs(t, err, &f, name)
		if name == "VersionMismatch" {
			assert.True(t, f.Remote, "the server's own fault")
			assert.Equal(t, "only 1.1", f.Reason)
			continue
		}
		assert.Equal(t, core.CodeVersionMismatch, f.Code, name)
		assert.False(t, f.Remote, "%s: this side found it", name)
	}
}
