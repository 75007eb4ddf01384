package nats_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soapnats "github.com/soapwire/soapwire/bindings/nats"
	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/coretest"
)

func TestMain(m *testing.M) { os.Exit(coretest.RunWithPeerSummary(m)) }

// externalServer starts the nats-server binary of the system (Debian's
// nats-server package) as a separate process on a free loopback port, with
// JetStream storing in a temporary folder. It skips when the binary is
// missing, unless SOAPWIRE_REQUIRE_PEERS=1.
func externalServer(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("nats-server")
	if err != nil {
		bin = "/usr/sbin/nats-server"
		if _, serr := os.Stat(bin); serr != nil {
			coretest.RequirePeer(t, "nats-server", fmt.Errorf("binary not found (apt install nats-server): %w", err))
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := l.Addr().(*net.TCPAddr).Port
	require.NoError(t, l.Close())
	var out syncBuffer
	cmd := exec.Command(bin, "-a", "127.0.0.1", "-p", strconv.Itoa(port), "-js", "-sd", t.TempDir())
	cmd.Stdout, cmd.Stderr = &out, &out
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			t.Logf("nats-server output:\n%s", out.String())
		}
	})
	url := "nats://127.0.0.1:" + strconv.Itoa(port)
	deadline := time.Now().Add(10 * time.Second)
	for {
		nc, err := nats.Connect(url)
		if err == nil {
			t.Logf("%s: nats-server %s", bin, nc.ConnectedServerVersion())
			nc.Close()
			return url
		}
		if time.Now().After(deadline) {
			t.Fatalf("nats-server at %s: %v\n%s", url, err, out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func dial(t *testing.T, url string) *nats.Conn {
	t.Helper()
	nc, err := nats.Connect(url)
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	return nc
}

// TestExternalServer runs the binding against a nats-server it does not
// embed: request-reply in both versions, a fault, no responders, a queue
// group, and JetStream with duplicates and dead letters.
func TestExternalServer(t *testing.T) {
	url := externalServer(t)

	t.Run("RequestReply", func(t *testing.T) {
		for range 2 { // two instances in one queue group
			subscribe(t, dial(t, url), "ext.echo", echo, soapnats.WithQueue("ext"))
		}
		subscribe(t, dial(t, url), "ext.fault", core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
			return nil, core.SenderFault("refused by %s", m.Action)
		}))
		tr := soapnats.NewTransport(dial(t, url), "ext.echo")
		for _, v := range []core.Version{core.V11, core.V12} {
			for i := range 20 {
				m := core.NewMessage(v, core.RawBody(body("echo", v.String()+" "+strconv.Itoa(i))))
				m.ID, m.Action = core.NewMessageID(), "urn:ext:echo"
				reply, err := tr.RoundTrip(testCtx(t), m)
				require.NoError(t, err)
				assert.Equal(t, v, reply.Version())
				assert.Equal(t, m.ID, reply.RelatesTo)
				assert.Equal(t, "urn:ext:echoResponse", reply.Action)
				assert.Equal(t, v.String()+" "+strconv.Itoa(i), text(t, reply))
			}
			m := core.NewMessage(v, core.RawBody(body("x", "")))
			m.To, m.Action = "nats:ext.fault", "urn:ext:x"
			_, err := tr.RoundTrip(testCtx(t), m)
			var f *core.Fault
			require.ErrorAs(t, err, &f)
			assert.True(t, f.Remote)
			assert.Equal(t, "refused by urn:ext:x", f.Reason)
		}
		m := core.NewMessage(core.V12, core.RawBody(body("x", "")))
		m.To = "nats:ext.nobody"
		_, err := tr.RoundTrip(testCtx(t), m)
		assert.ErrorIs(t, err, soapnats.ErrNoResponders)
		assert.NotErrorIs(t, err, context.DeadlineExceeded)
	})

	t.Run("JetStream", func(t *testing.T) {
		nc := dial(t, url)
		createStream(t, nc, "EXT", true, "ext.docs.>")
		createStream(t, nc, "EXTDEAD", true, "soapwire.dead.>")
		pub, err := soapnats.NewPublisher(nc, "nats:ext.docs.new?stream=EXT")
		require.NoError(t, err)
		r := newReceiver(t, dial(t, url), "nats:ext.docs.new", "ext-consumer",
			soapnats.WithMaxDeliveries(2), soapnats.WithBackoff(20*time.Millisecond, 20*time.Millisecond))

		good := doc(core.V11, "", "good")
		require.NoError(t, pub.Send(testCtx(t), good))
		dup := doc(core.V11, "", "duplicate")
		dup.ID = good.ID
		require.NoError(t, pub.Send(testCtx(t), dup))
		assert.Equal(t, "true", dup.Meta[soapnats.MetaDuplicate])
		bad := doc(core.V12, "", "bad")
		require.NoError(t, pub.Send(testCtx(t), bad))
		assert.Equal(t, "EXT", bad.Meta[soapnats.MetaStream])

		d := receive(t, r)
		assert.Equal(t, good.ID, d.Message().ID)
		assert.Equal(t, "good", text(t, d.Message()))
		require.NoError(t, d.Ack(testCtx(t)))
		for i := range 2 {
			d := receive(t, r)
			require.Equal(t, bad.ID, d.Message().ID)
			assert.Equal(t, strconv.Itoa(i+1), d.Message().Meta[soapnats.MetaDeliveries])
			require.NoError(t, d.Nack(testCtx(t), errors.New("cannot")))
		}
		dl := nextDead(t, deadLetters(t, nc, "EXTDEAD"))
		assert.Equal(t, bad.ID, dl.Headers().Get(soapnats.HeaderDeadMessageID))
		assert.Equal(t, "2", dl.Headers().Get(soapnats.HeaderDeadDelivered))
		nothing(t, r, 300*time.Millisecond)
	})
}
