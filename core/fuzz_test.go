package core_test

import (
	"bytes"
	"testing"

	"github.com/soapwire/soapwire/core"
)

const fuzzMaxInput = 64 << 10

// FuzzReadEnvelope reads arbitrary input: it must never panic or hang, and
// anything accepted (the message reads and its body reads to its end) must
// write and re-read to the same canonical envelope.
func FuzzReadEnvelope(f *testing.F) {
	for _, v := range versions {
		for _, set := range [][]readCase{refusals, accepted} {
			for _, tc := range set {
				f.Add([]byte(envOf(v, tc.in)))
			}
		}
		for _, tc := range roundTrips {
			f.Add([]byte(envOf(v, tc.in)))
		}
		for _, tc := range limitCases {
			f.Add([]byte(envOf(v, tc.doc(tc.n))))
		}
		f.Add(utf16(envOf(v, `<?xml version="1.0" encoding="UTF-16"?>`+wrap("", reqBody)), false))
		f.Add(utf16(envOf(v, wrap("", reqBody)), true))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) > fuzzMaxInput {
			return
		}
		sameFromBytes(t, in, core.Limits{})
		m, err := core.ReadMessage(bytes.NewReader(in), core.Limits{})
		if err != nil {
			if core.FaultOf(err).Code != core.CodeSender && core.FaultOf(err).Code != core.CodeVersionMismatch {
				t.Fatalf("a read error is a Sender or VersionMismatch fault: %v", err)
			}
			return
		}
		if err := m.Body().Discard(); err != nil {
			return
		}
		checkRoundTrip(t, in, core.Limits{}, core.WriteOptions{})
	})
}

// sameFromBytes checks that ReadMessageBytes reads in as ReadMessage does
// (the same fault, or the same envelope written out), and leaves in as it
// was.
func sameFromBytes(t *testing.T, in []byte, lim core.Limits) {
	t.Helper()
	orig := bytes.Clone(in)
	write := func(m *core.Message, err error) string {
		if err != nil {
			return "error: " + err.Error()
		}
		var b bytes.Buffer
		if _, err := m.Write(&b, core.WriteOptions{}); err != nil {
			return "write error: " + err.Error()
		}
		return b.String()
	}
	want := write(core.ReadMessage(bytes.NewReader(in), lim))
	got := write(core.ReadMessageBytes(in, lim))
	if got != want {
		t.Fatalf("ReadMessageBytes gave\n%s\nReadMessage gave\n%s", got, want)
	}
	if !bytes.Equal(in, orig) {
		t.Fatalf("ReadMessageBytes changed its input:\n%q\nwas\n%q", in, orig)
	}
}
