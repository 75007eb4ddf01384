package gen

import (
	"encoding/xml"
	"sort"
	"strconv"

	"github.com/soapwire/soapwire/core/wsdl"
	"github.com/soapwire/soapwire/core/xsd"
)

// model is the Go side of a contract: every Go type the generated package
// declares, with how each schema type is held.
type model struct {
	c      *wsdl.Contract
	set    *xsd.Set
	names  *namer // exported identifiers of the package
	locals *namer // unexported ones

	typeNames map[xsd.Type]string // named types (and global elements' anonymous types), named first
	elemTypes map[*xsd.Element]string

	simples     map[*xsd.SimpleType]*rep
	builtinVars map[xsd.Kind]string
	schemaVars  map[*xsd.SimpleType]string
	simpleVars  []*simpleVar
	goSimples   []*goSimple

	structs   map[*xsd.ComplexType]*goStruct
	goStructs []*goStruct
	wildVars  map[*xsd.Wildcard]string
	wilds     []*wildVar

	elemFns    map[*xsd.Element]*elemFuncs
	elemList   []*elemFuncs
	msgStructs map[msgKey]*goStruct
	msgFns     map[msgFnKey][2]string
	messages   []*message
	faults     map[*xsd.Element]*fault
	faultParts map[*wsdl.MessagePart]*fault // faults of type parts
	binary     bool                         // WithBinary: every base64Binary element is a core.Binary
	faultList  []*fault
}

// wildVar is a generated wildcard variable (an xs:any or anyAttribute).
type wildVar struct {
	name string
	w    *xsd.Wildcard
}

func newModel(c *wsdl.Contract) *model {
	return &model{
		c: c, set: c.Schemas,
		names:       newNamer(),
		locals:      newNamer("simples", "ctx", "in", "out", "opts", "err"),
		typeNames:   map[xsd.Type]string{},
		elemTypes:   map[*xsd.Element]string{},
		simples:     map[*xsd.SimpleType]*rep{},
		builtinVars: map[xsd.Kind]string{},
		schemaVars:  map[*xsd.SimpleType]string{},
		structs:     map[*xsd.ComplexType]*goStruct{},
		wildVars:    map[*xsd.Wildcard]string{},
		elemFns:     map[*xsd.Element]*elemFuncs{},
		msgStructs:  map[msgKey]*goStruct{},
		msgFns:      map[msgFnKey][2]string{},
		faults:      map[*xsd.Element]*fault{},
		faultParts:  map[*wsdl.MessagePart]*fault{},
	}
}

// standard namespaces are those of XML Schema, the SOAP encodings and
// WSDL: their types are not the contract's own (the built-in types, the
// encoding's wrappers, which map to the built-in ones).
func isStandardNS(ns string) bool {
	switch ns {
	case xsd.NamespaceXSD, xsd.NamespaceSOAPEnc, xsd.NamespaceSOAP12Enc, xsd.NamespaceWSDL, xsd.NamespaceXML,
		"http://www.w3.org/1999/XMLSchema", "http://www.w3.org/2000/10/XMLSchema":
		return true
	}
	return false
}

func isEncodingNS(ns string) bool { return ns == xsd.NamespaceSOAPEnc || ns == xsd.NamespaceSOAP12Enc }

// nameTypes gives the named types and the global elements with an
// anonymous type of the contract's schemas their Go names, in a stable
// order (by namespace, then local name: types first, then elements), so
// that the same contract always gets the same names.
func (m *model) nameTypes() {
	for _, t := range m.set.Types() {
		if isStandardNS(t.TypeName().Space) {
			continue
		}
		m.typeNames[t] = m.names.name(goName(t.TypeName().Local))
	}
	for _, e := range m.set.Elements() {
		if isStandardNS(e.Name.Space) {
			continue
		}
		if t := e.Type; t != nil && t.TypeName() == (xml.Name{}) && isAnonymousOf(t, e) {
			m.typeNames[t] = m.names.name(goName(e.Name.Local))
		}
	}
}

// isAnonymousOf reports whether t is the anonymous type written in e.
func isAnonymousOf(t xsd.Type, e *xsd.Element) bool {
	switch t := t.(type) {
	case *xsd.ComplexType:
		return t.Context == e
	case *xsd.SimpleType:
		return t.Context == e
	}
	return false
}

// build makes the Go types of every named type and global element of the
// contract's schemas, and of every message part.
func (m *model) build() {
	m.nameTypes()
	for _, t := range m.set.Types() {
		if isStandardNS(t.TypeName().Space) {
			continue
		}
		m.typeRep(t, m.typeNames[t], false)
	}
	for _, e := range m.set.Elements() {
		if isStandardNS(e.Name.Space) {
			continue
		}
		m.elementRep(e)
	}
}

// elementRep returns the rep of a global element's values (its type's).
func (m *model) elementRep(e *xsd.Element) *rep {
	ctx := m.typeNames[e.Type]
	if ctx == "" {
		ctx = goName(e.Name.Local)
	}
	return m.binaryRep(e, m.typeRep(e.Type, ctx, true))
}

// typeRep returns how the values of t are held; ctx names an anonymous
// type. poly says whether a value of t may be a derived type's (an
// element's value: an interface for a type with derived types).
func (m *model) typeRep(t xsd.Type, ctx string, poly bool) *rep {
	switch t := t.(type) {
	case *xsd.SimpleType:
		return m.simpleRep(t, ctx)
	case *xsd.ComplexType:
		if t.IsAnyType() {
			return &rep{goType: "xsd.RawXML", kind: repRaw, typeName: t.Name}
		}
		if r := m.encodingRep(t); r != nil {
			return r
		}
		st := m.structOf(t, ctx)
		if st.array != nil {
			return &rep{goType: st.name, kind: repArray, st: st, item: st.array, typeName: t.Name}
		}
		if poly && st.iface != "" {
			return &rep{goType: st.iface, kind: repIface, st: st, typeName: t.Name}
		}
		return &rep{goType: st.name, kind: repStruct, st: st, typeName: t.Name}
	}
	return &rep{goType: "xsd.RawXML", kind: repRaw}
}

// encodingRep maps the SOAP encoding's own types: its wrappers of the
// built-in types (soapenc:string, soapenc:int…) to the built-in types.
func (m *model) encodingRep(t *xsd.ComplexType) *rep {
	if !isEncodingNS(t.Name.Space) {
		return nil
	}
	if k := xsd.KindOf(t.Name.Local); k != xsd.KindNone {
		return m.builtinRepOf(k)
	}
	if t.Name.Local == "base64" {
		return m.builtinRepOf(xsd.KindBase64Binary)
	}
	return nil
}

// wildVar returns the variable holding a wildcard.
func (m *model) wildVar(w *xsd.Wildcard) string {
	if v, ok := m.wildVars[w]; ok {
		return v
	}
	v := m.locals.name("wildcard" + strconv.Itoa(len(m.wilds)+1))
	m.wildVars[w] = v
	m.wilds = append(m.wilds, &wildVar{name: v, w: w})
	return v
}

// sortedStructs returns the structs by name.
func (m *model) sortedStructs() []*goStruct {
	out := append([]*goStruct(nil), m.goStructs...)
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

func itoa(i int) string { return strconv.Itoa(i) }
