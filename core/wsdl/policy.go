package wsdl

import (
	"strings"

	"github.com/soapwire/soapwire/core/internal/xmldoc"
)

// The WS-Policy namespaces read for the MTOM assertion.
const (
	// NamespacePolicy is WS-Policy 1.2's (2004/09), the one WCF, CXF and
	// Metro write.
	NamespacePolicy = "http://schemas.xmlsoap.org/ws/2004/09/policy"
	// NamespacePolicy15 is W3C WS-Policy 1.5's.
	NamespacePolicy15 = "http://www.w3.org/ns/ws-policy"
	// NamespaceMTOMPolicy is the namespace of the MTOM policy assertion,
	// wsoma:OptimizedMimeSerialization.
	NamespaceMTOMPolicy = "http://schemas.xmlsoap.org/ws/2004/09/policy/optimizedmimeserialization"
	// namespaceWSU is WS-Security utility's: wsu:Id names a policy.
	namespaceWSU = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd"
	// namespaceXML is the xml: prefix's (xml:id names a policy).
	namespaceXML = "http://www.w3.org/XML/1998/namespace"
)

// maxPolicyDepth bounds the nesting of policies (and references) walked,
// maxPolicySteps the elements one question about a policy visits (references
// may name a policy many times: a hostile contract must not make the
// walk exponential).
const (
	maxPolicyDepth = 64
	maxPolicySteps = 10000
)

// isPolicyNS reports whether ns is a WS-Policy namespace.
func isPolicyNS(ns string) bool { return ns == NamespacePolicy || ns == NamespacePolicy15 }

// policyDef records a wsp:Policy written in wsdl:definitions under the
// names a wsp:PolicyReference may give it: "#" and its wsu:Id or xml:id,
// and its Name (a URI).
func (dr *docReader) policyDef(n *xmldoc.Node) {
	if !n.Is(NamespacePolicy, "Policy") && !n.Is(NamespacePolicy15, "Policy") {
		return
	}
	if dr.cr.policies == nil {
		dr.cr.policies = map[string]*xmldoc.Node{}
	}
	add := func(key string) {
		if _, dup := dr.cr.policies[key]; !dup {
			dr.cr.policies[key] = n
		}
	}
	for _, id := range []string{attrNS(n, namespaceWSU, "Id"), attrNS(n, namespaceXML, "id"), attrNS(n, "", "Id")} {
		if id != "" {
			add("#" + id)
		}
	}
	if name := attrNS(n, "", "Name"); name != "" {
		add(name)
	}
}

func attrNS(n *xmldoc.Node, space, local string) string {
	v, _ := n.AttrNS(space, local)
	return strings.TrimSpace(v)
}

// attachedPolicy keeps a wsp:Policy or wsp:PolicyReference written in a
// binding or a port (policy attachment, WS-PolicyAttachment §4.1); a
// wsp:PolicyURIs attribute is read as references too.
func attachedPolicy(n *xmldoc.Node, into *[]*xmldoc.Node) bool {
	if isPolicyNS(n.Name.Space) && (n.Name.Local == "Policy" || n.Name.Local == "PolicyReference") {
		*into = append(*into, n)
		return true
	}
	return false
}

// policyURIs returns the references of a wsp:PolicyURIs attribute.
func policyURIs(n *xmldoc.Node) []string {
	var out []string
	for _, ns := range []string{NamespacePolicy, NamespacePolicy15} {
		out = append(out, strings.Fields(attrNS(n, ns, "PolicyURIs"))...)
	}
	return out
}

// resolvePolicies decides, for each binding and port, whether the policy
// attached to it requires MTOM.
func (cr *reader) resolvePolicies() {
	for _, b := range cr.c.Bindings {
		b.MTOM = cr.requiresMTOM(b.policies, b.policyURIs)
	}
	for _, s := range cr.c.Services {
		for _, p := range s.Ports {
			p.MTOM = cr.requiresMTOM(p.policies, p.policyURIs)
		}
	}
}

// requiresMTOM reports whether the policies attached (elements and
// references) require the MTOM assertion: in every alternative, and not
// wsp:Optional.
func (cr *reader) requiresMTOM(nodes []*xmldoc.Node, uris []string) bool {
	for _, n := range nodes {
		steps := 0
		if cr.policyRequires(n, 0, &steps) {
			return true
		}
	}
	for _, u := range uris {
		steps := 0
		if p := cr.policies[strings.TrimSpace(u)]; p != nil && cr.policyRequires(p, 0, &steps) {
			return true
		}
	}
	return false
}

// policyRequires reports whether the policy expression n requires the
// MTOM assertion: an assertion not marked optional; a wsp:Policy or
// wsp:All when one of its children does; a wsp:ExactlyOne when each of its
// alternatives does (an empty one does not); a reference as what it names.
func (cr *reader) policyRequires(n *xmldoc.Node, depth int, steps *int) bool {
	if *steps++; depth > maxPolicyDepth || *steps > maxPolicySteps {
		return false
	}
	if n.Is(NamespaceMTOMPolicy, "OptimizedMimeSerialization") {
		for _, ns := range []string{NamespacePolicy, NamespacePolicy15} {
			if v := attrNS(n, ns, "Optional"); v == "true" || v == "1" {
				return false
			}
		}
		return true
	}
	if !isPolicyNS(n.Name.Space) {
		return false
	}
	switch n.Name.Local {
	case "Policy", "All":
		for _, c := range n.Elements() {
			if cr.policyRequires(c, depth+1, steps) {
				return true
			}
		}
	case "ExactlyOne":
		alts := n.Elements()
		for _, c := range alts {
			if !cr.policyRequires(c, depth+1, steps) {
				return false
			}
		}
		return len(alts) > 0
	case "PolicyReference":
		if p := cr.policies[attrNS(n, "", "URI")]; p != nil {
			return cr.policyRequires(p, depth+1, steps)
		}
	}
	return false
}

// appliedPolicy reports whether n is a wsp:Policy that holds the MTOM
// assertion and no other, or a wsp:PolicyReference to such a policy defined
// before it: what soapwire applies whole (no warning).
func (cr *reader) appliedPolicy(n *xmldoc.Node) bool {
	steps, found := 0, false
	return cr.mtomOnly(n, 0, &steps, &found) && found
}

// mtomOnly reports whether the policy expression n holds no assertion but
// the MTOM one (following references to policies already read); found is
// set when it holds that one.
func (cr *reader) mtomOnly(n *xmldoc.Node, depth int, steps *int, found *bool) bool {
	if *steps++; depth > maxPolicyDepth || *steps > maxPolicySteps {
		return false
	}
	switch {
	case n.Is(NamespaceMTOMPolicy, "OptimizedMimeSerialization"):
		*found = true
		return true
	case !isPolicyNS(n.Name.Space):
		return false
	case n.Name.Local == "PolicyReference":
		p := cr.policies[attrNS(n, "", "URI")]
		return p != nil && cr.mtomOnly(p, depth+1, steps, found)
	case n.Name.Local == "Policy" || n.Name.Local == "All" || n.Name.Local == "ExactlyOne":
		for _, c := range n.Elements() {
			if !cr.mtomOnly(c, depth+1, steps, found) {
				return false
			}
		}
		return true
	}
	return false
}
