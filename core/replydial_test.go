package core_test

import (
	"context"
	"log/slog"
	"net"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/coretest"
)

// TestDialControl: the addresses a name may resolve to, judged as Allow
// judges an IP address without Private.
func TestDialControl(t *testing.T) {
	for _, tc := range []struct {
		addr string
		ok   bool
	}{
		{"127.0.0.1:80", false},
		{"127.1.2.3:8080", false},
		{"[::1]:443", false},
		{"[::ffff:127.0.0.1]:80", false},
		{"10.0.0.7:80", false},
		{"172.16.0.1:80", false},
		{"192.168.1.1:80", false},
		{"169.254.169.254:80", false},
		{"[fe80::1%eth0]:80", false},
		{"[fd00::1]:80", false},
		{"100.64.0.1:80", false},
		{"0.0.0.0:80", false},
		{"[::]:80", false},
		{"224.0.0.1:80", false},
		{"255.255.255.255:80", false},
		{"localhost:80", false}, // not an IP address: a dialer always gives one
		{"93.184.215.14:443", true},
		{"[2606:4700::1]:443", true},
		{"8.8.8.8:53", true},
	} {
		err := core.DialControl("tcp", tc.addr, nil)
		if tc.ok {
			assert.NoError(t, err, tc.addr)
		} else {
			assert.ErrorIs(t, err, core.ErrReplyRefused, tc.addr)
		}
	}
}

// TestDialControlInADialer: a net.Dialer with DialControl refuses a name
// that resolves to 127.0.0.1 ("localhost", which a listener answers), and
// connects with it off.
func TestDialControlInADialer(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	_, port, _ := net.SplitHostPort(l.Addr().String())
	d := net.Dialer{Control: core.DialControl}
	_, err = d.DialContext(t.Context(), "tcp4", net.JoinHostPort("localhost", port))
	assert.ErrorIs(t, err, core.ErrReplyRefused)
	var plain net.Dialer
	c, err := plain.DialContext(t.Context(), "tcp4", net.JoinHostPort("localhost", port))
	require.NoError(t, err, "the listener is there")
	c.Close()
}

func TestNeedsDialCheck(t *testing.T) {
	u := func(s string) *url.URL {
		v, err := url.Parse(s)
		require.NoError(t, err)
		return v
	}
	assert.True(t, core.ReplyPolicy{}.NeedsDialCheck(u("https://partner.example/replies")), "the default checks")
	assert.False(t, core.ReplyPolicy{Private: true}.NeedsDialCheck(u("https://partner.example/")), "Private opts in")
	listed := core.ReplyPolicy{Hosts: []string{"backend.internal", ".corp.example", "pinned.example:8443"}}
	assert.False(t, listed.NeedsDialCheck(u("http://backend.internal/replies")), "a listed name may point inside")
	assert.False(t, listed.NeedsDialCheck(u("http://a.corp.example/")))
	assert.False(t, listed.NeedsDialCheck(u("https://pinned.example:8443/")))
	assert.True(t, listed.NeedsDialCheck(u("https://pinned.example/")), "the listed port only")
	assert.True(t, listed.NeedsDialCheck(u("https://other.example/")))
}

func TestAnswerPolicyOf(t *testing.T) {
	_, ok := core.AnswerPolicyOf(t.Context())
	assert.False(t, ok)
	p, ok := core.AnswerPolicyOf(core.WithAnswerPolicy(t.Context(), core.ReplyPolicy{Private: true}))
	assert.True(t, ok)
	assert.True(t, p.Private)
}

// refusingSender routes http addresses and refuses where it connects, as
// bindings/http's Transport does for a name that resolves inside; it
// records the answer policy of each Send's ctx.
type refusingSender struct {
	mu       sync.Mutex
	policies []bool // AnswerPolicyOf's ok, per Send
}

func (s *refusingSender) Send(ctx context.Context, m *core.Message) error {
	_, ok := core.AnswerPolicyOf(ctx)
	s.mu.Lock()
	s.policies = append(s.policies, ok)
	s.mu.Unlock()
	return &net.OpError{Op: "dial", Net: "tcp", Err: core.DialControl("tcp", "127.0.0.1:80", nil)}
}

func (s *refusingSender) CheckAddress(string) error { return nil }

// TestServeAnswerRefusedWhereItConnects: Serve sends answers with the
// policy in the ctx (core.AnswerPolicyOf), and an answer the Sender
// refuses where it connects (core.ErrReplyRefused) parks the request at
// once, not redelivered.
func TestServeAnswerRefusedWhereItConnects(t *testing.T) {
	inbox := coretest.NewPipe()
	t.Cleanup(func() { _ = inbox.Close() })
	replies := &refusingSender{}
	var runs atomic.Int32
	h := core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		runs.Add(1)
		_, marked := core.AnswerPolicyOf(ctx)
		assert.False(t, marked, "the handler's own calls are no answers")
		return m.Reply(core.RawBody([]byte(`<e:Done xmlns:e="urn:e"/>`))), nil
	})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		done <- core.Serve(ctx, inbox, h, replies, core.WithLogger(slog.New(slog.DiscardHandler)))
	}()
	t.Cleanup(func() { cancel(); <-done })
	m := core.NewMessage(core.V12, core.RawBody([]byte(`<e:Do xmlns:e="urn:e"/>`)))
	m.ID, m.ReplyTo = "urn:uuid:inside", "http://inside.example/replies"
	require.NoError(t, inbox.Send(t.Context(), m))
	require.Eventually(t, func() bool { return len(inbox.Parked()) == 1 }, 10e9, 1e6)
	f := inbox.Parked()[0]
	assert.ErrorIs(t, f, core.ErrReplyRefused, "parked with the refusal")
	assert.Equal(t, core.CodeSender, f.Code)
	assert.Equal(t, core.V12, f.Version)
	assert.Contains(t, f.Reason, "http://inside.example/replies")
	assert.Equal(t, int32(1), runs.Load(), "handled once, not redelivered")
	replies.mu.Lock()
	defer replies.mu.Unlock()
	assert.Equal(t, []bool{true}, replies.policies, "the answer was sent with the policy in its ctx")
}
