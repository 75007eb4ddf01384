package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/soapwire/soapwire/core"
)

// step is the place of an event in the conversation. The parties run
// concurrently, so two events can happen in either order (the fulfilment
// service may take the order from JetStream before the customer has read
// the 202, the invoice may be dropped before the confirmation mail is
// read); the trace prints events in step order so that every run prints
// the same story, holding back an event that comes before its turn.
type step int

const (
	stepOrderIn    step = iota + 1 // the order desk receives the order (HTTP)
	stepStockIn                    // the warehouse receives the stock check (NATS request)
	stepStockOut                   // the order desk receives the warehouse's answer (NATS reply)
	stepForward                    // the order desk's outcome: stored in JetStream, or a fault dropped on FTP
	stepAccepted                   // the customer reads the HTTP status (202)
	stepFulfilIn                   // fulfilment receives the order (JetStream)
	stepMailOut                    // fulfilment has mailed the confirmation (SMTP 250)
	stepAdviceOut                  // fulfilment has dropped the despatch advice (SFTP)
	stepInvoiceOut                 // fulfilment has dropped the invoice (FTP)
	stepMailIn                     // the confirmation arrives in the customer's IMAP mailbox
	stepMailRead                   // the customer reads it
	stepAdviceIn                   // the despatch advice arrives in the carrier's SFTP inbox
	stepAdviceRead                 // the carrier books the collection
	stepReplyIn                    // the invoice (or a fault) arrives in the customer's drop folder
	stepDone                       // the customer's Correlator returned the reply
)

func (s step) String() string {
	switch s {
	case stepOrderIn:
		return "the order to reach the order desk over HTTP"
	case stepStockIn:
		return "the stock check to reach the warehouse over NATS"
	case stepStockOut:
		return "the warehouse's answer over NATS"
	case stepForward:
		return "the order desk to store the order in JetStream"
	case stepAccepted:
		return "the order desk's HTTP answer"
	case stepFulfilIn:
		return "fulfilment to receive the order from JetStream"
	case stepMailOut:
		return "fulfilment to mail the confirmation"
	case stepAdviceOut:
		return "fulfilment to drop the despatch advice on the carrier's SFTP server"
	case stepInvoiceOut:
		return "fulfilment to drop the invoice on the FTP server"
	case stepMailIn:
		return "the confirmation mail to reach the customer's IMAP mailbox"
	case stepMailRead:
		return "the customer to read the confirmation mail"
	case stepAdviceIn:
		return "the despatch advice to reach the carrier's SFTP inbox"
	case stepAdviceRead:
		return "the carrier to book the collection"
	case stepReplyIn:
		return "the invoice to reach the customer's drop folder"
	case stepDone:
		return "the customer's Correlator to return the invoice"
	}
	return fmt.Sprintf("step %d", int(s))
}

// hop is a message arriving at a party: what the trace prints for it.
type hop struct {
	transport string // http, nats, imap, sftp, ftp
	route     string // "customer -> order desk"
	note      string // what the transport says: "POST /orders", "JetStream ORDERS #1"
	m         *core.Message
}

// event is one thing that happened: a hop and/or lines of detail.
type event struct {
	hop   *hop
	lines []string
}

// trace prints the conversation's events in step order. It is safe for
// concurrent use; emitting never blocks.
type trace struct {
	mu    sync.Mutex
	w     io.Writer
	next  step              // the step printed next
	held  map[step][]event  // events that came before their turn
	hops  int               // hops printed so far
	names map[string]string // message id → label ("the order")
	from  map[string]string // message id → the party that sent it last
	done  chan struct{}     // closed once stepDone is printed
}

func newTrace(w io.Writer) *trace {
	return &trace{w: w, next: stepOrderIn, held: make(map[step][]event), names: make(map[string]string), from: make(map[string]string), done: make(chan struct{})}
}

// name gives a message id a label, printed after it as relates-to.
func (t *trace) name(id, label string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.names[id] = label
}

// sent records that party is sending message id: the next hop of id
// starts there.
func (t *trace) sent(id, party string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.from[id] = party
}

// sender returns the party that sent message id last ("?" if unknown).
func (t *trace) sender(id string) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if p, ok := t.from[id]; ok {
		return p
	}
	return "?"
}

// printf prints a line at once, outside the steps (before the conversation
// starts and after it ends).
func (t *trace) printf(format string, args ...any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	fmt.Fprintf(t.w, format+"\n", args...)
}

// hop records a message's arrival at step s, with lines of detail.
func (t *trace) hop(s step, h hop, lines ...string) { t.emit(s, event{hop: &h, lines: lines}) }

// say records lines of detail at step s.
func (t *trace) say(s step, lines ...string) { t.emit(s, event{lines: lines}) }

func (t *trace) emit(s step, e event) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if s < t.next { // it happened again (a redelivery): print it as it comes
		t.print(e)
		return
	}
	t.held[s] = append(t.held[s], e)
	for {
		evs, ok := t.held[t.next]
		if !ok {
			return
		}
		delete(t.held, t.next)
		for _, e := range evs {
			t.print(e)
		}
		if t.next == stepDone {
			close(t.done)
		}
		t.next++
	}
}

// print writes e; t.mu is held.
func (t *trace) print(e event) {
	if h := e.hop; h != nil {
		t.hops++
		head := fmt.Sprintf("hop %d  %-4s  %s", t.hops, h.transport, h.route)
		if h.note != "" {
			head += "  (" + h.note + ")"
		}
		rel := h.m.RelatesTo
		switch {
		case rel == "":
			rel = "-"
		case t.names[rel] != "":
			rel += " (" + t.names[rel] + ")"
		}
		fmt.Fprintf(t.w, "%s\n       action=%s id=%s relates-to=%s\n", head, h.m.Action, h.m.ID, rel)
	}
	for _, l := range e.lines {
		if l == "" {
			fmt.Fprintln(t.w)
			continue
		}
		fmt.Fprintf(t.w, "       %s\n", l)
	}
}

// wait returns once stepDone is printed, or with an error naming the first
// step that has not happened when ctx ends.
func (t *trace) wait(ctx context.Context) error {
	select {
	case <-t.done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("still waiting for %s: %w", t.missing(), context.Cause(ctx))
	}
}

// missing is the first step that has not happened.
func (t *trace) missing() step {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.next
}

// flush prints the events held back behind a step that did not happen
// (when the conversation failed), in step order.
func (t *trace) flush() {
	t.mu.Lock()
	defer t.mu.Unlock()
	steps := make([]step, 0, len(t.held))
	for s := range t.held {
		steps = append(steps, s)
	}
	slices.Sort(steps)
	for _, s := range steps {
		for _, e := range t.held[s] {
			t.print(e)
		}
		delete(t.held, s)
	}
}
