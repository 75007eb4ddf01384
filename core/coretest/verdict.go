package coretest

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
)

// BrokenTail is an envelope whose operation element is sound and whose
// rest is not: a handler that decodes the operation and replies has not
// seen what is wrong, and the binding must answer the fault all the same
// (core.Message.Verdict).
type BrokenTail struct {
	Name     string // the shape, as a subtest name
	Reason   string // what the fault's reason contains
	Envelope []byte // the bytes a peer sends
}

// verdictReply is the text of the reply the verdict handler sends: a peer
// that sees it was answered as if a broken envelope were sound.
const verdictReply = "handler-reply"

// envelopeParts returns the start of an envelope of version v, with the
// WS-Addressing MessageID and ReplyTo headers when id and replyTo are not
// "", up to and with the operation element <t:Ping>text</t:Ping>, and the
// end of its Body and of its Envelope.
func envelopeParts(v core.Version, id, replyTo, text string) (start, bodyEnd, envEnd string) {
	var b strings.Builder
	fmt.Fprintf(&b, `<e:Envelope xmlns:e="%s">`, v.Namespace())
	if id != "" || replyTo != "" {
		b.WriteString(`<e:Header>`)
		if id != "" {
			fmt.Fprintf(&b, `<a:MessageID xmlns:a="%s">%s</a:MessageID>`, core.NamespaceAddressing, id)
		}
		if replyTo != "" {
			fmt.Fprintf(&b, `<a:ReplyTo xmlns:a="%s"><a:Address>%s</a:Address></a:ReplyTo>`, core.NamespaceAddressing, replyTo)
		}
		b.WriteString(`</e:Header>`)
	}
	b.WriteString(`<e:Body>`)
	b.Write(body("Ping", text))
	return b.String(), `</e:Body>`, `</e:Envelope>`
}

// SoundEnvelope is the envelope the broken tails break: version v, with
// the WS-Addressing MessageID and ReplyTo headers when id and replyTo are
// not "", and the operation element <t:Ping> of Namespace holding text.
func SoundEnvelope(v core.Version, id, replyTo, text string) []byte {
	start, bodyEnd, envEnd := envelopeParts(v, id, replyTo, text)
	return []byte(start + bodyEnd + envEnd)
}

// BrokenTails returns the broken-tail shapes of SoundEnvelope(v, id,
// replyTo, text): cut off after the operation element, a malformed element
// after it, a second Body, an element after the Body (WS-I BP R1011), a
// Header after the Body carrying a mustUnderstand block, a second Envelope
// after the end, text after the end. Each is answered with a Sender fault
// (1.1 Client) whose reason contains Reason.
func BrokenTails(v core.Version, id, replyTo, text string) []BrokenTail {
	start, bodyEnd, envEnd := envelopeParts(v, id, replyTo, text)
	ns := v.Namespace()
	return []BrokenTail{
		{"CutOff", "unexpected end of input", []byte(start)},
		{"CutOffInBody", "unexpected end of input", []byte(start + `<t:More xmlns:t="` + Namespace + `">`)},
		{"MalformedAfter", "closed by", []byte(start + `<x:More xmlns:x="urn:x"></x:Mroe>` + bodyEnd + envEnd)},
		{"SecondBody", "two Bodies", []byte(start + bodyEnd + `<e:Body/>` + envEnd)},
		{"ElementAfterBody", "after the Body", []byte(start + bodyEnd + `<x:Extra xmlns:x="urn:x"/>` + envEnd)},
		{"HeaderAfterBody", "after the Body", []byte(start + bodyEnd +
			`<e:Header><x:Must xmlns:x="urn:x" e:mustUnderstand="` + trueValue(v) + `"/></e:Header>` + envEnd)},
		{"SecondEnvelope", "after the root element", []byte(start + bodyEnd + envEnd + `<e:Envelope xmlns:e="` + ns + `"><e:Body/></e:Envelope>`)},
		{"TextAfterEnd", "outside the root element", []byte(start + bodyEnd + envEnd + `garbage`)},
	}
}

func trueValue(v core.Version) string {
	if v == core.V11 {
		return "1"
	}
	return "true"
}

// VerdictHandler is the handler the verdict suites serve: it decodes the
// operation element, as the documentation's handlers do, and replies
// <t:Pong>handler-reply</t:Pong>, reading nothing further. It calls
// called (when not nil) with each request's ID.
func VerdictHandler(called func(id string)) core.Handler {
	return core.HandlerFunc(func(_ context.Context, m *core.Message) (*core.Message, error) {
		if called != nil {
			called(m.ID)
		}
		var v struct {
			XMLName xml.Name
			Text    string `xml:",chardata"`
		}
		if err := m.Body().Decode(&v); err != nil {
			return nil, err
		}
		return m.Reply(core.RawBody(body("Pong", verdictReply))), nil
	})
}

