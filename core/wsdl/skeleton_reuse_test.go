package wsdl_test

import (
	"bytes"
	"context"
	"encoding/xml"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/wsdl"
	"github.com/soapwire/soapwire/core/xsd"
)

// reuseSkeleton is a server of one operation, {urn:t}echo, whose request
// holds any number of <v> strings (each with an optional n attribute)
// and whose reply echoes them; a value "bad" makes the reply break the
// contract halfway (a character XML cannot carry), after some of it is
// written.
func reuseSkeleton() *wsdl.Skeleton {
	str := xsd.NewSimples().Builtin(xsd.KindString)
	op := &wsdl.SkeletonOperation{Version: core.V11, Name: "echo", Action: "urn:t#echo",
		Element: xml.Name{Space: "urn:t", Local: "echo"},
		Serve: func(_ context.Context, call *wsdl.SkeletonCall) error {
			var vals, attrs []string
			if err := call.Read(func(d *xsd.Decoder) error {
				st, err := d.Element("urn:t", "echo")
				if err != nil {
					return err
				}
				if err := d.NoAttrs(st); err != nil {
					return err
				}
				for {
					c, err := d.Optional("", "v")
					if err != nil {
						return err
					}
					if c == nil {
						break
					}
					a := ""
					for i := range c.Attrs() {
						if a, err = d.Attr(&c.Attrs()[i], str); err != nil {
							return err
						}
					}
					s, err := d.Value(str)
					if err != nil {
						return err
					}
					vals, attrs = append(vals, s), append(attrs, a)
				}
				return d.End("v")
			}); err != nil {
				return err
			}
			return call.Write(func(e *xsd.Encoder) error {
				e.Start("urn:t", "echoResponse")
				for i, v := range vals {
					if v == "bad" {
						v = "b\x01d"
					}
					if attrs[i] != "" {
						// a namespace of its own: its prefix is the
						// next one given in this reply
						e.Start("urn:item:"+attrs[i], "item")
						e.Attr("urn:t:a", "n", attrs[i])
					} else {
						e.Start("urn:t", "item")
					}
					if err := e.Simple("", "v", str, v); err != nil {
						return err
					}
					e.End()
				}
				e.End()
				return nil
			})
		}}
	return wsdl.NewSkeleton("", []*wsdl.SkeletonOperation{op})
}

// serveOnce serves an envelope and returns the reply as written, or the
// error's text.
func serveOnce(t *testing.T, s *wsdl.Skeleton, env string) string {
	m, err := core.ReadMessageBytes([]byte(env), core.DefaultLimits())
	if err != nil {
		t.Error(err) // not Fatal: goroutines call it
		return ""
	}
	reply, err := s.ServeSOAP(t.Context(), m)
	if err != nil {
		return "error: " + err.Error()
	}
	var b bytes.Buffer
	if _, err := reply.WriteTo(&b); err != nil {
		t.Error(err)
		return ""
	}
	return b.String()
}

// TestSkeletonReusesDecodersAndEncoders: the Skeleton keeps its Decoders
// and Encoders from one request to the next (a trick: docs/benchmarks.md,
// "Generated code"); served in a random order by one Skeleton, every
// request gets the reply a Skeleton of its own (fresh Decoder and Encoder,
// the plain reference) gives it, whatever came before (large values,
// nesting, a request refused halfway through its read, a reply that broke
// the contract halfway through its writing), and the values read earlier
// stay as they were.
func TestSkeletonReusesDecodersAndEncoders(t *testing.T) {
	vals := func(vs ...string) string {
		var b strings.Builder
		for _, v := range vs {
			b.WriteString(v)
		}
		return b.String()
	}
	bodies := []string{
		`<e:echo xmlns:e="urn:t"/>`,
		`<e:echo xmlns:e="urn:t"><v>one</v></e:echo>`,
		`<e:echo xmlns:e="urn:t"><v n="1">` + strings.Repeat("large &amp; ", 1500) + `</v><v>x</v></e:echo>`,
		`<e:echo xmlns:e="urn:t"><v>a<!--c-->b<![CDATA[<c>]]></v><v n="2"></v><v>  </v></e:echo>`,
		`<e:echo xmlns:e="urn:t"><v>ok</v><v>bad</v><v>never</v></e:echo>`,    // the reply breaks the contract
		`<e:echo xmlns:e="urn:t"><v>ok</v><v>text<deep>x</deep></v></e:echo>`, // refused inside a value
		`<e:echo xmlns:e="urn:t"><v>ok</v><w/><v>after</v></e:echo>`,          // refused: an element not allowed
		`<e:echo xmlns:e="urn:t" other="1"><v>z</v></e:echo>`,                 // refused: an attribute
		`<e:echo xmlns:e="urn:t"><v n="3">three</v><v n="` + strings.Repeat("q", 3000) + `">` + vals("grüße ", "日本") + `</v></e:echo>`,
	}
	envs := make([]string, len(bodies))
	want := make([]string, len(bodies))
	for i, b := range bodies {
		envs[i] = `<s:Envelope xmlns:s="` + core.NamespaceV11 + `"><s:Body>` + b + `</s:Body></s:Envelope>`
		want[i] = serveOnce(t, reuseSkeleton(), envs[i])
	}
	for i, w := range want[4:8] {
		if !strings.HasPrefix(w, "error: ") {
			t.Fatalf("request %d is answered: %s", i+4, w)
		}
	}
	s := reuseSkeleton()
	rng := rand.New(rand.NewPCG(1, 2))
	for n := range 300 {
		i := rng.IntN(len(envs))
		if got := serveOnce(t, s, envs[i]); got != want[i] {
			t.Fatalf("request %d (%d served before): %.300s\nwant %.300s", i, n, got, want[i])
		}
	}
	// and served at once by several goroutines (the race detector watches)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for n := range 50 {
				i := (g + n) % len(envs)
				if got := serveOnce(t, s, envs[i]); got != want[i] {
					t.Errorf("at once: request %d: %.300s\nwant %.300s", i, got, want[i])
					return
				}
			}
		})
	}
	wg.Wait()
}
