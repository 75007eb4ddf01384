package document_test

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/coretest"
	"github.com/soapwire/soapwire/document"
)

type order struct {
	XMLName xml.Name `xml:"urn:example:po Order"`
	Item    string   `xml:"Item"`
	Qty     int      `xml:"Qty"`
}

const orderXML = `<po:Order xmlns:po="urn:example:po"><po:Item>bolt</po:Item><po:Qty>3</po:Qty></po:Order>`

// countingReader counts what was read from it.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// TestSendDocuments sends each kind of document in each version through an
// Outbox to a Pipe and reads what arrived: the document, the WS-Addressing
// headers and the conversation.
func TestSendDocuments(t *testing.T) {
	docs := map[string]func() any{
		"bytes":  func() any { return []byte(orderXML) },
		"string": func() any { return orderXML },
		"reader": func() any { return strings.NewReader(orderXML) },
		"value":  func() any { return order{Item: "bolt", Qty: 3} },
		"body":   func() any { return core.RawBody([]byte(orderXML)) },
	}
	for name, doc := range docs {
		for _, v := range []core.Version{core.V11, core.V12} {
			t.Run(name+"/"+v.String(), func(t *testing.T) {
				p := newPipe(t)
				out := document.NewOutbox(map[string]core.Sender{"pipe": p})
				rc, err := document.Send(testCtx(t), out, p.Addr(), doc(),
					document.WithVersion(v), document.WithAction("urn:example:po:submit"),
					document.WithReplyTo("mailto:orders@buyer.example"), document.WithFaultTo("ftp://buyer.example/faults"))
				require.NoError(t, err)
				m := receive(t, p)
				assert.Equal(t, v, m.Version())
				assert.Equal(t, p.Addr(), m.To)
				assert.Equal(t, "urn:example:po:submit", m.Action)
				assert.Equal(t, rc.MessageID, m.ID)
				assert.True(t, strings.HasPrefix(m.ID, "urn:uuid:"), m.ID)
				assert.Equal(t, "mailto:orders@buyer.example", m.ReplyTo)
				assert.Equal(t, "ftp://buyer.example/faults", m.FaultTo)
				assert.Equal(t, rc.MessageID, document.ConversationOf(m), "a new document starts its own conversation")
				assert.Equal(t, rc.Conversation, document.ConversationOf(m))
				assert.Equal(t, p.Addr(), rc.To)
				var got order
				require.NoError(t, m.Body().Decode(&got))
				assert.Equal(t, order{XMLName: xml.Name{Space: "urn:example:po", Local: "Order"}, Item: "bolt", Qty: 3}, got)
			})
		}
	}
}

// TestSendStreamsAReader checks that a reader is read only while the
// envelope is written, and that a large one arrives whole.
func TestSendStreamsAReader(t *testing.T) {
	var big bytes.Buffer
	big.WriteString(`<d:Data xmlns:d="urn:example:data">`)
	for big.Len() < 2<<20 {
		big.WriteString(`<d:Row>0123456789abcdefghijklmnopqrstuvwxyz</d:Row>`)
	}
	big.WriteString(`</d:Data>`)
	want := big.String()

	cr := &countingReader{r: strings.NewReader(want)}
	m := document.NewMessage("pipe:x", cr)
	assert.Zero(t, cr.n, "NewMessage reads nothing")
	_, err := m.WriteTo(io.Discard)
	require.NoError(t, err)
	assert.Equal(t, len(want), cr.n, "writing the envelope reads the document once")

	p := newPipe(t, coretest.WithLimits(core.Limits{MaxBytes: 8 << 20}))
	_, err = document.Send(testCtx(t), p, p.Addr(), &countingReader{r: strings.NewReader(want)})
	require.NoError(t, err)
	got := receive(t, p)
	assert.Equal(t, xml.Name{Space: "urn:example:data", Local: "Data"}, got.Body().Name())
	body := bodyString(t, got)
	assert.Equal(t, strings.Count(want, "<d:Row>"), strings.Count(body, "<d:Row>"), "every row arrived")
	assert.True(t, strings.HasSuffix(body, "</d:Row></d:Data>"))
}

// TestSendOptions covers the conversation, message id and extra headers.
func TestSendOptions(t *testing.T) {
	p := newPipe(t)
	extra, err := core.ParseHeaderBlock([]byte(`<t:Trace xmlns:t="urn:example:trace">42</t:Trace>`))
	require.NoError(t, err)
	rc, err := document.Send(testCtx(t), p, "pipe:x", []byte(orderXML),
		document.WithMessageID("urn:example:msg-1"), document.WithConversation("urn:example:conv <&> 1"), document.WithHeader(extra))
	require.NoError(t, err)
	assert.Equal(t, "urn:example:msg-1", rc.MessageID)
	assert.Equal(t, "urn:example:conv <&> 1", rc.Conversation)
	m := receive(t, p)
	assert.Equal(t, core.V12, m.Version(), "SOAP 1.2 by default")
	assert.Equal(t, "urn:example:msg-1", m.ID)
	assert.Equal(t, "urn:example:conv <&> 1", document.ConversationOf(m))
	var names []xml.Name
	for _, b := range m.Envelope.Headers {
		names = append(names, b.Name)
	}
	assert.Equal(t, []xml.Name{document.ConversationHeader, {Space: "urn:example:trace", Local: "Trace"}}, names)
}

