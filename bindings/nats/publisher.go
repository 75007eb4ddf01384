package nats

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/soapwire/soapwire/core"
)

// Publisher is a core.Sender that publishes to JetStream: Send returns
// once a stream has stored the message (durable delivery), and a message
// whose id the stream has seen inside its duplicate window is dropped by the
// server (Nats-Msg-Id = the message id). It is safe for concurrent use.
type Publisher struct {
	nc   *nats.Conn
	js   jetstream.JetStream
	def  Address
	o    publisherConfig
	outs outgoings
	max  payloadLimit
	objs *objects // WithObjectStore; nil: none
}

var _ core.Sender = (*Publisher)(nil)

// NewPublisher returns a Publisher on nc. to is the default destination (a
// subject or a "nats:" address, "" for none): a message goes to its To when
// that is a nats: address, else to it. A stream named in the address
// ("?stream=ORDERS") is checked by the server: the subject must belong to
// it.
func NewPublisher(nc *nats.Conn, to string, opts ...PublisherOption) (*Publisher, error) {
	p := &Publisher{nc: nc, o: newPublisherConfig(opts), max: payloadLimit{nc: nc}}
	p.objs = newObjects(nc, p.o.objects)
	if to != "" {
		a, err := destination(to)
		if err != nil {
			return nil, err
		}
		p.def = a
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, fmt.Errorf("nats: jetstream: %w", err)
	}
	p.js = js
	return p, nil
}

// Send publishes m to JetStream and waits for the stream's acknowledgement
// (until ctx ends; without a deadline, nats.go's default of 5 s). m gets a
// fresh ID when it has none, since the id is what duplicates are recognised
// by. Afterwards m.Meta holds "nats.stream" and "nats.seq" (and
// "nats.duplicate" = "true" when the stream already had the id: the earlier
// copy stands, and Send succeeds). A message larger than the server's max
// payload is refused with ErrTooLarge before anything is published; a
// subject no stream captures is ErrNoStream.
func (p *Publisher) Send(ctx context.Context, m *core.Message) error {
	var a Address
	var err error
	switch {
	case isNATS(m.To):
		a, err = destination(m.To)
	case p.def.Subject != "":
		a = p.def
	default:
		err = fmt.Errorf("%w: To is %q", ErrNoDestination, m.To)
	}
	if err != nil {
		return err
	}
	return p.send(ctx, m, a)
}

func (p *Publisher) send(ctx context.Context, m *core.Message, a Address) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("nats: publish to %s: %w", a, err)
	}
	if m.ID == "" {
		m.ID = core.NewMessageID()
	}
	o := p.outs.get()
	defer p.outs.put(o)
	defer o.resetHeaders() // JetStream's publish writes its own into the header map
	restore, put, err := p.objs.offload(ctx, m)
	if err != nil {
		return err
	}
	defer restore()
	sent := false
	defer func() {
		if !sent {
			if err := deleteObjects(ctx, put); err != nil {
				p.o.log.WarnContext(ctx, "soap: deleting the objects of a message not sent failed", slog.Any("err", err))
			}
		}
	}()
	out, err := encode(o, m, a.Subject, a.String(), &p.max)
	if err != nil {
		return err
	}
	var popts []jetstream.PublishOpt
	if a.Stream != "" {
		popts = append(popts, jetstream.WithExpectStream(a.Stream))
	}
	ack, err := p.js.PublishMsg(ctx, out, popts...)
	if err != nil {
		if errors.Is(err, jetstream.ErrNoStreamResponse) || errors.Is(err, nats.ErrNoResponders) {
			return fmt.Errorf("nats: publish to %s: %w (%w)", a, ErrNoStream, err)
		}
		return fmt.Errorf("nats: publish to %s: %w", a, p.max.tooLarge(err, a.Subject))
	}
	sent = true
	m.SetMeta(MetaSubject, a.Subject)
	m.SetMeta(MetaStream, ack.Stream)
	m.SetMeta(MetaSequence, strconv.FormatUint(ack.Sequence, 10))
	if ack.Duplicate {
		m.SetMeta(MetaDuplicate, "true")
		p.o.log.InfoContext(ctx, "soap: duplicate message id: the stream kept the earlier copy",
			slog.String("id", m.ID), slog.String("stream", ack.Stream), slog.Uint64("seq", ack.Sequence))
	}
	return nil
}
