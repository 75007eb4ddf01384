package core_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/coretest"
)

// lockedBuffer is a log destination several goroutines write to.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) count(s string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Count(l.b.String(), s)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// mailRoutes is a replies Sender that records what it is given and routes
// only mailto addresses, as the SMTP binding's Sender does.
type mailRoutes struct {
	mu   sync.Mutex
	sent []string
}

func (s *mailRoutes) Send(_ context.Context, m *core.Message) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sent = append(s.sent, m.To)
	return nil
}

func (s *mailRoutes) CheckAddress(addr string) error {
	if !strings.HasPrefix(addr, "mailto:") {
		return errors.New("smtp: only mailto addresses")
	}
	return nil
}

func (s *mailRoutes) all() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.sent...)
}

// TestServeRefusesReplyDestinations: a request whose ReplyTo or FaultTo the
// policy refuses, or that the replies Sender cannot reach, is parked
// unhandled with a Sender fault naming the address, one log line each,
// nothing sent; the requests around it are answered.
func TestServeRefusesReplyDestinations(t *testing.T) {
	hostile := []struct {
		name, replyTo, faultTo string
		reason                 string
	}{
		{"a third party's mailbox", "mailto:victim@third.example", "", "victim@third.example"},
		{"a third party as FaultTo", "mailto:buyer@partner.example", "mailto:victim@third.example", "victim@third.example"},
		{"several recipients", "mailto:buyer@partner.example?bcc=victim@third.example", "", "header fields"},
		{"a scheme with no route", "http://partner.example/replies", "", "cannot be reached"},
		{"the cloud metadata service", "http://169.254.169.254/latest/meta-data", "", "169.254.169.254"},
	}
	for _, v := range []core.Version{core.V11, core.V12} {
		t.Run(v.String(), func(t *testing.T) {
			logs := &lockedBuffer{}
			inbox := coretest.NewPipe()
			t.Cleanup(func() { _ = inbox.Close() })
			replies := &mailRoutes{}
			var runs atomic.Int32
			var seenPolicy atomic.Bool
			h := core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
				runs.Add(1)
				if p, ok := core.ReplyPolicyOf(ctx); ok && len(p.Mailboxes) == 1 {
					seenPolicy.Store(true)
				}
				return m.Reply(core.RawBody([]byte(`<e:Done xmlns:e="urn:e"/>`))), nil
			})
			ctx, cancel := context.WithCancel(t.Context())
			done := make(chan error, 1)
			go func() {
				done <- core.Serve(ctx, inbox, h, replies, core.WithConcurrency(2),
					core.WithLogger(slog.New(slog.NewTextHandler(logs, nil))),
					core.WithReplyPolicy(core.ReplyPolicy{Mailboxes: []string{"@partner.example"}}))
			}()
			t.Cleanup(func() { cancel(); <-done })

			send := func(id, replyTo, faultTo string) {
				m := core.NewMessage(v, core.RawBody([]byte(`<e:Do xmlns:e="urn:e"/>`)))
				m.ID, m.ReplyTo, m.FaultTo, m.Action = id, replyTo, faultTo, "urn:e:Do"
				require.NoError(t, inbox.Send(t.Context(), m))
			}
			send("urn:uuid:legit-1", "mailto:buyer@partner.example", "")
			for i, c := range hostile {
				send("urn:uuid:hostile-"+string(rune('a'+i)), c.replyTo, c.faultTo)
			}
			send("urn:uuid:legit-2", "mailto:buyer@partner.example", "")

			require.Eventually(t, func() bool { return len(inbox.Parked()) == len(hostile) && len(replies.all()) == 2 }, 10e9, 1e6,
				"parked %d, sent %v", len(inbox.Parked()), replies.all())
			assert.Equal(t, int32(2), runs.Load(), "the handler ran for the legitimate requests only")
			assert.True(t, seenPolicy.Load(), "the handler sees Serve's policy (ReplyPolicyOf)")
			assert.Equal(t, []string{"mailto:buyer@partner.example", "mailto:buyer@partner.example"}, replies.all(),
				"nothing went to a refused address")
			reasons := make([]string, 0, len(hostile))
			for _, f := range inbox.Parked() {
				assert.Equal(t, core.CodeSender, f.Code)
				assert.Equal(t, v, f.Version, "the fault is in the request's version")
				reasons = append(reasons, f.Reason)
			}
			for _, c := range hostile {
				found := false
				for _, r := range reasons {
					found = found || strings.Contains(r, c.reason)
				}
				assert.True(t, found, "%s: a parked fault names %q: %q", c.name, c.reason, reasons)
			}
			assert.Equal(t, len(hostile), logs.count(`msg="soap: reply address refused`), "one log line per refusal:\n%s", logs)
		})
	}
}
