package http_test

import (
	"context"
	"encoding/binary"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soaphttp "github.com/soapwire/soapwire/bindings/http"
	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/coretest"
)

// fakeDNS serves, on a loopback UDP port, A records for the names in
// names (lower case, no trailing dot) and nothing for any other question:
// a peer's DNS that points a name of its own at an address inside.
func fakeDNS(t *testing.T, names map[string][4]byte) *net.Resolver {
	t.Helper()
	pc, err := net.ListenPacket("udp4", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { pc.Close() })
	go func() {
		buf := make([]byte, 1500)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			if out := dnsAnswer(buf[:n], names); out != nil {
				pc.WriteTo(out, from)
			}
		}
	}()
	addr := pc.LocalAddr().String()
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "udp4", addr)
	}}
}

// dnsAnswer answers one DNS query (RFC 1035 §4): its question, and an A
// record when it asks for one of names.
func dnsAnswer(q []byte, names map[string][4]byte) []byte {
	if len(q) < 12 {
		return nil
	}
	off := 12
	var labels []string
	for off < len(q) && q[off] != 0 {
		l := int(q[off])
		if l > 63 || off+1+l > len(q) {
			return nil
		}
		labels = append(labels, strings.ToLower(string(q[off+1:off+1+l])))
		off += 1 + l
	}
	off++ // the root label
	if off+4 > len(q) {
		return nil
	}
	qtype := binary.BigEndian.Uint16(q[off:])
	off += 4
	ip, found := names[strings.Join(labels, ".")]
	out := make([]byte, 0, off+16)
	out = append(out, q[0], q[1], 0x81, 0x80, 0, 1, 0, 0, 0, 0, 0, 0) // a response, no error
	out = append(out, q[12:off]...)
	if found && qtype == 1 {
		out[7] = 1 // one answer
		out = append(out, 0xc0, 12, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4)
		out = append(out, ip[:]...)
	}
	return out
}

// counting is an HTTP server that counts the requests it is given and
// accepts them (202).
func counting(t *testing.T) (port string, got *atomic.Int32) {
	t.Helper()
	got = &atomic.Int32{}
	u := serveHTTP(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		got.Add(1)
		w.WriteHeader(http.StatusAccepted)
	}))
	_, port, _ = strings.Cut(strings.TrimPrefix(u, "http://"), ":")
	return port, got
}

// TestTransportChecksAnswersWhereItConnects: an answer (a Send whose ctx
// core.Serve marked with core.WithAnswerPolicy) to a name that resolves
// to 127.0.0.1 is refused before a connection is made, under the default
// policy; the opt-ins (Private, the host in Hosts) let it through, and a
// call that is no answer is not checked. A connection the Transport keeps
// from such a call is not reused for an answer.
func TestTransportChecksAnswersWhereItConnects(t *testing.T) {
	port, got := counting(t)
	dns := fakeDNS(t, map[string][4]byte{"replies.partner.test": {127, 0, 0, 1}})
	tr := soaphttp.NewTransport("", soaphttp.WithResolver(dns))
	t.Cleanup(tr.CloseIdleConnections)
	send := func(ctx context.Context, to string) error {
		m := core.NewMessage(core.V12, core.RawBody([]byte(`<e:Done xmlns:e="urn:e"/>`)))
		m.To = to
		return tr.Send(ctx, m)
	}
	for _, to := range []string{
		"http://localhost:" + port + "/replies",            // /etc/hosts
		"http://replies.partner.test:" + port + "/replies", // the peer's DNS
	} {
		// not an answer: a call the service makes of its own (the
		// connection is kept for the next)
		require.NoError(t, send(t.Context(), to), to)
		require.Equal(t, int32(1), got.Load())

		answer := core.WithAnswerPolicy(t.Context(), core.ReplyPolicy{})
		err := send(answer, to)
		assert.ErrorIs(t, err, core.ErrReplyRefused, to)
		assert.ErrorContains(t, err, "127.0.0.1:"+port)
		assert.Equal(t, int32(1), got.Load(), "%s: nothing was posted", to)

		host := strings.TrimPrefix(to, "http://")
		host = host[:strings.IndexByte(host, '/')]
		for name, p := range map[string]core.ReplyPolicy{
			"Private": {Private: true},
			"Hosts":   {Hosts: []string{host}},
		} {
			require.NoError(t, send(core.WithAnswerPolicy(t.Context(), p), to), "%s with %s", to, name)
		}
		assert.Equal(t, int32(3), got.Load())
		got.Store(0)
	}
}

