package gen

import (
	"fmt"
	"go/format"

	"github.com/soapwire/soapwire/core/wsdl"
)

// formatSource gofmts a file.
func formatSource(src []byte, name string) ([]byte, error) {
	out, err := format.Source(src)
	if err != nil {
		return src, fmt.Errorf("gen: %s: %w", name, err)
	}
	return out, nil
}

// buildPorts makes the clients (one per SOAP endpoint) and the servers (one
// per port type, serving its SOAP bindings).
func (g *generator) buildPorts() {
	m := g.m
	byPT := map[*wsdl.PortType]*portType{}
	served := map[*wsdl.Binding]bool{}
	for _, ep := range g.c.Endpoints() {
		name := ep.Binding.Name.Local
		if ep.Port != nil {
			name = ep.Port.Name
		}
		p := &port{ep: ep}
		p.client = m.names.name(goName(name) + "Client")
		p.ctor = m.names.name("New" + goName(name) + "Client")
		methods := newNamer("Address")
		for _, sig := range ep.Operations {
			op := g.operation(sig, methods, goName(name))
			p.ops = append(p.ops, op)
		}
		g.ports = append(g.ports, p)
		pt := ep.Binding.PortType
		if pt == nil || served[ep.Binding] {
			continue
		}
		served[ep.Binding] = true
		t := byPT[pt]
		if t == nil {
			t = &portType{pt: pt}
			t.iface = m.names.name(goName(pt.Name.Local))
			t.server = m.names.name(goName(pt.Name.Local) + "Server")
			t.ctor = m.names.name("New" + goName(pt.Name.Local) + "Server")
			t.ops = p.ops
			byPT[pt] = t
			g.portTypes = append(g.portTypes, t)
		} else if !sameSignatures(t.ops, p.ops) {
			continue // a binding whose messages make other Go types: its own port's client only
		}
		sp := &port{ep: ep}
		for _, op := range p.ops {
			cp := *op
			cp.serve = m.locals.name("serve" + goName(name) + op.goName)
			sp.ops = append(sp.ops, &cp)
		}
		t.ports = append(t.ports, sp)
	}
}

// sameSignatures reports whether two bindings' operations have the same
// Go signatures (so one interface serves both).
func sameSignatures(a, b []*operation) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].goName != b[i].goName || fmt.Sprint(a[i].params(), a[i].results()) != fmt.Sprint(b[i].params(), b[i].results()) {
			return false
		}
	}
	return true
}

// operation makes the Go side of one operation of an endpoint.
func (g *generator) operation(sig *wsdl.Signature, methods *namer, portName string) *operation {
	m := g.m
	op := &operation{sig: sig}
	op.goName = methods.name(goName(sig.Name))
	op.desc = m.locals.name("op" + portName + goName(sig.Name))
	op.in = m.messageOf(sig, sig.Input, false)
	if !sig.OneWay {
		op.out = m.messageOf(sig, sig.Output, true)
	}
	params := newNamer("ctx", "in", "out", "opts", "err", "headers", "replyHeaders", "parts", "replyParts", "call", "impl", "e", "d", "st", "c", "h")
	if sig.Input != nil {
		for _, hs := range sig.Input.Headers {
			if hs.Element == nil {
				continue
			}
			op.inHdrs = append(op.inHdrs, &header{sig: hs, el: m.elemFuncsOf(hs.Element), param: params.name(lowerName(goName(hs.Part.Name)))})
		}
	}
	if sig.Output != nil && !sig.OneWay {
		for _, hs := range sig.Output.Headers {
			if hs.Element == nil {
				continue
			}
			op.outHdrs = append(op.outHdrs, &header{sig: hs, el: m.elemFuncsOf(hs.Element), param: params.name(lowerName(goName(hs.Part.Name)) + "Out")})
		}
	}
	g.buildMIME(op, params)
	for _, fs := range sig.Faults {
		op.faults = append(op.faults, m.faultOf(fs))
		op.faultSig = append(op.faultSig, fs)
	}
	return op
}

// families makes, for each type with derived types, the list of the types
// its interface holds, and marks each with the interfaces it implements.
func (m *model) families() {
	for _, st := range m.goStructs {
		if st.iface == "" {
			continue
		}
		st.family = []*goStruct{st}
		st.bases = append(st.bases, st)
		for _, d := range m.derived(st.ct) {
			ds := m.structs[d]
			if ds == nil {
				ds = m.structOf(d, "")
			}
			st.family = append(st.family, ds)
			ds.bases = append(ds.bases, st)
		}
	}
}

// breakCycles makes a field a pointer where holding its struct by value
// would make a type contain itself.
func (m *model) breakCycles() {
	state := map[*goStruct]int{} // 1 on the path, 2 done
	var visit func(st *goStruct)
	visit = func(st *goStruct) {
		state[st] = 1
		if st.embed != nil && state[st.embed] == 0 {
			visit(st.embed)
		}
		for _, fd := range st.fields {
			if fd.owner != st || fd.kind != fieldElem || fd.repeated || fd.optional || fd.rep == nil {
				continue
			}
			s := fd.rep.byValue()
			if s == nil {
				continue
			}
			switch state[s] {
			case 1:
				fd.ptr = true
			case 0:
				visit(s)
			}
		}
		state[st] = 2
	}
	for _, st := range m.goStructs {
		if state[st] == 0 {
			visit(st)
		}
	}
	// an embedded base that holds the type embedding it by value (through
	// any path) needs the pointer too: walk again until nothing changes
	for changed := true; changed; {
		changed = false
		for _, st := range m.goStructs {
			for _, fd := range st.fields {
				if fd.owner != st || fd.kind != fieldElem || fd.repeated || fd.optional || fd.ptr || fd.rep == nil {
					continue
				}
				if s := fd.rep.byValue(); s != nil && m.contains(s, st, map[*goStruct]bool{}) {
					fd.ptr = true
					changed = true
				}
			}
		}
	}
}

// contains reports whether a value of s holds a value of t by value.
func (m *model) contains(s, t *goStruct, seen map[*goStruct]bool) bool {
	if s == t {
		return true
	}
	if seen[s] {
		return false
	}
	seen[s] = true
	if s.embed != nil && m.contains(s.embed, t, seen) {
		return true
	}
	for _, fd := range s.fields {
		if fd.owner != s || fd.kind != fieldElem || fd.repeated || fd.optional || fd.ptr || fd.rep == nil {
			continue
		}
		if b := fd.rep.byValue(); b != nil && m.contains(b, t, seen) {
			return true
		}
	}
	return false
}
