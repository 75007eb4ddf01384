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

// writer collects the schemas a definition needs: the schema of the type
// namespace (complex types, in discovery order), the schema of the target
// namespace (the operations' elements) and one per other namespace that
// an element is in (its global elements).
type writer struct {
	d        *Definition
	encoded  bool
	typeNS   string
	schemas  map[string]*xschema
	order    []string          // schema namespaces, in the order written
	prefixes map[string]string // namespace → prefix declared on wsdl:definitions
	others   []string          // namespaces with a generated prefix (ns1, ns2...), in order
	byType   map[reflect.Type]string
	byName   map[string]reflect.Type
}

// xschema is one xsd:schema being written.
type xschema struct {
	tns      string
	types    []string // rendered complexTypes
	elems    []string // rendered global elements
	imports  []string
	imported map[string]bool
	globals  map[string]string // global element name → its declaration
}

func newWriter(d *Definition) *writer {
	w := &writer{d: d, encoded: d.Encoded, typeNS: d.TypeNamespace, schemas: map[string]*xschema{},
		prefixes: map[string]string{d.Namespace: "tns"}, byType: map[reflect.Type]string{}, byName: map[string]reflect.Type{}}
	if w.typeNS == "" {
		w.typeNS = d.Namespace
	}
	if w.typeNS != d.Namespace {
		w.prefixes[w.typeNS] = "ts"
	}
	w.schema(w.typeNS)
	w.schema(d.Namespace)
	return w
}

// schema returns the schema of namespace ns, made on first use.
func (w *writer) schema(ns string) *xschema {
	s, ok := w.schemas[ns]
	if !ok {
		s = &xschema{tns: ns, imported: map[string]bool{}, globals: map[string]string{}}
		w.schemas[ns] = s
		w.order = append(w.order, ns)
	}
	return s
}