// TestTransportUncheckableClient: a Transport whose client (WithClient)
// dials in a way the check cannot enter refuses answers that need the
// check, and sends the others.
func TestTransportUncheckableClient(t *testing.T) {
	port, got := counting(t)
	var d net.Dialer
	own := &http.Transport{DialContext: d.DialContext}
	tr := soaphttp.NewTransport("", soaphttp.WithClient(&http.Client{Transport: own}))
	m := core.NewMessage(core.V12, core.RawBody([]byte(`<e:Done xmlns:e="urn:e"/>`)))
	m.To = "http://partner.example:" + port + "/"
	err := tr.Send(core.WithAnswerPolicy(t.Context(), core.ReplyPolicy{}), m)
	assert.ErrorIs(t, err, core.ErrReplyRefused)
	assert.ErrorContains(t, err, "WithClient")
	m.To = "http://localhost:" + port + "/"
	require.NoError(t, tr.Send(core.WithAnswerPolicy(t.Context(), core.ReplyPolicy{Private: true}), m))
	assert.Equal(t, int32(1), got.Load())
}

// TestServeAnswersByNameChecked: under core.Serve with an HTTP Transport
// as its replies Sender, a request whose ReplyTo names a host that the
// peer's DNS points at 127.0.0.1 is handled, its answer refused where it
// would connect, and the request parked with a Sender fault naming the
// address; nothing reaches the address. With ReplyPolicy.Private the same
// request is answered there.
func TestServeAnswersByNameChecked(t *testing.T) {
	port, got := counting(t)
	dns := fakeDNS(t, map[string][4]byte{"replies.partner.test": {127, 0, 0, 1}})
	replyTo := "http://replies.partner.test:" + port + "/replies"
	for _, tc := range []struct {
		name   string
		policy core.ReplyPolicy
		parked bool
	}{
		{"default", core.ReplyPolicy{}, true},
		{"Private", core.ReplyPolicy{Private: true}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got.Store(0)
			tr := soaphttp.NewTransport("", soaphttp.WithResolver(dns))
			t.Cleanup(tr.CloseIdleConnections)
			inbox := coretest.NewPipe()
			t.Cleanup(func() { _ = inbox.Close() })
			var handled atomic.Int32
			h := core.HandlerFunc(func(_ context.Context, m *core.Message) (*core.Message, error) {
				handled.Add(1)
				return m.Reply(core.RawBody([]byte(`<e:Done xmlns:e="urn:e"/>`))), nil
			})
			ctx, cancel := context.WithCancel(t.Context())
			done := make(chan error, 1)
			go func() {
				done <- core.Serve(ctx, inbox, h, tr, core.WithReplyPolicy(tc.policy), core.WithLogger(slog.New(slog.DiscardHandler)))
			}()
			t.Cleanup(func() { cancel(); <-done })
			m := core.NewMessage(core.V11, core.RawBody([]byte(`<e:Do xmlns:e="urn:e"/>`)))
			m.ID, m.ReplyTo = core.NewMessageID(), replyTo
			require.NoError(t, inbox.Send(t.Context(), m))
			if tc.parked {
				require.Eventually(t, func() bool { return len(inbox.Parked()) == 1 }, 10e9, 1e6)
				f := inbox.Parked()[0]
				assert.ErrorIs(t, f, core.ErrReplyRefused)
				assert.Equal(t, core.CodeSender, f.Code)
				assert.Contains(t, f.Reason, replyTo)
				assert.Equal(t, int32(0), got.Load(), "nothing reached the address")
			} else {
				require.Eventually(t, func() bool { return got.Load() == 1 }, 10e9, 1e6)
				assert.Empty(t, inbox.Parked())
			}
			assert.Equal(t, int32(1), handled.Load())
		})
	}
}
