package wsdl

import (
	"encoding/xml"
	"fmt"
	"reflect"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/soapwire/soapwire/core/soapenc"
)

// schema collects the named types a definition needs, in discovery order.
type schema struct {
	encoded bool
	defs    []string                // rendered complexTypes
	byType  map[reflect.Type]string // Go type (struct or array kind) → local name
	byName  map[string]reflect.Type
}

func newSchema(encoded bool) *schema {
	return &schema{encoded: encoded, byType: map[reflect.Type]string{}, byName: map[string]reflect.Type{}}
}

func deref(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

func isList(t reflect.Type) bool {
	k := t.Kind()
	return (k == reflect.Slice || k == reflect.Array) && t.Elem().Kind() != reflect.Uint8
}

// simple returns the XML Schema type of a simple Go type.
func simple(t reflect.Type) (string, bool) {
	if isList(t) || t.Kind() == reflect.Struct && t != reflect.TypeFor[soapenc.Decimal]() {
		if n, ok := soapenc.TypeName(t, soapenc.V11, ""); ok && n.Space == NamespaceXSD {
			return "xsd:" + n.Local, true // time.Time, big.Int, big.Rat
		}
		return "", false
	}
	if t.Kind() == reflect.Interface {
		return "xsd:anyType", true
	}
	n, ok := soapenc.TypeName(t, soapenc.V11, "")
	if !ok || n.Space != NamespaceXSD {
		return "", false
	}
	return "xsd:" + n.Local, true
}

// ref returns the QName (prefixed xsd: or tns:) of t's type. wrapList names
// a wrapper type of "item" elements for a literal list (an rpc/literal
// part); encoded lists are always SOAP-encoded array types.
func (s *schema) ref(t reflect.Type, wrapList bool) (string, error) {
	t = deref(t)
	if q, ok := simple(t); ok {
		return q, nil
	}
	if isList(t) {
		if !s.encoded && !wrapList {
			return s.ref(t.Elem(), true)
		}
		return s.array(t)
	}
	switch t.Kind() {
	case reflect.Struct:
		return s.structType(t)
	case reflect.Map:
		return "xsd:anyType", nil
	}
	return "", fmt.Errorf("wsdl: no XML Schema type for %v", t)
}

func (s *schema) claim(t reflect.Type, name string) (string, bool, error) {
	if n, ok := s.byType[t]; ok {
		return n, true, nil
	}
	if other, ok := s.byName[name]; ok && other != t {
		return "", false, fmt.Errorf("wsdl: types %v and %v are both named %s", other, t, name)
	}
	s.byType[t] = name
	s.byName[name] = t
	return name, false, nil
}

func (s *schema) array(t reflect.Type) (string, error) {
	item, err := s.ref(t.Elem(), true)
	if err != nil {
		return "", err
	}
	_, local, _ := strings.Cut(item, ":")
	name, done, err := s.claim(t, "ArrayOf"+upperFirst(local))
	if err != nil || done {
		return "tns:" + name, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<xsd:complexType name="%s">`, name)
	if s.encoded {
		fmt.Fprintf(&b, `<xsd:complexContent><xsd:restriction base="soapenc:Array">`+
			`<xsd:attribute ref="soapenc:arrayType" wsdl:arrayType="%s[]"/>`+
			`</xsd:restriction></xsd:complexContent>`, item)
	} else {
		fmt.Fprintf(&b, `<xsd:sequence><xsd:element name="item" type="%s" minOccurs="0" maxOccurs="unbounded"%s/></xsd:sequence>`,
			item, nillable(t.Elem(), false, true))
	}
	b.WriteString(`</xsd:complexType>`)
	s.defs = append(s.defs, b.String())
	return "tns:" + name, nil
}

// nillable returns the nillable attribute for an element of type t when
// core/soapenc may write it xsi:nil="true": a nil pointer, map or
// interface; a nil slice when encoded or as a list item (item).
func nillable(t reflect.Type, encoded, item bool) string {
	if t == reflect.TypeFor[xml.Name]() { // the zero QName
		return ` nillable="true"`
	}
	switch t.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Interface:
		return ` nillable="true"`
	case reflect.Slice:
		if isList(t) && (encoded || item) {
			return ` nillable="true"`
		}
	}
	return ""
}

func (s *schema) structType(t reflect.Type) (string, error) {
	if t.Name() == "" {
		return "", fmt.Errorf("wsdl: anonymous struct %v has no type name", t)
	}
	name, done, err := s.claim(t, t.Name())
	if err != nil || done {
		return "tns:" + name, err
	}
	idx := len(s.defs)
	s.defs = append(s.defs, "") // keep discovery order; fields may add types
	var b strings.Builder
	fmt.Fprintf(&b, `<xsd:complexType name="%s"><xsd:sequence>`, name)
	fields, err := structFields(t)
	if err != nil {
		return "", err
	}
	if err := s.elements(&b, fields); err != nil {
		return "", err
	}
	b.WriteString(`</xsd:sequence></xsd:complexType>`)
	s.defs[idx] = b.String()
	return "tns:" + name, nil
}

// elements writes one xsd:element per part: literal lists repeat, encoded
// lists are arrays.
func (s *schema) elements(b *strings.Builder, parts []Part) error {
	for _, p := range parts {
		t := deref(p.Type)
		repeated := isList(t) && !s.encoded
		q, err := s.ref(p.Type, false)
		if err != nil {
			return fmt.Errorf("%w (part %s)", err, p.Name)
		}
		fmt.Fprintf(b, `<xsd:element name="%s" type="%s"`, esc(p.Name), q)
		switch {
		case repeated:
			b.WriteString(` minOccurs="0" maxOccurs="unbounded"`)
		case p.Optional:
			b.WriteString(` minOccurs="0"`)
		}
		if repeated {
			b.WriteString(nillable(t.Elem(), false, true))
		} else {
			b.WriteString(nillable(p.Type, s.encoded, false))
		}
		b.WriteString(`/>`)
	}
	return nil
}

// structFields lists the fields of a struct as parts, as core/soapenc
// writes them (soapenc.Fields), so the schema describes what goes on the
// wire.
func structFields(t reflect.Type) ([]Part, error) {
	fields, err := soapenc.Fields(t)
	if err != nil {
		return nil, fmt.Errorf("wsdl: %w", err)
	}
	ps := make([]Part, len(fields))
	for i, f := range fields {
		ps[i] = Part{Name: f.Name, Type: f.Type, Optional: f.OmitEmpty || f.Type.Kind() == reflect.Pointer}
	}
	return ps, nil
}

func upperFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}