// qname returns the prefixed name of local in namespace ns, as written in
// the schema of namespace from, which imports ns (from "" is the WSDL part
// of the document: no import).
func (w *writer) qname(from, ns, local string) string {
	p, ok := w.prefixes[ns]
	if !ok {
		w.others = append(w.others, ns)
		p = fmt.Sprintf("ns%d", len(w.others))
		w.prefixes[ns] = p
	}
	if from != "" && from != ns {
		s := w.schema(from)
		if !s.imported[ns] {
			s.imported[ns] = true
			s.imports = append(s.imports, ns)
		}
	}
	return p + ":" + local
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

// ref returns the QName of t's type, as written in the schema of from.
// wrapList names a wrapper type of "item" elements for a literal list (an
// rpc/literal part, a bare element); encoded lists are always SOAP-encoded
// array types.
func (w *writer) ref(t reflect.Type, wrapList bool, from string) (string, error) {
	t = deref(t)
	if q, ok := simple(t); ok {
		return q, nil
	}
	if isList(t) {
		if !w.encoded && !wrapList {
			return w.ref(t.Elem(), true, from)
		}
		name, err := w.array(t)
		if err != nil {
			return "", err
		}
		return w.qname(from, w.typeNS, name), nil
	}
	switch t.Kind() {
	case reflect.Struct:
		name, err := w.structType(t)
		if err != nil {
			return "", err
		}
		return w.qname(from, w.typeNS, name), nil
	case reflect.Map:
		return "xsd:anyType", nil
	}
	return "", fmt.Errorf("wsdl: no XML Schema type for %v", t)
}

func (w *writer) claim(t reflect.Type, name string) (string, bool, error) {
	if n, ok := w.byType[t]; ok {
		return n, true, nil
	}
	if other, ok := w.byName[name]; ok && other != t {
		return "", false, fmt.Errorf("wsdl: types %v and %v are both named %s", other, t, name)
	}
	w.byType[t] = name
	w.byName[name] = t
	return name, false, nil
}

// array returns the local name of the array type of t, defining it.
func (w *writer) array(t reflect.Type) (string, error) {
	item, err := w.ref(t.Elem(), true, w.typeNS)
	if err != nil {
		return "", err
	}
	_, local, _ := strings.Cut(item, ":")
	name, done, err := w.claim(t, "ArrayOf"+upperFirst(local))
	if err != nil || done {
		return name, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<xsd:complexType name="%s">`, name)
	if w.encoded {
		fmt.Fprintf(&b, `<xsd:complexContent><xsd:restriction base="soapenc:Array">`+
			`<xsd:attribute ref="soapenc:arrayType" wsdl:arrayType="%s[]"/>`+
			`</xsd:restriction></xsd:complexContent>`, item)
	} else {
		fmt.Fprintf(&b, `<xsd:sequence><xsd:element name="item" type="%s" minOccurs="0" maxOccurs="unbounded"%s/></xsd:sequence>`,
			item, nillable(t.Elem(), false, true))
	}
	b.WriteString(`</xsd:complexType>`)
	s := w.schema(w.typeNS)
	s.types = append(s.types, b.String())
	return name, nil
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

// structType returns the local name of the complex type of struct t,
// defining it in the type namespace's schema.
func (w *writer) structType(t reflect.Type) (string, error) {
	if t.Name() == "" {
		return "", fmt.Errorf("wsdl: anonymous struct %v has no type name", t)
	}
	name, done, err := w.claim(t, t.Name())
	if err != nil || done {
		return name, err
	}
	s := w.schema(w.typeNS)
	idx := len(s.types)
	s.types = append(s.types, "") // keep discovery order; fields may add types
	var b strings.Builder
	fmt.Fprintf(&b, `<xsd:complexType name="%s"><xsd:sequence>`, name)
	fields, err := structFields(t)
	if err != nil {
		return "", err
	}
	if err := w.elements(&b, fields, w.typeNS); err != nil {
		return "", err
	}
	b.WriteString(`</xsd:sequence></xsd:complexType>`)
	s.types[idx] = b.String()
	return name, nil
}

// elements writes one xsd:element per part, local elements of a schema of
// namespace in: literal lists repeat, encoded lists are arrays. A part in
// another namespace refers to a global element of that namespace.
func (w *writer) elements(b *strings.Builder, parts []Part, in string) error {
	for _, p := range parts {
		t := deref(p.Type)
		repeated := isList(t) && !w.encoded
		from := in
		if p.Space != "" {
			from = p.Space
		}
		q, err := w.ref(p.Type, false, from)
		if err != nil {
			return fmt.Errorf("%w (part %s)", err, p.Name)
		}
		var occurs string
		switch {
		case repeated:
			occurs = ` minOccurs="0" maxOccurs="unbounded"`
		case p.Optional:
			occurs = ` minOccurs="0"`
		}
		nils := nillable(p.Type, w.encoded, false)
		if repeated {
			nils = nillable(t.Elem(), false, true)
		}
		if p.Nillable {
			nils = ` nillable="true"`
		}
		switch {
		case p.Space == "" || p.Space == in && w.d.Qualified:
			fmt.Fprintf(b, `<xsd:element name="%s" type="%s"%s%s/>`, esc(p.Name), q, occurs, nils)
		case p.Space == in:
			fmt.Fprintf(b, `<xsd:element name="%s" type="%s" form="qualified"%s%s/>`, esc(p.Name), q, occurs, nils)
		default:
			if err := w.global(p.Space, p.Name, q, nils); err != nil {
				return err
			}
			fmt.Fprintf(b, `<xsd:element ref="%s"%s/>`, w.qname(in, p.Space, esc(p.Name)), occurs)
		}
	}
	return nil
}

// global declares the global element {ns}name of type q (written in ns's
// schema) once; two different declarations of one name are an error.
func (w *writer) global(ns, name, q, nils string) error {
	decl := fmt.Sprintf(`<xsd:element name="%s" type="%s"%s/>`, esc(name), q, nils)
	s := w.schema(ns)
	if old, ok := s.globals[name]; ok {
		if old != decl {
			return fmt.Errorf("wsdl: two elements {%s}%s of different types or forms", ns, name)
		}
		return nil
	}
	s.globals[name] = decl
	s.elems = append(s.elems, decl)
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
		ps[i] = Part{Name: f.Name, Space: f.Space, Type: f.Type, Nillable: f.Nillable,
			Optional: f.OmitEmpty || f.Type.Kind() == reflect.Pointer && !f.Nillable}
	}
	return ps, nil
}

func upperFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}
