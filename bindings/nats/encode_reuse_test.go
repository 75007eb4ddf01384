package nats

import (
	"maps"
	"testing"

	"github.com/nats-io/nats.go"

	"github.com/soapwire/soapwire/core"
)

// TestOutgoingReusesHeaders: one pooled outgoing encodes messages with
// different headers in turn (a header added, dropped, its value changed,
// and keys written into the map by someone else, as JetStream's publish
// does: a key of its own is noticed, a value of the binding's replaced
// needs resetHeaders), and every message carries exactly its own.
func TestOutgoingReusesHeaders(t *testing.T) {
	msg := func(v core.Version, action, id, to string) *core.Message {
		m := core.NewMessage(v, core.RawBody([]byte(`<x:a xmlns:x="urn:x"/>`)))
		m.Action, m.ID, m.To = action, id, to
		return m
	}
	steps := []struct {
		m      *core.Message
		target string
		want   nats.Header
		after  func(h nats.Header) // what a publish does to the map
		reset  bool                // then resetHeaders, as Publisher.send does
	}{
		{m: msg(core.V11, "urn:a", "urn:uuid:1", ""), target: "nats:s",
			want: nats.Header{HeaderContentType: {ct11}, HeaderSOAPAction: {"urn:a"}, HeaderMessageID: {"urn:uuid:1"}, HeaderTargetService: {"nats:s"}}},
		{m: msg(core.V11, "urn:a", "urn:uuid:2", ""), target: "nats:s",
			want: nats.Header{HeaderContentType: {ct11}, HeaderSOAPAction: {"urn:a"}, HeaderMessageID: {"urn:uuid:2"}, HeaderTargetService: {"nats:s"}}},
		{m: msg(core.V11, "", "", ""), target: "",
			want: nats.Header{HeaderContentType: {ct11}}},
		{m: msg(core.V12, "urn:b", "", "nats:t"), target: "nats:s",
			want:  nats.Header{HeaderContentType: {ct12 + `; action="urn:b"`}, HeaderSOAPAction: {"urn:b"}, HeaderTargetService: {"nats:t"}},
			after: func(h nats.Header) { h.Set("Nats-Expected-Stream", "S") }},
		{m: msg(core.V12, "urn:b", "", "nats:t"), target: "nats:s",
			want:  nats.Header{HeaderContentType: {ct12 + `; action="urn:b"`}, HeaderSOAPAction: {"urn:b"}, HeaderTargetService: {"nats:t"}},
			after: func(h nats.Header) { h.Set(HeaderSOAPAction, "replaced") }, reset: true},
		{m: msg(core.V11, "", "urn:uuid:3", ""), target: "nats:s",
			want: nats.Header{HeaderContentType: {ct11}, HeaderMessageID: {"urn:uuid:3"}, HeaderTargetService: {"nats:s"}}},
	}
	o := &outgoing{hdr: make(nats.Header, 4)}
	for i, s := range steps {
		out, err := encode(o, s.m, "s", s.target, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !maps.EqualFunc(out.Header, s.want, func(a, b []string) bool { return len(a) == 1 && len(b) == 1 && a[0] == b[0] }) {
			t.Errorf("message %d: headers %v, want %v", i, out.Header, s.want)
		}
		if s.after != nil {
			s.after(out.Header)
		}
		if s.reset {
			o.resetHeaders()
		}
	}
}
