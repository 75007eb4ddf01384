package rpc

import (
	"encoding/xml"
	"fmt"
	"reflect"
	"strings"
)

// mode is the direction of a parameter.
type mode uint8

// Parameter modes, set with a tag option: `soap:"x,inout"`.
const (
	modeIn    mode = iota + 1 // request only (the default for request fields)
	modeOut                   // response only (the default for response fields)
	modeInOut                 // in the request and again in the response
)

// param describes one parameter of an operation.
type param struct {
	Name     string       // accessor (element) name
	Space    string       // the xml tag's namespace ("urn:x name"); in a message plan, the element's namespace
	Type     reflect.Type // Go type of the value
	mode     mode
	Optional bool // may be absent: a pointer (unless nillable), a slice or an omitempty field
	Nillable bool // a nil pointer is sent xsi:nil: required and nillable
	Header   bool // a soap:header part: a header block, not a body accessor
	index    []int
	checkNS  bool   // in a message plan: the element must be in Space
	tagSpace string // in a message plan: the xml tag's namespace (Space before it was resolved)
}

// fieldName returns the accessor name of a struct field, the namespace its
// xml tag names and its tag options, or skip for a field that is not a
// parameter.
func fieldName(f reflect.StructField) (name, space string, opts []string, skip bool) {
	if !f.IsExported() || (f.Name == "XMLName" && f.Type == reflect.TypeFor[xml.Name]()) {
		return "", "", nil, true
	}
	if tag, ok := f.Tag.Lookup("soap"); ok {
		parts := strings.Split(tag, ",")
		if parts[0] == "-" && len(parts) == 1 {
			return "", "", nil, true
		}
		name, opts = parts[0], parts[1:]
	}
	if name == "" {
		if tag, ok := f.Tag.Lookup("xml"); ok {
			n, xopts, _ := strings.Cut(tag, ",")
			if n == "-" {
				return "", "", nil, true
			}
			if i := strings.LastIndexByte(n, ' '); i >= 0 {
				space, n = strings.TrimSpace(n[:i]), n[i+1:]
			}
			name = n
			if _, hasSoap := f.Tag.Lookup("soap"); !hasSoap {
				for _, o := range strings.Split(xopts, ",") {
					if o == "omitempty" || o == "nillable" || o == "header" {
						opts = append(opts, o)
					}
				}
			}
		}
	}
	if name == "" {
		name = f.Name
	}
	return name, space, opts, false
}

// params reads the parameters of a request or response struct type.
// def is the mode of a field without a mode option.
func params(t reflect.Type, def mode) ([]param, error) {
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("rpc: %v is not a struct type", t)
	}
	var ps []param
	seen := map[xml.Name]bool{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, space, opts, skip := fieldName(f)
		if skip {
			continue
		}
		p := param{Name: name, Space: space, Type: f.Type, mode: def, index: f.Index}
		k := f.Type.Kind()
		p.Optional = k == reflect.Pointer || (k == reflect.Slice && f.Type.Elem().Kind() != reflect.Uint8)
		for _, o := range opts {
			switch o {
			case "in":
				p.mode = modeIn
			case "out":
				p.mode = modeOut
			case "inout":
				p.mode = modeInOut
			case "omitempty":
				p.Optional = true
			case "nillable":
				p.Nillable = true
			case "header":
				p.Header = true
			case "":
			default:
				return nil, fmt.Errorf("rpc: field %s of %v: unknown tag option %q", f.Name, t, o)
			}
		}
		if p.Nillable {
			if k != reflect.Pointer {
				return nil, fmt.Errorf("rpc: field %s of %v is nillable but %v cannot be nil: use a pointer", f.Name, t, f.Type)
			}
			p.Optional = false
		}
		key := xml.Name{Space: space, Local: name}
		if seen[key] {
			return nil, fmt.Errorf("rpc: %v: two parameters named %q", t, name)
		}
		seen[key] = true
		ps = append(ps, p)
	}
	return ps, nil
}

// signature is the parameter plan of an operation.
type signature struct {
	req, resp reflect.Type
	in        []param // request accessors in Req field order (in and inout)
	out       []param // response accessors: the return value first, then out and inout in Resp field order
	inH       []param // request header parts (in and inout), in field order
	outH      []param // response header parts (out and inout), in field order
	hasReturn bool    // out[0] is a return value (an out field)
}

func newSignature(req, resp reflect.Type) (*signature, error) {
	in, err := params(req, modeIn)
	if err != nil {
		return nil, err
	}
	out, err := params(resp, modeOut)
	if err != nil {
		return nil, err
	}
	s := &signature{req: req, resp: resp}
	inouts := map[string]param{}
	for _, p := range in {
		switch p.mode {
		case modeOut:
			return nil, fmt.Errorf("rpc: %v: request field %q is marked out", req, p.Name)
		case modeInOut:
			inouts[p.Name] = p
		}
		if p.Header {
			s.inH = append(s.inH, p)
		} else {
			s.in = append(s.in, p)
		}
	}
	ret := -1
	var body []param
	for _, p := range out {
		switch p.mode {
		case modeIn:
			return nil, fmt.Errorf("rpc: %v: response field %q is marked in", resp, p.Name)
		case modeInOut:
			q, ok := inouts[p.Name]
			if !ok {
				return nil, fmt.Errorf("rpc: response field %q is inout but %v has no inout field of that name", p.Name, req)
			}
			if q.Type != p.Type {
				return nil, fmt.Errorf("rpc: inout parameter %q is %v in the request and %v in the response", p.Name, q.Type, p.Type)
			}
			if q.Header != p.Header || q.Space != p.Space {
				return nil, fmt.Errorf("rpc: inout parameter %q is not the same header or element in %v and %v", p.Name, req, resp)
			}
			delete(inouts, p.Name)
		case modeOut:
			if ret < 0 && !p.Header {
				ret = len(body)
			}
		}
		if p.Header {
			s.outH = append(s.outH, p)
		} else {
			body = append(body, p)
		}
	}
	for name := range inouts {
		return nil, fmt.Errorf("rpc: request field %q is inout but %v has no inout field of that name", name, resp)
	}
	if ret >= 0 {
		s.hasReturn = true
		s.out = append(s.out, body[ret])
		s.out = append(s.out, body[:ret]...)
		s.out = append(s.out, body[ret+1:]...)
	} else {
		s.out = body
	}
	return s, nil
}
