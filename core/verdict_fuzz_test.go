package core_test

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"testing"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/coretest"
)

// FuzzVerdictTail appends any bytes to the start of a sound envelope (up to
// and with its operation element) and serves it with each handler shape of
// TestVerdict: a reply is sent (Verdict, then the reply written, without
// error) only when the whole input reads as a sound envelope (read to its
// end by core without a fault), and never when encoding/xml finds the input
// not well-formed; every refusal is a Sender fault in the envelope's
// version.
func FuzzVerdictTail(f *testing.F) {
	for _, v := range []uint8{0, 1} {
		ver := []core.Version{core.V11, core.V12}[v]
		start := coretest.BrokenTails(ver, "", "", "x")[0].Envelope
		sound := coretest.SoundEnvelope(ver, "", "", "x")
		f.Add(v, uint8(0), sound[len(start):])
		for _, bt := range coretest.BrokenTails(ver, "", "", "x") {
			f.Add(v, uint8(len(bt.Name)), bt.Envelope[len(start):])
		}
		f.Add(v, uint8(5), []byte(`<!-- c --></e:Body> <!-- d --></e:Envelope>`+"\n\t "))
		f.Add(v, uint8(6), []byte(`<t:More xmlns:t="urn:m">&amp;</t:More></e:Body></e:Envelope><!---->`))
	}
	f.Fuzz(func(t *testing.T, v uint8, h uint8, tail []byte) {
		if len(tail) > 4096 {
			return
		}
		ver := []core.Version{core.V11, core.V12}[v%2]
		start := coretest.BrokenTails(ver, "", "", "x")[0].Envelope
		in := append(append([]byte(nil), start...), tail...)

		whole, werr := core.ReadMessageBytes(in, core.Limits{})
		sound := werr == nil
		if sound {
			_, werr = whole.Body().WriteTo(io.Discard)
			sound = werr == nil
		}
		wellFormed := xmlWellFormed(in)

		m, err := core.ReadMessageBytes(in, core.Limits{})
		if err != nil {
			t.Fatalf("the start of the envelope is sound, yet: %v", err)
		}
		handler := verdictHandlers[int(h)%len(verdictHandlers)]
		reply, herr := handler.h(m)
		out, err := answer(t, m, reply, herr)
		if handler.name == "OwnFault" && err != nil && core.FaultOf(err).Code == core.CodeReceiver {
			if !sound {
				t.Fatalf("%s: the handler's fault answered a broken envelope %q", handler.name, in)
			}
			return
		}
		if err == nil {
			if !sound {
				t.Fatalf("%s: answered %q to a broken envelope %q (%v)", handler.name, out, in, werr)
			}
			if !wellFormed {
				t.Fatalf("%s: answered %q to input encoding/xml finds not well-formed: %q", handler.name, out, in)
			}
			return
		}
		if sound {
			t.Fatalf("%s: refused a sound envelope %q: %v", handler.name, in, err)
		}
		f := core.FaultOf(err)
		if f.Code != core.CodeSender || f.Version != ver {
			t.Fatalf("%s: refused with %v (version %v), not a %v Sender fault", handler.name, f, f.Version, ver)
		}
	})
}

// xmlWellFormed reports whether encoding/xml reads in to its end in strict
// mode with one root element.
func xmlWellFormed(in []byte) bool {
	d := xml.NewDecoder(bytes.NewReader(in))
	depth, roots := 0, 0
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			return depth == 0 && roots == 1
		}
		if err != nil {
			return false
		}
		switch tok.(type) {
		case xml.StartElement:
			if depth == 0 {
				roots++
			}
			depth++
		case xml.EndElement:
			depth--
		case xml.CharData:
			if depth == 0 && len(bytes.TrimSpace(tok.(xml.CharData))) > 0 {
				return false
			}
		}
	}
}
