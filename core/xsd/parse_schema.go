package xsd

import (
	"encoding/xml"
	"strings"

	"github.com/soapwire/soapwire/core/internal/xmldoc"
)

// sp is the state of reading one schema element.
type sp struct {
	r         *Reader
	s         *Schema
	depth     int  // import depth of the document
	chameleon bool // an included schema without a target namespace: its unqualified names take the includer's
}

func (p *sp) loc(n *xmldoc.Node) Loc { return Loc{File: p.s.Location, Line: n.Line} }

// AddSchema reads a schema element (a schema document's root, or a child of
// a WSDL's types) of the document at location, depth imports from the first
// document, and loads what it imports and includes. It returns nil, having
// recorded an error, for an element that is not xs:schema.
func (r *Reader) AddSchema(n *xmldoc.Node, location string, depth int) *Schema {
	return r.addSchema(n, location, depth, "", false)
}

func (r *Reader) addSchema(n *xmldoc.Node, location string, depth int, includer string, include bool) *Schema {
	loc := Loc{File: location, Line: n.Line}
	if !n.Is(NamespaceXSD, "schema") {
		if isXSDNamespace(n.Name.Space) && n.Name.Local == "schema" {
			r.Fail(loc, "a schema of the XML Schema draft namespace %s (only %s is read)", n.Name.Space, NamespaceXSD)
		} else {
			r.Fail(loc, "{%s}%s is not an XML Schema (xs:schema)", n.Name.Space, n.Name.Local)
		}
		return nil
	}
	s := &Schema{Location: location, Loc: loc}
	p := &sp{r: r, s: s, depth: depth}
	tns, has := n.Attr("targetNamespace")
	switch {
	case include && !has:
		tns, p.chameleon = includer, includer != ""
	case include && tns != includer:
		r.Fail(loc, "an included schema's target namespace %q is not its includer's %q", tns, includer)
	case has && tns == "":
		r.Fail(loc, `targetNamespace="" (a schema without one leaves the attribute out)`)
	}
	s.TargetNamespace = tns
	p.checkAttrs(n, "targetNamespace", "elementFormDefault", "attributeFormDefault", "blockDefault", "finalDefault", "version", "id", "xpathDefaultNamespace", "defaultAttributes")
	s.ElementFormQualified = p.form(n, "elementFormDefault", false)
	s.AttributeFormQualified = p.form(n, "attributeFormDefault", false)
	s.BlockDefault, _ = n.Attr("blockDefault")
	s.FinalDefault, _ = n.Attr("finalDefault")
	r.schemas = append(r.schemas, s)
	r.nsSeen[tns] = true
	for _, c := range p.children(n) {
		switch c.Name.Local {
		case "annotation":
			s.Doc = joinDoc(s.Doc, p.annotation(c))
		case "import", "include":
			p.importOrInclude(c)
		case "redefine", "override":
			r.Fail(p.loc(c), "xs:%s is not supported (its definitions would change the types)", c.Name.Local)
		case "element":
			s.Elements = append(s.Elements, p.globalElement(c))
		case "attribute":
			if u := p.attribute(c, true); u != nil {
				s.Attributes = append(s.Attributes, u.Attribute)
			}
		case "simpleType":
			s.Types = append(s.Types, p.simpleType(c, nil))
		case "complexType":
			s.Types = append(s.Types, p.complexType(c, nil))
		case "group":
			if g := p.namedGroup(c); g != nil {
				s.Groups = append(s.Groups, g)
			}
		case "attributeGroup":
			s.AttributeGroups = append(s.AttributeGroups, p.attributeGroup(c))
		case "notation":
			// a notation changes no value on the wire
		default:
			r.Warn(p.loc(c), "xs:%s in a schema is not supported (ignored)", c.Name.Local)
		}
	}
	return s
}

// importOrInclude loads what an xs:import or xs:include names.
func (p *sp) importOrInclude(n *xmldoc.Node) {
	r := p.r
	include := n.Name.Local == "include"
	imp := &Import{Include: include, Loc: p.loc(n)}
	imp.Namespace, _ = n.Attr("namespace")
	imp.Schema, _ = n.Attr("schemaLocation")
	p.checkAttrs(n, "namespace", "schemaLocation", "id")
	p.s.Imports = append(p.s.Imports, imp)
	switch {
	case include && imp.Schema == "":
		r.Fail(imp.Loc, "xs:include without a schemaLocation")
		return
	case !include && imp.Namespace == p.s.TargetNamespace && !p.chameleon:
		r.Fail(imp.Loc, "xs:import of the schema's own namespace %q (xs:include includes it)", imp.Namespace)
		return
	case !include && isXSDNamespace(imp.Namespace):
		return // the built-in types
	case !include && imp.Schema == "":
		r.Want(imp.Namespace, imp.Loc)
		return
	}
	loc, err := ResolveLocation(p.s.Location, imp.Schema)
	if err != nil {
		r.Fail(imp.Loc, "%v", err)
		return
	}
	// An import of a namespace the catalog knows, at a URL it does not,
	// takes the catalog's copy rather than failing offline.
	if !include && IsURL(loc) {
		if _, ok := r.catalog.lookup(loc); !ok {
			if u, ok := r.catalog.byNamespace(imp.Namespace); ok {
				loc = u
			}
		}
	}
	imp.Loaded = loc
	r.LoadSchemaAt(loc, imp.Loc, p.depth+1, p.s.TargetNamespace, include, imp.Namespace)
}

