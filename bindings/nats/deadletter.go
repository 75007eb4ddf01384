package nats

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"strings"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/soapwire/soapwire/core"
)

// park publishes msg to the dead-letter subject with its fault and, once
// the dead-letter stream has stored it, terminates it (the server will not
// deliver it again). If the publish fails, msg is left alone and the error
// returned: the caller asks for redelivery, so nothing is lost.
func (r *Receiver) park(ctx context.Context, msg jetstream.Msg, md *jetstream.MsgMetadata, f *core.Fault) error {
	h := make(nats.Header, len(msg.Headers())+8)
	for k, vs := range msg.Headers() {
		if len(k) >= 5 && strings.EqualFold(k[:5], "Nats-") {
			if strings.EqualFold(k, HeaderMessageID) && len(vs) > 0 {
				h[HeaderDeadMessageID] = []string{vs[0]}
			}
			continue // control headers (Nats-Msg-Id, Nats-Expected-…) are not the dead letter's
		}
		h[k] = vs
	}
	h[HeaderFaultCode] = []string{f.Code.String()}
	if len(f.Subcodes) > 0 {
		h[HeaderFaultSubcode] = []string{oneLine("{"+f.Subcodes[0].Space+"}"+f.Subcodes[0].Local, 1024)}
	}
	h[HeaderFaultReason] = []string{oneLine(f.Reason, 1024)}
	h[HeaderDeadStream] = []string{md.Stream}
	h[HeaderDeadSequence] = []string{strconv.FormatUint(md.Sequence.Stream, 10)}
	h[HeaderDeadSubject] = []string{oneLine(msg.Subject(), 1024)}
	h[HeaderDeadConsumer] = []string{md.Consumer}
	h[HeaderDeadDelivered] = []string{strconv.FormatUint(md.NumDelivered, 10)}
	out := &nats.Msg{Subject: r.dead, Header: h, Data: msg.Data()}
	ack, err := r.js.PublishMsg(ctx, out)
	if err != nil {
		return fmt.Errorf("%w: %s seq %d to %s: %w", ErrDeadLetter, md.Stream, md.Sequence.Stream, r.dead, err)
	}
	if err := msg.Term(); err != nil {
		// The dead letter is stored; the message may come back once more
		// and be dead-lettered again (a duplicate dead letter, never a loss).
		r.o.log.WarnContext(ctx, "soap: terminating a dead-lettered message failed", slog.Any("err", err))
	}
	r.o.log.WarnContext(ctx, "soap: message dead-lettered",
		slog.String("stream", md.Stream), slog.Uint64("seq", md.Sequence.Stream), slog.Uint64("deliveries", md.NumDelivered),
		slog.String("dead_letter", r.dead), slog.Uint64("dead_seq", ack.Sequence), slog.String("fault", f.Error()))
	return nil
}