// TestSendRefusals: an address with no Sender, or no address at all, is an
// error before anything is read or sent.
func TestSendRefusals(t *testing.T) {
	mail := &recorder{}
	out := document.NewOutbox(map[string]core.Sender{"mailto": mail})
	for _, tc := range []struct {
		to   string
		want error
	}{
		{"nats:orders", document.ErrUnknownScheme},
		{"gopher://x/y", document.ErrUnknownScheme},
		{"no-scheme-here", document.ErrUnknownScheme},
		{"", document.ErrNoAddress},
		{core.AnonymousAddress, document.ErrNoAddress},
		{core.NoneAddress, document.ErrNoAddress},
	} {
		t.Run(tc.to, func(t *testing.T) {
			cr := &countingReader{r: strings.NewReader(orderXML)}
			rc, err := document.Send(testCtx(t), out, tc.to, cr)
			require.ErrorIs(t, err, tc.want)
			assert.Nil(t, rc)
			assert.Zero(t, cr.n, "the document was not read")
			assert.Empty(t, mail.messages(), "nothing was sent")
		})
	}
	_, err := document.Send(testCtx(t), out, "nats:orders", nil)
	assert.ErrorContains(t, err, `"nats"`)
	assert.ErrorContains(t, err, "have: mailto")
}

// TestSendReceipt: the Receipt holds what the binding reported in Meta.
func TestSendReceipt(t *testing.T) {
	for _, meta := range []map[string]string{
		{"http.status": "202"},
		{"smtp.queued-as": "4Q1xyz"},
		{"ftp.file": "urn_uuid_1.xml"},
		{"nats.stream": "ORDERS", "nats.seq": "17"},
		nil,
	} {
		rec := &recorder{meta: meta}
		rc, err := document.Send(testCtx(t), rec, "mailto:a@b.example", []byte(orderXML))
		require.NoError(t, err)
		for k, v := range meta {
			assert.Equal(t, v, rc.Transport[k])
		}
		assert.Len(t, rc.Transport, len(meta))
		require.Len(t, rec.messages(), 1)
		assert.Equal(t, rc.MessageID, rec.messages()[0].ID)
	}
	_, err := document.Send(testCtx(t), &recorder{err: errors.New("smtp: 451 try later")}, "mailto:a@b.example", []byte(`<a:a xmlns:a="urn:a"/>`))
	require.ErrorContains(t, err, "451 try later")
}

// TestSendTracking records the conversation of a sent document.
func TestSendTracking(t *testing.T) {
	ctx := testCtx(t)
	s := document.NewMemoryStore()
	rec := &recorder{}
	rc, err := document.Send(ctx, rec, "mailto:a@b.example", []byte(orderXML), document.WithTracking(s, time.Time{}))
	require.NoError(t, err)
	c, err := s.Get(ctx, rc.Conversation)
	require.NoError(t, err)
	assert.Equal(t, document.StateAcknowledged, c.State, "one-way, accepted by the transport")

	due := time.Now().Add(time.Hour).Truncate(time.Second)
	rc, err = document.Send(ctx, rec, "mailto:a@b.example", []byte(orderXML), document.WithTracking(s, due), document.WithReplyTo("mailto:me@here.example"))
	require.NoError(t, err)
	c, err = s.Get(ctx, rc.Conversation)
	require.NoError(t, err)
	assert.Equal(t, document.StateAwaitingReply, c.State)
	assert.Equal(t, []string{rc.MessageID}, c.Pending)
	assert.True(t, c.Deadline.Equal(due))

	rec.fail(errors.New("down"))
	_, err = document.Send(ctx, rec, "mailto:a@b.example", []byte(orderXML), document.WithTracking(s, due), document.WithReplyTo("mailto:me@here.example"), document.WithConversation("c-failed"))
	require.Error(t, err)
	c, err = s.Get(ctx, "c-failed")
	require.NoError(t, err)
	assert.Equal(t, document.StateFailed, c.State)
	assert.Empty(t, c.Pending)
}

