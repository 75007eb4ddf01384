package gen

import (
	"encoding/xml"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/wsdl"
	"github.com/soapwire/soapwire/core/xsd"
)

// msgKind is how a message's values are written in the Body.
type msgKind uint8

const (
	msgElement msgKind = iota // one element: a wrapper, or a bare message's one part
	msgRPC                    // an rpc wrapper of accessors
	msgParts                  // a bare message of several parts (or none): its elements in a row
)

// message is one direction of an operation as Go sees it.
type message struct {
	kind    msgKind
	el      *elemFuncs // msgElement: the element's functions
	st      *goStruct  // msgRPC, msgParts: the struct of the parts
	wrapper xml.Name   // msgRPC: the wrapper element
	params  []*xsd.Particle
	write   string // the function writing it: write<X>(e, v)
	read    string // the function reading it: read<X>(d) (v, error)
	goType  string // the Go type of its value in signatures
	rpc12   bool   // an rpc reply of SOAP 1.2: it may start with rpc:result
}

// elemFuncs are the functions that write and read a global element (a
// part, a header, a fault's detail).
type elemFuncs struct {
	el     *xsd.Element
	rep    *rep
	goType string // the Go type of its value: *T, or an interface or RawXML
	write  string
	read   string
}

// header is a soap:header part of an operation.
type header struct {
	sig   *wsdl.HeaderSignature
	el    *elemFuncs
	param string // the argument's (or result's) name
}

// fault is a declared fault's typed error.
type fault struct {
	el    *elemFuncs
	name  string // the error type
	read  string // the function reading its detail
	first *wsdl.FaultSignature
	// wrapper, for a type part, is the element around its accessor: the
	// fault message's name (see faultOf).
	wrapper xml.Name
}

// operation is one operation of one endpoint.
type operation struct {
	sig      *wsdl.Signature
	goName   string
	in, out  *message
	inHdrs   []*header
	outHdrs  []*header
	inParts  []*mimePart // MIME parts (SwA): arguments after the headers
	outParts []*mimePart // results after the reply's headers
	faults   []*fault
	faultSig []*wsdl.FaultSignature
	desc     string // the StubOperation variable
	serve    string // the function serving it (a server's copy)
}

// elemFuncs returns the functions of a global element, making them once.
func (m *model) elemFuncsOf(el *xsd.Element) *elemFuncs {
	if ef := m.elemFns[el]; ef != nil {
		return ef
	}
	r := m.elementRep(el)
	ef := &elemFuncs{el: el, rep: r}
	switch r.kind {
	case repIface, repRaw:
		ef.goType = r.goType
	default:
		ef.goType = "*" + r.goType
	}
	base := goName(el.Name.Local)
	ef.write = m.locals.name("write" + base)
	ef.read = m.locals.name("read" + base)
	m.elemFns[el] = ef
	m.elemList = append(m.elemList, ef)
	return ef
}

// messageOf returns the Go side of a message signature of sig.
func (m *model) messageOf(sig *wsdl.Signature, ms *wsdl.MessageSignature, output bool) *message {
	if ms == nil {
		return nil
	}
	msg := &message{}
	name := sig.Name
	if ms.Message != nil {
		name = ms.Message.Name.Local
	} else if output {
		name += "Response"
	}
	switch {
	case sig.Style == wsdl.RPC:
		msg.kind = msgRPC
		msg.wrapper = ms.Element
		msg.params = ms.Params
		msg.rpc12 = output && sig.Version == core.V12
	case ms.Wrapped || len(ms.Params) == 1 && ms.Params[0].Element != nil && ms.Element != (xml.Name{}):
		msg.kind = msgElement
		el := m.set.Element(ms.Element)
		if el == nil && len(ms.Params) == 1 {
			el = ms.Params[0].Element
		}
		if ms.Wrapped && len(ms.Parts) == 1 && ms.Parts[0].Element != nil {
			el = ms.Parts[0].Element
		}
		if el == nil {
			msg.kind = msgParts
			msg.params = ms.Params
			break
		}
		msg.el = m.elemFuncsOf(el)
		msg.goType = msg.el.goType
		return m.finishMessage(msg, name)
	default:
		msg.kind = msgParts
		msg.params = ms.Params
	}
	key := msgKey{msg: ms.Message, kind: msg.kind}
	if st := m.msgStructs[key]; st != nil {
		msg.st = st
	} else {
		wrapper := xsd.WrapperElement(xml.Name{Local: name}, msg.params)
		ct := wrapper.Type.(*xsd.ComplexType)
		goName := m.names.name(goName(name))
		m.typeNames[ct] = goName
		st := m.structOf(ct, goName)
		dir := "input"
		if output {
			dir = "output"
		}
		st.message = "the " + dir + " of the operation " + sig.Name
		if ms.Message != nil {
			st.message = "the message " + qname(ms.Message.Name) + " (the " + dir + " of " + sig.Name + ")"
		}
		m.msgStructs[key] = st
		msg.st = st
	}
	msg.goType = "*" + msg.st.name
	return m.finishMessage(msg, name)
}

