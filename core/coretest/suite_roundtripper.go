package coretest

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
)

// NewRoundTripperFunc returns a RoundTripper whose requests are served by h
// on the far side of the binding (an HTTP server, a NATS subscription). It
// registers the cleanup of what it started with t.Cleanup.
type NewRoundTripperFunc func(t *testing.T, h core.Handler) core.RoundTripper

// Handler operations, chosen by the local name of the request's body
// element.
const (
	opEcho   = "Echo"   // reply with the same body and header blocks
	opFault  = "Fault"  // a Sender fault with subcode and detail
	opError  = "Error"  // a plain error, whose text must not leak
	opOneWay = "OneWay" // accepted, no reply
	opSlow   = "Slow"   // waits for ctx to end
	opAction = "Action" // a Sender fault unless Action is what the body says
)

// detail is the fault detail the suite's handler sends.
type detail struct {
	XMLName xml.Name `xml:"urn:soapwire:coretest Info"`
	Code    int      `xml:"Code"`
	Text    string   `xml:"Text"`
}

var subcode = xml.Name{Space: Namespace, Local: "Broken"}

const secret = "coretest-secret: db password hunter2"

// suiteHandler is the server side of TestRoundTripper.
func suiteHandler(release <-chan struct{}) core.Handler {
	return core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		switch op := m.Body().Name().Local; op {
		case opEcho:
			var b bytes.Buffer
			if _, err := m.Body().WriteTo(&b); err != nil {
				return nil, err
			}
			r := m.Reply(core.RawBody(b.Bytes()))
			r.Action = m.Action + "Response"
			r.Envelope.Headers = m.Envelope.Headers
			return r, nil
		case opFault:
			d, err := xml.Marshal(detail{Code: 42, Text: "bad <input> & more"})
			if err != nil {
				return nil, err
			}
			return nil, &core.Fault{Code: core.CodeSender, Subcodes: []xml.Name{subcode},
				Reason: "coretest: the request is wrong", Detail: d}
		case opError:
			return nil, errors.New(secret)
		case opOneWay:
			return nil, m.Body().Discard()
		case opSlow:
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-release:
				return nil, errors.New("coretest: released")
			}
		case opAction:
			var v struct {
				Want string `xml:",chardata"`
			}
			if err := m.Body().Decode(&v); err != nil {
				return nil, err
			}
			if want := v.Want; m.Action != want {
				return nil, core.SenderFault("coretest: Action is %q, want %q", m.Action, v.Want)
			}
			return m.Reply(core.RawBody(body("ActionResponse", m.Action))), nil
		default:
			return nil, core.SenderFault("coretest: unknown operation %q", op)
		}
	})
}

// TestRoundTripper checks the request-response seam: the suite gives newRT
// its handler, which picks what to do by the request body's element name.
// Subtests:
//
//   - Echo/SOAP11, Echo/SOAP12: the reply has the request's version, body
//     and header blocks, RelatesTo = the request's ID, and its own Action;
//   - Fault/…: a handler's *core.Fault comes back as a *core.Fault error
//     with Remote set, Code, Reason, 1.2 Subcode and Detail intact;
//   - PlainError/…: a handler's plain error comes back as a Receiver fault
//     that does not reveal the error's text;
//   - OneWay/… (OneWay): a (nil, nil) answer comes back as (nil, nil);
//   - Deadline/{Deadline,Cancel,CancelledBefore}: a call to a handler that
//     waits returns with ctx's error in its chain (context.DeadlineExceeded
//     or context.Canceled), without waiting for the handler;
//   - Concurrent: Features.Concurrency calls in flight (default 32) each get
//     their own reply;
//   - Action/…/{WithAddressing,ActionOnly}: the handler sees the Action,
//     with or without WS-Addressing headers in the envelope;
//   - LargeBody (MaxBodyBytes >= 0): a large body is echoed intact.
func TestRoundTripper(t *testing.T, f Features, newRT NewRoundTripperFunc) {
	rt := func(t *testing.T) core.RoundTripper {
		release := make(chan struct{})
		t.Cleanup(func() { close(release) })
		return newRT(t, suiteHandler(release))
	}
	t.Run("Echo", func(t *testing.T) { testEcho(t, f, rt) })
	t.Run("Fault", func(t *testing.T) { testFault(t, f, rt) })
	t.Run("PlainError", func(t *testing.T) { testPlainError(t, f, rt) })
	t.Run("OneWay", func(t *testing.T) { testOneWay(t, f, rt) })
	t.Run("Deadline", func(t *testing.T) { testDeadline(t, f, rt) })
	t.Run("Concurrent", func(t *testing.T) { testConcurrentCalls(t, f, rt) })
	t.Run("Action", func(t *testing.T) { testAction(t, f, rt) })
	t.Run("LargeBody", func(t *testing.T) { testLargeEcho(t, f, rt) })
}

