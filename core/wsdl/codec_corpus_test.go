package wsdl_test

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core/wsdl"
	"github.com/soapwire/soapwire/core/xsd"
)

// TestCodecCorpus: the codec on the real contracts of the corpus. For the
// input of every operation (at most 60 per contract), a sample value that
// the schema allows (required elements and attributes, the first branch
// of a choice, a derived type for an abstract one) is written, read back,
// and written again to the same bytes; hostile variants of it (a child
// renamed, nesting 300 deep, cut short) are read without a panic, and
// those that cannot be right are refused. Most samples must write: the
// sampler does not satisfy patterns, so a few cannot.
func TestCodecCorpus(t *testing.T) {
	dir := corpusDir(t)
	total, written := 0, 0
	var failures []string
	for _, c := range corpusCases(t, dir) {
		ct, err := loadCase(t, dir, c)
		require.NoError(t, err, c.ID)
		seen := map[*wsdl.Signature]bool{}
		n := 0
		for _, ep := range ct.Endpoints() {
			for _, sig := range ep.Operations {
				if n >= 60 || seen[sig] {
					continue
				}
				seen[sig] = true
				n++
				for _, el := range bodyElements(sig.Input) {
					total++
					codec := xsd.NewCodec(ct.Schemas)
					if sig.Input.Use == wsdl.Encoded {
						codec = xsd.NewCodec(ct.Schemas, xsd.Encoded(sig.Version))
					}
					s := &sampler{set: ct.Schemas}
					v := s.element(el, 0)
					if s.err != nil {
						failures = append(failures, fmt.Sprintf("%s %s: no sample: %v", c.ID, sig.Name, s.err))
						continue
					}
					var first bytes.Buffer
					if err := codec.Encode(&first, el, v); err != nil {
						failures = append(failures, fmt.Sprintf("%s %s: %v", c.ID, sig.Name, err))
						continue
					}
					written++
					var tree *xsd.Value
					require.NoError(t, codec.DecodeBytes(first.Bytes(), el, &tree), "%s %s: %s", c.ID, sig.Name, first.Bytes())
					var again bytes.Buffer
					require.NoError(t, codec.Encode(&again, el, tree), "%s %s", c.ID, sig.Name)
					assert.Equal(t, first.String(), again.String(), "%s %s", c.ID, sig.Name)
					hostile(t, codec, el, first.Bytes(), c.ID+" "+sig.Name)
				}
			}
		}
	}
	t.Logf("%d of %d sample inputs written; the others:\n%s", written, total, strings.Join(failures, "\n"))
	assert.Greater(t, written*100, total*90, "at least 90%% of the samples write")
}

// bodyElements returns the elements a message's body holds.
func bodyElements(ms *wsdl.MessageSignature) []*xsd.Element {
	switch {
	case ms == nil:
		return nil
	case ms.Wrapped:
		return []*xsd.Element{ms.Parts[0].Element}
	case ms.Element != (xml.Name{}) && len(ms.Params) != 1:
		return []*xsd.Element{xsd.WrapperElement(ms.Element, ms.Params)}
	}
	var out []*xsd.Element
	for _, p := range ms.Params {
		out = append(out, p.Element)
	}
	return out
}

// hostile reads variants of a good element that must not panic: the ones
// that cannot fit are refused.
func hostile(t *testing.T, codec *xsd.Codec, el *xsd.Element, good []byte, what string) {
	t.Helper()
	s := string(good)
	deep := s[:strings.IndexByte(s, '>')+1] + strings.Repeat("<x>", 300) + strings.Repeat("</x>", 300)
	if strings.HasSuffix(s[:strings.IndexByte(s, '>')+1], "/>") {
		deep = ""
	}
	variants := map[string]string{
		"cut short": s[:len(s)/2],
		"renamed":   strings.Replace(s, "<", "<bogus", 2),
	}
	if deep != "" {
		variants["deep"] = deep
	}
	for name, v := range variants {
		var tree *xsd.Value
		err := codec.DecodeBytes([]byte(v), el, &tree)
		if name != "renamed" {
			assert.Error(t, err, "%s: %s must be refused", what, name)
		}
	}
}

// sampler makes a value the schema allows for an element.
type sampler struct {
	set *xsd.Set
	err error
}

func (s *sampler) fail(format string, args ...any) *xsd.Value {
	if s.err == nil {
		s.err = fmt.Errorf(format, args...)
	}
	return &xsd.Value{}
}

func (s *sampler) element(el *xsd.Element, depth int) *xsd.Value {
	if depth > 24 {
		return s.fail("the required content nests deeper than 24")
	}
	if el.Abstract {
		for _, m := range s.set.SubstitutionGroup(el) {
			if !m.Abstract {
				return s.element(m, depth)
			}
		}
		return s.fail("the abstract element %s has no substitute", el.Name.Local)
	}
	v := &xsd.Value{Name: el.Name}
	t := el.Type
	if ct, ok := t.(*xsd.ComplexType); ok && ct.Abstract {
		for _, d := range s.set.DerivedTypes(ct) {
			if !d.Abstract {
				t, v.Type = d, d.Name
				break
			}
		}
		if v.Type == (xml.Name{}) {
			return s.fail("the abstract type %s has no derived type", ct.Name.Local)
		}
	}
	switch t := t.(type) {
	case *xsd.SimpleType:
		if el.Fixed != nil {
			v.Text = *el.Fixed
		} else {
			v.Text = s.text(t, 0)
		}
	case *xsd.ComplexType:
		s.complex(t, v, depth)
	}
	return v
}