// RawRoundTripFunc sends data, the bytes of an envelope of version v as a
// peer wrote them (perhaps broken), with v's media type, and returns the
// answer as a core.RoundTripper does: a fault reply as a *core.Fault error
// with Remote set.
type RawRoundTripFunc func(ctx context.Context, v core.Version, data []byte) (*core.Message, error)

// NewRawRoundTripperFunc starts the binding's server serving h (on
// loopback, its cleanup registered with t.Cleanup) and returns how to send
// it raw requests.
type NewRawRoundTripperFunc func(t *testing.T, h core.Handler) RawRoundTripFunc

// TestVerdictRoundTrip checks that a request-response server answers the
// whole envelope, not only the part its handler read: each BrokenTail, in
// each version, sent to VerdictHandler, is answered with the Sender fault
// naming the problem, never with the handler's reply. Subtests:
// SOAP11/Sound (the same envelope whole gets the handler's reply),
// SOAP11/CutOff, SOAP11/SecondBody, … and the same for SOAP12.
func TestVerdictRoundTrip(t *testing.T, f Features, newRT NewRawRoundTripperFunc) {
	for _, v := range f.versions() {
		t.Run(versionName(v), func(t *testing.T) {
			rt := newRT(t, VerdictHandler(nil))
			t.Run("Sound", func(t *testing.T) {
				reply, err := rt(f.ctx(t), v, SoundEnvelope(v, "", "", "sound"))
				require.NoError(t, err, "a sound envelope is answered")
				require.NotNil(t, reply, "a sound envelope gets the handler's reply")
				assert.Equal(t, verdictReply, bodyText(t, reply))
			})
			for _, bt := range BrokenTails(v, "", "", "broken") {
				t.Run(bt.Name, func(t *testing.T) {
					reply, err := rt(f.ctx(t), v, bt.Envelope)
					if reply != nil {
						var b strings.Builder
						_, _ = reply.WriteTo(&b)
						t.Fatalf("the handler's reply was sent for a broken envelope:\n%s\nin answer to\n%s", b.String(), bt.Envelope)
					}
					var fault *core.Fault
					require.ErrorAs(t, err, &fault, "the answer to\n%s", bt.Envelope)
					assert.True(t, fault.Remote, "the fault came from the server")
					assert.Equal(t, core.CodeSender, fault.Code, "%s", fault.Reason)
					assert.Contains(t, fault.Reason, bt.Reason)
				})
			}
		})
	}
}

// RawSendFunc stores data, the bytes of an envelope of version v as a peer
// wrote them (perhaps broken), where the Receiver at addr reads it (a
// mail in the mailbox, a file in the drop folder, a message on the
// stream), as the peer's transport would. It returns an error when the
// binding refuses the message on arrival (it is then never delivered).
type RawSendFunc func(t *testing.T, addr string, v core.Version, data []byte) error

// ParkedFunc returns how many messages the binding behind the Receiver at
// addr has parked (dead-lettered) so far: refused on arrival, or Nacked as
// malformed. A binding whose Receiver reads every envelope whole before it
// delivers it parks some broken tails on arrival: they never reach Serve.
type ParkedFunc func(t *testing.T, addr string) int