func testEcho(t *testing.T, f Features, rt func(*testing.T) core.RoundTripper) {
	for _, v := range f.versions() {
		t.Run(versionName(v), func(t *testing.T) {
			c := rt(t)
			m := message(t, v, opEcho, "echo <&> "+v.String())
			want := body(opEcho, "echo <&> "+v.String())
			sent := snapshot(m)
			reply, err := c.RoundTrip(f.ctx(t), m)
			m = sent
			require.NoError(t, err, "RoundTrip")
			require.NotNil(t, reply, "reply")
			assert.Equal(t, v, reply.Version(), "reply version")
			assert.Equal(t, m.ID, reply.RelatesTo, "reply RelatesTo")
			assert.Equal(t, m.Action+"Response", reply.Action, "reply Action")
			requireHeaders(t, m.Envelope.Headers, reply.Envelope.Headers)
			requireSameXML(t, want, bodyBytes(t, reply), "reply body")
		})
	}
}

func testFault(t *testing.T, f Features, rt func(*testing.T) core.RoundTripper) {
	for _, v := range f.versions() {
		t.Run(versionName(v), func(t *testing.T) {
			c := rt(t)
			m := message(t, v, opFault, "fault")
			reply, err := c.RoundTrip(f.ctx(t), m)
			require.Error(t, err, "RoundTrip of a faulting request")
			assert.Nil(t, reply, "reply beside a fault")
			var fault *core.Fault
			require.ErrorAs(t, err, &fault, "a fault comes back as *core.Fault")
			assert.True(t, fault.Remote, "Remote")
			assert.Equal(t, core.CodeSender, fault.Code, "Code")
			assert.Equal(t, "coretest: the request is wrong", fault.Reason, "Reason")
			if v == core.V12 {
				assert.True(t, fault.HasSubcode(subcode), "Subcode %v in %v", subcode, fault.Subcodes)
			}
			var d detail
			require.NoError(t, xml.Unmarshal(fault.Detail, &d), "decode Detail %q", fault.Detail)
			assert.Equal(t, detail{XMLName: d.XMLName, Code: 42, Text: "bad <input> & more"}, d, "Detail")
			assert.Equal(t, xml.Name{Space: Namespace, Local: "Info"}, d.XMLName, "Detail element")
		})
	}
}

func testPlainError(t *testing.T, f Features, rt func(*testing.T) core.RoundTripper) {
	for _, v := range f.versions() {
		t.Run(versionName(v), func(t *testing.T) {
			_, err := rt(t).RoundTrip(f.ctx(t), message(t, v, opError, "error"))
			var fault *core.Fault
			require.ErrorAs(t, err, &fault, "a handler's plain error comes back as *core.Fault")
			assert.True(t, fault.Remote, "Remote")
			assert.Equal(t, core.CodeReceiver, fault.Code, "Code")
			assert.NotContains(t, fault.Error(), "hunter2", "the error's text leaked to the peer")
			assert.NotContains(t, string(fault.Detail), "hunter2", "the error's text leaked to the peer")
		})
	}
}

func testOneWay(t *testing.T, f Features, rt func(*testing.T) core.RoundTripper) {
	if !f.OneWay {
		t.Skip("binding does not carry one-way messages (Features.OneWay)")
	}
	for _, v := range f.versions() {
		t.Run(versionName(v), func(t *testing.T) {
			reply, err := rt(t).RoundTrip(f.ctx(t), message(t, v, opOneWay, "one way"))
			require.NoError(t, err)
			require.Nil(t, reply, "a one-way answer is (nil, nil)")
		})
	}
}

