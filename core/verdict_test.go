package core_test

import (
	"bytes"
	"context"
	"encoding/xml"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/coretest"
)

// verdictHandlers are the shapes of handler Message.Verdict must judge
// behind: each reads some of the request (or none) and answers.
var verdictHandlers = []struct {
	name string
	h    func(m *core.Message) (*core.Message, error)
}{
	{"DecodeAndReply", func(m *core.Message) (*core.Message, error) {
		var v struct {
			Text string `xml:",chardata"`
		}
		if err := m.Body().Decode(&v); err != nil {
			return nil, err
		}
		return m.Reply(core.RawBody([]byte(`<r:Pong xmlns:r="urn:r">` + v.Text + `</r:Pong>`))), nil
	}},
	{"ReadsNothing", func(m *core.Message) (*core.Message, error) {
		return m.Reply(core.RawBody([]byte(`<r:Pong xmlns:r="urn:r"/>`))), nil
	}},
	{"OneWay", func(m *core.Message) (*core.Message, error) { return nil, nil }},
	{"OwnFault", func(m *core.Message) (*core.Message, error) {
		return nil, core.ReceiverFault("the handler's own fault")
	}},
	{"EchoesTheBody", func(m *core.Message) (*core.Message, error) { return m.Reply(m.Body()), nil }},
	{"StreamsFromTheBody", func(m *core.Message) (*core.Message, error) {
		return m.Reply(core.StreamBody(xml.Name{Space: "urn:r", Local: "Pong"}, func(w io.Writer) error {
			// copies the operation element only, then writes its own
			var v struct {
				Text string `xml:",chardata"`
			}
			if err := m.Body().Decode(&v); err != nil {
				return err
			}
			_, err := io.WriteString(w, `<r:Pong xmlns:r="urn:r">`+v.Text+`</r:Pong>`)
			return err
		})), nil
	}},
	{"StreamsItsOwn", func(m *core.Message) (*core.Message, error) {
		return m.Reply(core.StreamBody(xml.Name{Space: "urn:r", Local: "Pong"}, func(w io.Writer) error {
			_, err := io.WriteString(w, `<r:Pong xmlns:r="urn:r"/>`)
			return err
		})), nil
	}},
}

// answer is what a binding that buffers its reply answers: the verdict,
// then the reply written; a write error is the answer's fault.
func answer(t *testing.T, m *core.Message, reply *core.Message, err error) ([]byte, error) {
	t.Helper()
	reply, err = m.Verdict(reply, err)
	if err != nil || reply == nil {
		return nil, err
	}
	var b bytes.Buffer
	if _, err := reply.WriteTo(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// TestVerdict: whatever a handler read and answered, a broken rest of the
// envelope turns the answer into the Sender fault naming it; a sound one
// leaves the handler's answer as it was.
func TestVerdict(t *testing.T) {
	for _, v := range []core.Version{core.V11, core.V12} {
		for _, h := range verdictHandlers {
			t.Run(v.String()+"/"+h.name+"/Sound", func(t *testing.T) {
				m, err := core.ReadMessageBytes(coretest.SoundEnvelope(v, "", "", "sound"), core.Limits{})
				require.NoError(t, err)
				reply, herr := h.h(m)
				out, err := answer(t, m, reply, herr)
				if h.name == "OwnFault" {
					assert.Equal(t, core.CodeReceiver, core.FaultOf(err).Code)
					return
				}
				require.NoError(t, err)
				assert.Equal(t, reply == nil, out == nil)
				require.NoError(t, m.Body().Err())
			})
			for _, bt := range coretest.BrokenTails(v, "", "", "broken") {
				t.Run(v.String()+"/"+h.name+"/"+bt.Name, func(t *testing.T) {
					m, err := core.ReadMessageBytes(bt.Envelope, core.Limits{})
					require.NoError(t, err, "the start of the envelope is sound")
					reply, herr := h.h(m)
					out, err := answer(t, m, reply, herr)
					require.Error(t, err, "answered %s", out)
					f := core.FaultOf(err)
					assert.Equal(t, core.CodeSender, f.Code, f.Reason)
					assert.Equal(t, v, f.Version)
					assert.Contains(t, f.Reason, bt.Reason)
				})
			}
		}
	}
}

// TestVerdictBuiltMessage: a message built in memory has nothing left to
// read: the handler's answer is returned as it is.
func TestVerdictBuiltMessage(t *testing.T) {
	m := core.NewMessage(core.V12, core.RawBody([]byte(`<a:Ping xmlns:a="urn:a"/>`)))
	reply := m.Reply(core.RawBody([]byte(`<a:Pong xmlns:a="urn:a"/>`)))
	got, err := m.Verdict(reply, nil)
	require.NoError(t, err)
	assert.Same(t, reply, got)
	own := core.SenderFault("no")
	_, err = m.Verdict(nil, own)
	assert.Same(t, own, err)
}

// TestVerdictUnderServe: core.Serve judges the whole envelope before it
// sends or settles anything (the Pipe's checks are coretest's
// TestPipeVerdictServe; this one also covers a reply dropped unwritten).
func TestVerdictUnderServe(t *testing.T) {
	for _, v := range []core.Version{core.V11, core.V12} {
		bt := coretest.BrokenTails(v, "urn:uuid:1", "", "x")[3] // SecondBody, no ReplyTo: the reply would be dropped
		p := coretest.NewPipe()
		t.Cleanup(func() { _ = p.Close() })
		require.NoError(t, p.SendRaw(t.Context(), bt.Envelope, ""))
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() {
			done <- core.Serve(ctx, p, core.HandlerFunc(func(_ context.Context, m *core.Message) (*core.Message, error) {
				return m.Reply(core.StreamBody(xml.Name{}, func(w io.Writer) error { return nil })), nil
			}), nil)
		}()
		require.Eventually(t, func() bool { return len(p.Parked()) == 1 }, 10e9, 1e6, "the message is parked")
		cancel()
		require.NoError(t, <-done)
		f := p.Parked()[0]
		assert.Equal(t, core.CodeSender, f.Code)
		assert.Contains(t, f.Reason, bt.Reason)
	}
}