// TestVerdictServe checks a Receiver under core.Serve with broken tails:
// each BrokenTail, in each version, with a MessageID and a ReplyTo, is
// either refused by the binding when sent (sendRaw's error), parked by it
// on arrival, or delivered, handled by VerdictHandler, and then answered
// at ReplyTo with the Sender fault naming the problem (never the
// handler's reply) and Nacked with core.ErrMalformed in the cause, never
// Acked. With parked (nil if the binding has no such count), every broken
// envelope stored must end up parked. A sound envelope sent beside them
// gets the handler's reply and is Acked. Subtests: SOAP11, SOAP12.
func TestVerdictServe(t *testing.T, f Features, newPair NewPairFunc, sendRaw RawSendFunc, parked ParkedFunc) {
	for _, v := range f.versions() {
		t.Run(versionName(v), func(t *testing.T) {
			_, r, addr := newPair(t)
			rs, rr, raddr := newPair(t)
			rec := &settlements{Receiver: r, how: map[string]settlement{}}
			serve(t, rec, VerdictHandler(nil), rs)
			want := map[string]BrokenTail{}
			var refused []string
			for i := range BrokenTails(v, "", "", "") {
				id := core.NewMessageID()
				bt := BrokenTails(v, id, raddr, "broken")[i]
				if err := sendRaw(t, addr, v, bt.Envelope); err != nil {
					refused = append(refused, bt.Name)
					continue
				}
				want[id] = bt
			}
			soundID := core.NewMessageID()
			require.NoError(t, sendRaw(t, addr, v, SoundEnvelope(v, soundID, raddr, "sound")), "a sound envelope is stored")
			if len(refused) > 0 {
				t.Logf("refused when sent: %s", strings.Join(refused, ", "))
			}
			// Wait until every broken envelope stored is parked, then
			// expect an answer for each that reached Serve.
			expect := len(want)
			if parked != nil {
				ctx := f.ctx(t)
				for parked(t, addr) < len(want) {
					select {
					case <-ctx.Done():
						t.Fatalf("%d of %d broken envelopes parked within %s", parked(t, addr), len(want), f.timeout())
					case <-time.After(10 * time.Millisecond):
					}
				}
				rec.wait(t, f)
				expect = 0
				for id := range rec.ids() {
					if _, ok := want[id]; ok {
						expect++
					}
				}
				if expect < len(want) {
					t.Logf("%d of %d broken envelopes parked on arrival", len(want)-expect, len(want))
				}
			}
			sound := false
			for n := expect + 1; n > 0; n-- {
				d := f.receive(t, rr)
				m := d.Message()
				if m.RelatesTo == soundID {
					assert.Nil(t, m.Fault(), "the sound envelope's answer is the reply")
					assert.Equal(t, verdictReply, bodyText(t, m))
					sound = true
					require.NoError(t, d.Ack(f.ctx(t)))
					continue
				}
				bt, ok := want[m.RelatesTo]
				require.True(t, ok, "an answer relating to %q, no request still waiting", m.RelatesTo)
				delete(want, m.RelatesTo)
				fault := m.Fault()
				if !assert.NotNil(t, fault, "%s: the answer is a fault, not the handler's reply", bt.Name) {
					continue
				}
				assert.Equal(t, core.CodeSender, fault.Code, "%s: %s", bt.Name, fault.Reason)
				assert.Contains(t, fault.Reason, bt.Reason, bt.Name)
				assert.Equal(t, core.FaultAction, m.Action, "%s: the fault Action", bt.Name)
				require.NoError(t, d.Ack(f.ctx(t)))
			}
			assert.True(t, sound, "the sound envelope was answered")
			rec.wait(t, f)
			for id := range rec.ids() {
				how := rec.get(id)
				if id == soundID {
					assert.Equal(t, "ack", how.state, "the sound envelope is Acked")
					continue
				}
				assert.Equal(t, "nack", how.state, "a broken envelope is never Acked as processed")
				assert.ErrorIs(t, how.cause, core.ErrMalformed, "a broken envelope is Nacked as malformed (parked)")
				assert.Equal(t, 1, how.deliveries, "a malformed envelope is not redelivered")
			}
		})
	}
}

// settlements is a Receiver whose deliveries record how Serve settled
// them, by message ID.
type settlements struct {
	core.Receiver
	mu  sync.Mutex
	how map[string]settlement
}

type settlement struct {
	state      string // "", "ack", "nack"
	cause      error
	deliveries int
}

func (s *settlements) Receive(ctx context.Context) (core.Delivery, error) {
	d, err := s.Receiver.Receive(ctx)
	if err != nil {
		return d, err
	}
	id := d.Message().ID
	s.mu.Lock()
	st := s.how[id]
	st.deliveries++
	s.how[id] = st
	s.mu.Unlock()
	return &recordedDelivery{Delivery: d, s: s, id: id}, nil
}

func (s *settlements) set(id, state string, cause error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.how[id]
	if st.state == "" {
		st.state, st.cause = state, cause
	}
	s.how[id] = st
}

func (s *settlements) get(id string) settlement {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.how[id]
}

func (s *settlements) ids() map[string]bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	ids := make(map[string]bool, len(s.how))
	for id := range s.how {
		ids[id] = true
	}
	return ids
}

// wait waits until every delivery seen is settled (Serve settles a
// delivery after it sent its answer).
func (s *settlements) wait(t *testing.T, f Features) {
	t.Helper()
	ctx := f.ctx(t)
	for {
		all := true
		for id := range s.ids() {
			if s.get(id).state == "" {
				all = false
			}
		}
		if all {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("deliveries not settled within %s", f.timeout())
		case <-time.After(10 * time.Millisecond):
		}
	}
}

type recordedDelivery struct {
	core.Delivery
	s  *settlements
	id string
}

func (d *recordedDelivery) Ack(ctx context.Context) error {
	err := d.Delivery.Ack(ctx)
	if err == nil {
		d.s.set(d.id, "ack", nil)
	}
	return err
}

func (d *recordedDelivery) Nack(ctx context.Context, cause error) error {
	err := d.Delivery.Nack(ctx, cause)
	if err == nil || !errors.Is(err, core.ErrSettled) {
		d.s.set(d.id, "nack", cause)
	}
	return err
}