func TestOutbox(t *testing.T) {
	mail, ftp := &recorder{}, &recorder{}
	o := document.NewOutbox(map[string]core.Sender{"mailto": mail, "FTP": ftp})
	assert.Equal(t, []string{"ftp", "mailto"}, o.Schemes())
	assert.True(t, o.Has("MAILTO"))
	assert.False(t, o.Has("nats"))

	ctx := testCtx(t)
	msg := func(to string) *core.Message {
		m := core.NewMessage(core.V12, core.RawBody([]byte(`<a:a xmlns:a="urn:a"/>`)))
		m.To = to
		return m
	}
	require.NoError(t, o.Send(ctx, msg("mailto:orders@example.com")))
	require.NoError(t, o.Send(ctx, msg("FTP://host/inbox")))
	assert.Len(t, mail.messages(), 1)
	assert.Len(t, ftp.messages(), 1)

	for to, want := range map[string]error{
		"gopher://x/y":         document.ErrUnknownScheme,
		"::":                   document.ErrUnknownScheme,
		"":                     document.ErrNoAddress,
		core.AnonymousAddress:  document.ErrNoAddress,
		core.NoneAddress:       document.ErrNoAddress,
		"relative/path/no/uri": document.ErrUnknownScheme,
	} {
		require.ErrorIs(t, o.Send(ctx, msg(to)), want, to)
	}
	assert.Len(t, mail.messages(), 1, "refusals sent nothing")

	var zero document.Outbox
	require.ErrorIs(t, zero.Send(ctx, msg("mailto:a@b")), document.ErrUnknownScheme)
	zero.Register("mailto", mail)
	require.NoError(t, zero.Send(ctx, msg("mailto:a@b")))

	assert.Panics(t, func() { zero.Register("", mail) })
	assert.Panics(t, func() { zero.Register("x", nil) })
}

func TestScheme(t *testing.T) {
	for addr, want := range map[string]string{
		"mailto:a@b": "mailto", "HTTPS://x/y": "https", "nats:orders.new": "nats", "ftp://h/d": "ftp", "pipe:123": "pipe",
	} {
		got, err := document.Scheme(addr)
		require.NoError(t, err, addr)
		assert.Equal(t, want, got, addr)
	}
	for _, addr := range []string{"", "x", "/abs/path", "://nothing", "%zz:y"} {
		_, err := document.Scheme(addr)
		require.ErrorIs(t, err, document.ErrUnknownScheme, addr)
	}
}

func TestConversationOf(t *testing.T) {
	withBlock := func(xml string) *core.Message {
		b, err := core.ParseHeaderBlock([]byte(xml))
		require.NoError(t, err)
		m := core.NewMessage(core.V12, core.Body{})
		m.ID, m.RelatesTo = "urn:id", "urn:rel"
		m.Envelope.Headers = []core.HeaderBlock{b}
		return m
	}
	for name, tc := range map[string]struct {
		m    *core.Message
		want string
	}{
		"plain":           {withBlock(`<d:Conversation xmlns:d="urn:soapwire:document">c-1</d:Conversation>`), "c-1"},
		"other prefix":    {withBlock(`<x:Conversation xmlns:x="urn:soapwire:document" a=">">c-2</x:Conversation>`), "c-2"},
		"whitespace":      {withBlock("<Conversation xmlns=\"urn:soapwire:document\">\n  c-3\n</Conversation>"), "c-3"},
		"entities":        {withBlock(`<d:Conversation xmlns:d="urn:soapwire:document">a&amp;b&#x3C;</d:Conversation>`), "a&b<"},
		"cdata":           {withBlock(`<d:Conversation xmlns:d="urn:soapwire:document"><![CDATA[c<4>]]></d:Conversation>`), "c<4>"},
		"empty → relates": {withBlock(`<d:Conversation xmlns:d="urn:soapwire:document"/>`), "urn:rel"},
		"other namespace": {withBlock(`<d:Conversation xmlns:d="urn:other">x</d:Conversation>`), "urn:rel"},
		"no header, id":   {&core.Message{ID: "urn:only-id", Envelope: &core.Envelope{}}, "urn:only-id"},
		"no envelope":     {&core.Message{ID: "urn:x"}, "urn:x"},
		"nil":             {nil, ""},
	} {
		assert.Equal(t, tc.want, document.ConversationOf(tc.m), name)
	}

	m := withBlock(`<d:Conversation xmlns:d="urn:soapwire:document">old</d:Conversation>`)
	document.SetConversation(m, "new\x01one")
	assert.Equal(t, "new\uFFFDone", document.ConversationOf(m), "characters XML cannot carry are replaced")
	assert.Len(t, m.Envelope.Headers, 1, "replaced, not added")
	var empty core.Message
	document.SetConversation(&empty, "c")
	assert.Equal(t, "c", document.ConversationOf(&empty))
}

// TestSendOverCanceledContext: the Sender's ctx error comes back wrapped.
func TestSendOverCanceledContext(t *testing.T) {
	p := newPipe(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := document.Send(ctx, p, "pipe:x", []byte(orderXML))
	require.ErrorIs(t, err, context.Canceled)
	assert.Zero(t, p.Len())
}