// AddSchemaDocument reads the schema that is the root of d (a document
// Document loaded), as LoadSchemaAt reads an import of it: once, so that a
// schema a WSDL imports with wsdl:import and a schema imports again is read
// one time, without its namespace checked against an import's.
func (r *Reader) AddSchemaDocument(d *Document, depth int) {
	tns, _ := d.Root.Attr("targetNamespace")
	key := d.key + "\x00" + tns
	if r.added[key] {
		return
	}
	r.added[key] = true
	r.addSchema(d.Root, d.Location, depth, "", false)
}

// LoadSchemaAt loads the schema document at location, as an import (of
// namespace, "" for none) or an include into a schema of namespace
// includer; from is where it is named, for errors. A document that is a
// WSDL is refused.
func (r *Reader) LoadSchemaAt(location string, from Loc, depth int, includer string, include bool, namespace string) {
	d, _, err := r.Document(location, depth)
	if err != nil {
		r.Fatal(from, err)
		return
	}
	// A document is read once per target namespace it ends up in: its
	// own, or a chameleon's includer's.
	tns, has := d.Root.Attr("targetNamespace")
	if include && !has {
		tns = includer
	}
	key := d.key + "\x00" + tns
	if r.added[key] {
		return
	}
	r.added[key] = true
	s := r.addSchema(d.Root, d.Location, depth, includer, include)
	if s != nil && !include && depth > 0 && s.TargetNamespace != namespace {
		r.Fail(from, "the schema imported for namespace %q has the target namespace %q", namespace, s.TargetNamespace)
	}
}

// children returns n's element children in the XML Schema namespace,
// reporting the others (elements of other namespaces belong in xs:appinfo).
func (p *sp) children(n *xmldoc.Node) []*xmldoc.Node {
	var out []*xmldoc.Node
	for _, c := range n.Children {
		switch {
		case c.IsText():
			if strings.TrimSpace(c.Text) != "" {
				p.r.Warn(p.loc(n), "text in xs:%s ignored", n.Name.Local)
			}
		case c.Name.Space == NamespaceXSD:
			out = append(out, c)
		default:
			p.r.Warn(p.loc(c), "{%s}%s in xs:%s is not XML Schema (ignored)", c.Name.Space, c.Name.Local, n.Name.Local)
		}
	}
	return out
}

// checkAttrs reports the unqualified attributes of n that are not among
// known. Attributes in other namespaces are annotations and pass.
func (p *sp) checkAttrs(n *xmldoc.Node, known ...string) {
outer:
	for _, a := range n.Attrs {
		if a.Name.Space != "" {
			continue
		}
		for _, k := range known {
			if a.Name.Local == k {
				continue outer
			}
		}
		p.r.Warn(p.loc(n), "the attribute %s of xs:%s is not understood (ignored)", a.Name.Local, n.Name.Local)
	}
}

// form reads a form attribute ("qualified" or "unqualified").
func (p *sp) form(n *xmldoc.Node, attr string, def bool) bool {
	v, ok := n.Attr(attr)
	if !ok {
		return def
	}
	switch strings.TrimSpace(v) {
	case "qualified":
		return true
	case "unqualified":
		return false
	}
	p.r.Fail(p.loc(n), "%s=%q (qualified or unqualified)", attr, v)
	return def
}

// qname reads a QName attribute, "" when absent.
func (p *sp) qname(n *xmldoc.Node, attr string) (xml.Name, bool) {
	v, ok := n.Attr(attr)
	if !ok {
		return xml.Name{}, false
	}
	q, err := n.ResolveQName(v)
	if err != nil {
		p.r.Fail(p.loc(n), "%s: %v", attr, err)
		return xml.Name{}, false
	}
	return p.chameleonName(q, p.loc(n)), true
}

// chameleonName puts a no-namespace name of a chameleon-included schema in
// its includer's namespace, and notes the namespace as needed.
func (p *sp) chameleonName(q xml.Name, loc Loc) xml.Name {
	if p.chameleon && q.Space == "" {
		q.Space = p.s.TargetNamespace
	}
	p.r.wantName(q, loc)
	return q
}

// annotation returns the text of an xs:annotation's documentation.
func (p *sp) annotation(n *xmldoc.Node) string {
	var doc string
	for _, c := range n.Elements() {
		if c.Is(NamespaceXSD, "documentation") {
			doc = joinDoc(doc, strings.TrimSpace(c.InnerText()))
		}
	}
	return doc
}

// docOf returns the documentation of n's annotation child.
func (p *sp) docOf(n *xmldoc.Node) string {
	var doc string
	for _, c := range n.Elements() {
		if c.Is(NamespaceXSD, "annotation") {
			doc = joinDoc(doc, p.annotation(c))
		}
	}
	return doc
}

func joinDoc(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "\n\n" + b
}