func testDeadline(t *testing.T, f Features, rt func(*testing.T) core.RoundTripper) {
	tests := []struct {
		name string
		ctx  func(t *testing.T) context.Context
		want error
	}{
		{"Deadline", func(t *testing.T) context.Context {
			ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
			t.Cleanup(cancel)
			return ctx
		}, context.DeadlineExceeded},
		{"Cancel", func(t *testing.T) context.Context {
			ctx, cancel := context.WithCancel(t.Context())
			t.Cleanup(cancel)
			go func() { time.Sleep(50 * time.Millisecond); cancel() }()
			return ctx
		}, context.Canceled},
		{"CancelledBefore", func(t *testing.T) context.Context {
			ctx, cancel := context.WithCancel(t.Context())
			cancel()
			return ctx
		}, context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := rt(t)
			m := message(t, f.versions()[0], opSlow, "slow")
			ctx := tt.ctx(t)
			err := f.within(t, "RoundTrip to a slow handler", func() error {
				reply, err := c.RoundTrip(ctx, m)
				if err == nil {
					return fmt.Errorf("the slow call succeeded: %v", reply)
				}
				return err
			})
			require.ErrorIs(t, err, tt.want)
		})
	}
}

func testConcurrentCalls(t *testing.T, f Features, rt func(*testing.T) core.RoundTripper) {
	c := rt(t)
	n := f.concurrency(32)
	vs := f.versions()
	ctx := f.ctx(t)
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = func() error {
				v := vs[i%len(vs)]
				m := core.NewMessage(v, core.RawBody(body(opEcho, strconv.Itoa(i))))
				id := core.NewMessageID()
				m.ID, m.Action = id, Namespace+"/Echo"
				reply, err := c.RoundTrip(ctx, m)
				if err != nil {
					return fmt.Errorf("call %d: %w", i, err)
				}
				if reply == nil || reply.RelatesTo != id || reply.Version() != v {
					return fmt.Errorf("call %d: got a reply to another request: %+v", i, reply)
				}
				var got struct {
					Text string `xml:",chardata"`
				}
				if err := reply.Body().Decode(&got); err != nil || got.Text != strconv.Itoa(i) {
					return fmt.Errorf("call %d: reply body %q (%v)", i, got.Text, err)
				}
				return nil
			}()
		}()
	}
	wg.Wait()
	for _, err := range errs {
		assert.NoError(t, err)
	}
}

func testAction(t *testing.T, f Features, rt func(*testing.T) core.RoundTripper) {
	for _, v := range f.versions() {
		for _, withID := range []bool{true, false} {
			name := versionName(v) + "/ActionOnly"
			if withID {
				name = versionName(v) + "/WithAddressing"
			}
			t.Run(name, func(t *testing.T) {
				action := Namespace + "/Action/" + v.String()
				m := core.NewMessage(v, core.RawBody(body(opAction, action)))
				m.Action = action
				if withID {
					m.ID = core.NewMessageID()
				}
				reply, err := rt(t).RoundTrip(f.ctx(t), m)
				require.NoError(t, err, "the handler did not see Action %q", action)
				require.NotNil(t, reply)
				assert.Equal(t, action, bodyText(t, reply))
			})
		}
	}
}

func testLargeEcho(t *testing.T, f Features, rt func(*testing.T) core.RoundTripper) {
	if f.maxBody() < 0 {
		t.Skip("binding does not carry large bodies (Features.MaxBodyBytes < 0)")
	}
	want := large(f.maxBody())
	want = bytes.Replace(want, []byte("Blob"), []byte(opEcho), 2)
	m := core.NewMessage(f.versions()[len(f.versions())-1], core.RawBody(want))
	m.ID = core.NewMessageID()
	reply, err := rt(t).RoundTrip(f.ctx(t), m)
	require.NoError(t, err)
	require.NotNil(t, reply)
	requireSameXML(t, want, bodyBytes(t, reply), "large body")
}
