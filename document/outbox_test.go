package document_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/document"
)

// recorder is a core.Sender that keeps what it was given.
type recorder struct {
	mu   sync.Mutex
	sent []*core.Message
	err  error
	meta map[string]string
}

func (r *recorder) Send(_ context.Context, m *core.Message) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil {
		return r.err
	}
	for k, v := range r.meta {
		m.SetMeta(k, v)
	}
	r.sent = append(r.sent, m)
	return nil
}

func (r *recorder) messages() []*core.Message {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*core.Message(nil), r.sent...)
}

func TestOutboxRoutesByScheme(t *testing.T) {
	mail, ftp := &recorder{}, &recorder{}
	o := document.NewOutbox(map[string]core.Sender{"mailto": mail, "FTP": ftp})
	assert.Equal(t, []string{"ftp", "mailto"}, o.Schemes())

	ctx := context.Background()
	require.NoError(t, o.Send(ctx, &core.Message{To: "mailto:orders@example.com", Envelope: &core.Envelope{}}))
	require.NoError(t, o.Send(ctx, &core.Message{To: "FTP://host/inbox", Envelope: &core.Envelope{}}))
	assert.Len(t, mail.messages(), 1)
	assert.Len(t, ftp.messages(), 1)

	err := o.Send(ctx, &core.Message{To: "gopher://x/y"})
	require.ErrorIs(t, err, document.ErrUnknownScheme)
	assert.Contains(t, err.Error(), `"gopher"`)
	require.ErrorIs(t, o.Send(ctx, &core.Message{}), document.ErrNoAddress)
	_, err = o.Sender("no-scheme-here")
	require.Error(t, err)
}

func TestSendRefusesUnknownSchemeBeforeSending(t *testing.T) {
	mail := &recorder{}
	o := document.NewOutbox(map[string]core.Sender{"mailto": mail})
	_, err := document.Send(context.Background(), o, "nats:orders", []byte(`<po/>`))
	require.ErrorIs(t, err, document.ErrUnknownScheme)
	assert.Empty(t, mail.messages())
}

func TestSendBuildsEnvelopeAndReceipt(t *testing.T) {
	mail := &recorder{meta: map[string]string{"smtp.queued-as": "Q123"}}
	o := document.NewOutbox(map[string]core.Sender{"mailto": mail})
	rc, err := document.Send(context.Background(), o, "mailto:orders@example.com", []byte(`<po:Order xmlns:po="urn:po"><po:Item>bolt</po:Item></po:Order>`),
		document.WithAction("urn:po:submit"), document.WithReplyTo("ftp://127.0.0.1/outbox"), document.WithVersion(core.V11))
	require.NoError(t, err)
	require.Len(t, mail.messages(), 1)
	m := mail.messages()[0]
	assert.Equal(t, rc.MessageID, m.ID)
	assert.Equal(t, rc.MessageID, rc.Conversation, "a new document starts its own conversation")
	assert.Equal(t, "Q123", rc.Transport["smtp.queued-as"])
	assert.Equal(t, core.V11, m.Version())
	assert.Equal(t, "urn:po:submit", m.Action)
	assert.Equal(t, "ftp://127.0.0.1/outbox", m.ReplyTo)
	assert.Equal(t, "urn:po", m.Body().Name().Space)
	assert.Equal(t, rc.Conversation, document.ConversationOf(m))

	_, err = document.Send(context.Background(), &recorder{err: errors.New("smtp down")}, "mailto:x@y", []byte(`<a/>`))
	require.ErrorContains(t, err, "smtp down")
}