// msgKey identifies a message struct: a message, written one way.
type msgKey struct {
	msg  *wsdl.Message
	kind msgKind
}

// finishMessage names the functions that write and read a message.
func (m *model) finishMessage(msg *message, name string) *message {
	key := msgFnKey{kind: msg.kind, wrapper: msg.wrapper, st: msg.st, rpc12: msg.rpc12}
	if msg.el != nil {
		key.el = msg.el.el
	}
	if fns, ok := m.msgFns[key]; ok {
		msg.write, msg.read = fns[0], fns[1]
		return msg
	}
	base := goName(name)
	msg.write = m.locals.name("writeMsg" + base)
	msg.read = m.locals.name("readMsg" + base)
	m.msgFns[key] = [2]string{msg.write, msg.read}
	m.messages = append(m.messages, msg)
	return msg
}

// msgFnKey identifies the functions of a message.
type msgFnKey struct {
	kind    msgKind
	el      *xsd.Element
	wrapper xml.Name
	st      *goStruct
	rpc12   bool
}

// faultOf returns the typed error of a fault signature's detail element.
//
// A fault message whose part has a type, not an element (rpc contracts,
// rpc/encoded above all), has its detail written as gSOAP writes and
// reads it: the part's accessor, unqualified as rpc accessors are, inside
// an element named as the fault's message in the soap:fault namespace
// (<tns:CalcFault><fault>...</fault></tns:CalcFault>); the error type is
// named after the message, the part's name being as generic as "fault".
// zeep, suds and node-soap read that form as they read gSOAP's; clients
// accept it and the bare accessor (wsdl.Stub).
func (m *model) faultOf(fs *wsdl.FaultSignature) *fault {
	if fs.Element == nil {
		return nil
	}
	var part *wsdl.MessagePart
	if fs.Message != nil && len(fs.Message.Parts) == 1 && fs.Message.Parts[0].Element == nil {
		part = fs.Message.Parts[0]
	}
	if f := m.faults[fs.Element]; f != nil && part == nil {
		return f
	}
	if f := m.faultParts[part]; f != nil && part != nil {
		return f
	}
	el, base := fs.Element, goName(fs.Element.Name.Local)
	var wrapper xml.Name
	if part != nil {
		cp := *fs.Element
		cp.Name.Space = ""
		el = &cp
		ns := fs.Namespace
		if ns == "" {
			ns = fs.Message.Name.Space
		}
		wrapper = xml.Name{Space: ns, Local: fs.Message.Name.Local}
		base = goName(fs.Message.Name.Local)
	}
	ef := m.elemFuncsOf(el)
	f := &fault{el: ef, first: fs, wrapper: wrapper}
	f.name = m.names.name(base + "Error")
	f.read = m.locals.name("readFault" + base)
	if part != nil {
		m.faultParts[part] = f
	} else {
		m.faults[fs.Element] = f
	}
	m.faultList = append(m.faultList, f)
	return f
}