func (s *sampler) complex(t *xsd.ComplexType, v *xsd.Value, depth int) {
	if t.IsAnyType() {
		v.Text = "x"
		return
	}
	for _, u := range t.EffectiveAttributes() {
		if u.Use != xsd.Required {
			continue
		}
		text := ""
		if f := u.ValueFixed(); f != nil {
			text = *f
		} else {
			text = s.text(u.Attribute.Type, 0)
		}
		v.Attrs = append(v.Attrs, &xsd.Value{Name: u.Attribute.Name, Text: text})
	}
	if t.Array != nil {
		return // an empty array
	}
	switch t.Content {
	case xsd.SimpleContent:
		v.Text = s.text(t.SimpleType, 0)
	case xsd.ElementContent, xsd.MixedContent:
		s.particle(t.EffectiveParticle(), v, depth)
	}
}

func (s *sampler) particle(p *xsd.Particle, v *xsd.Value, depth int) {
	if p == nil || p.Min == 0 {
		return
	}
	for range min(p.Min, 2) {
		switch {
		case p.Element != nil:
			v.Elems = append(v.Elems, s.element(p.Element, depth+1))
		case p.Any != nil:
			ns := "urn:soapwire:sample"
			if !p.Any.Allows(ns) {
				for _, n := range p.Any.Namespaces {
					ns = n
					break
				}
			}
			v.Elems = append(v.Elems, &xsd.Value{Name: xml.Name{Space: ns, Local: "any"}, Text: "x"})
		case p.Group != nil:
			switch p.Group.Compositor {
			case xsd.Choice:
				if len(p.Group.Particles) > 0 {
					q := *p.Group.Particles[0]
					q.Min = max(q.Min, 1)
					s.particle(&q, v, depth)
				}
			default:
				for _, q := range p.Group.Particles {
					s.particle(q, v, depth)
				}
			}
		}
	}
}

// text is a value of a simple type: an enumerated one, else one of its
// primitive's within its bounds and lengths.
func (s *sampler) text(t *xsd.SimpleType, depth int) string {
	if t == nil || depth > 8 {
		return "x"
	}
	f := t.EffectiveFacets()
	if len(f.Enumeration) > 0 {
		return f.Enumeration[0].Value
	}
	switch t.Variety {
	case xsd.List:
		return s.text(t.Item, depth+1)
	case xsd.Union:
		if len(t.Members) > 0 {
			return s.text(t.Members[0], depth+1)
		}
		return "x"
	}
	k := xsd.KindAnySimpleType
	if b := t.Builtin(); b != nil {
		k = b.Kind
	}
	if k.IsInteger() || k.Primitive() == xsd.KindDecimal || k == xsd.KindFloat || k == xsd.KindDouble {
		n := 1
		switch k {
		case xsd.KindNonPositiveInteger:
			n = 0
		case xsd.KindNegativeInteger:
			n = -1
		}
		if f.MinInclusive != nil {
			if m, err := strconv.Atoi(*f.MinInclusive); err == nil && m > n {
				n = m
			}
		}
		if f.MinExclusive != nil {
			if m, err := strconv.Atoi(*f.MinExclusive); err == nil && m >= n {
				n = m + 1
			}
		}
		if f.MaxInclusive != nil {
			if m, err := strconv.Atoi(*f.MaxInclusive); err == nil && m < n {
				n = m
			}
		}
		return strconv.Itoa(n)
	}
	switch k.Primitive() {
	case xsd.KindBoolean:
		return "true"
	case xsd.KindDuration:
		return "PT1S"
	case xsd.KindDateTime:
		return "2024-01-02T03:04:05Z"
	case xsd.KindTime:
		return "03:04:05"
	case xsd.KindDate:
		return "2024-01-02"
	case xsd.KindGYearMonth:
		return "2024-01"
	case xsd.KindGYear:
		return "2024"
	case xsd.KindGMonthDay:
		return "--01-02"
	case xsd.KindGDay:
		return "---02"
	case xsd.KindGMonth:
		return "--01"
	case xsd.KindHexBinary:
		return "CAFE"
	case xsd.KindBase64Binary:
		return "aGk="
	case xsd.KindAnyURI:
		return "http://x.example/"
	case xsd.KindQName, xsd.KindNOTATION:
		return "{urn:soapwire:sample}q"
	}
	if k == xsd.KindLanguage {
		return "en"
	}
	n := 2
	if f.Length != nil {
		n = *f.Length
	} else if f.MinLength != nil && *f.MinLength > n {
		n = *f.MinLength
	}
	if f.MaxLength != nil && *f.MaxLength < n {
		n = *f.MaxLength
	}
	return strings.Repeat("x", n)
}
