package xmlvalue_test

import (
	"encoding/xml"
	"math"
	"reflect"
	"time"
)

// The Go types Decode is checked with against encoding/xml: those it reads
// (most) and some it leaves to encoding/xml.

type dItem struct {
	XMLName xml.Name   `xml:"urn:a item"`
	ID      int        `xml:"id,attr"`
	Lang    string     `xml:"http://www.w3.org/XML/1998/namespace lang,attr"`
	U       uint8      `xml:"u,attr"`
	Opt     *int       `xml:"opt,attr"`
	Many    []int16    `xml:"many,attr"`
	Bytes   []byte     `xml:"bytes,attr"`
	Name    string     `xml:"name"`
	Price   float64    `xml:"urn:a price"`
	Cost    float32    `xml:"urn:b price"`
	Tags    []string   `xml:"tag"`
	Flag    *bool      `xml:"flag"`
	Sub     *dSub      `xml:"sub"`
	Subs    []dSub     `xml:"subs"`
	Ptrs    []*dLeaf   `xml:"leaf"`
	Raw     []byte     `xml:"raw"`
	When    uint64     `xml:"when"`
	Big     int64      `xml:"big,omitempty"`
	Text    string     `xml:",chardata"`
	Ignored string     `xml:"-"`
	hidden  string     // unexported: encoding/xml skips it
	Names   []xml.Name `xml:"n"`
}

type dSub struct {
	A     string   `xml:"a,attr"`
	Inner []dSub   `xml:"b"`
	N     xml.Name `xml:"n"`
	C     *string  `xml:",cdata"`
	Num   uint     `xml:"num"`
}

type dLeaf struct {
	XMLName xml.Name
	V       string `xml:",chardata"`
	K       bool   `xml:"k,attr"`
}

// dEcho is a request as handlers decode it.
type dEcho struct {
	Message string `xml:"message"`
}

// dDecls has attribute fields named like namespace declarations.
type dDecls struct {
	Default string `xml:"xmlns,attr"`
	A       string `xml:"a,attr"`
	NSA     string `xml:"xmlns a,attr"`
	S       string `xml:"s,attr"`
}

// dNamed has an XMLName with no namespace and fields named by their types'.
type dNamed struct {
	XMLName xml.Name `xml:"item"`
	Leaf    dLeafNamed
	Ptr     *dLeafB `xml:"leafy"`
	Plain   string
}

type dLeafNamed struct {
	XMLName xml.Name `xml:"urn:a leafy"`
	V       int      `xml:",chardata"`
}

type dLeafB struct {
	XMLName xml.Name `xml:"urn:b leafy"`
	V       *uint    `xml:",chardata"`
}

// Left to encoding/xml.
type (
	dAny struct {
		XMLName xml.Name
		Items   []*dEcho `xml:"item"`
		Rest    []dLeaf  `xml:",any"`
	}
	// (innerxml is not in the comparison: encoding/xml fills it only from
	// the bytes it reads itself, never from a token stream such as a Body)
	dComment struct {
		Com  string `xml:",comment"`
		Text string `xml:",chardata"`
	}
	dPath struct {
		Deep string `xml:"a>b"`
	}
	dTime struct {
		At time.Time `xml:"at"`
	}
	dEmbed struct {
		dEcho
		X int `xml:"x"`
	}
	dIface struct {
		V any `xml:"v"`
	}
	dAttrType struct {
		All xml.Attr `xml:"id,attr"`
	}
	dBadTag struct {
		X string `xml:"x,chardata"`
	}
	dConflict struct {
		A string  `xml:"a"`
		B dNamedA // named "a" by its XMLName: encoding/xml reports the conflict
	}
	dNamedA struct {
		XMLName xml.Name `xml:"a"`
	}
)

// decodeTypes makes a fresh value of each type, and says whether Decode
// reads it.
var decodeTypes = []struct {
	name string
	new  func() any
	fast bool
}{
	{"item", func() any { return new(dItem) }, true},
	{"*item", func() any { return new(*dItem) }, true},
	{"sub", func() any { return new(dSub) }, true},
	{"leaf", func() any { return new(dLeaf) }, true},
	{"echo", func() any { return new(dEcho) }, true},
	{"decls", func() any { return new(dDecls) }, true},
	{"named", func() any { return new(dNamed) }, true},
	{"[]leaf", func() any { return new([]dLeaf) }, true},
	{"string", func() any { return new(string) }, true},
	{"int", func() any { return new(int) }, true},
	{"[]byte", func() any { return new([]byte) }, true},
	{"xml.Name", func() any { return new(xml.Name) }, true},
	{"any", func() any { return new(dAny) }, false},
	{"comment", func() any { return new(dComment) }, false},
	{"path", func() any { return new(dPath) }, false},
	{"time", func() any { return new(dTime) }, false},
	{"embedded", func() any { return new(dEmbed) }, false},
	{"interface", func() any { return new(dIface) }, false},
	{"xml.Attr", func() any { return new(dAttrType) }, false},
	{"bad tag", func() any { return new(dBadTag) }, false},
	{"conflict", func() any { return new(dConflict) }, false},
	{"**item", func() any { var p *dItem; return &p }, true},
	{"***item", func() any { var p *dItem; pp := &p; return &pp }, false},
}

// sameValue is reflect.DeepEqual with NaN equal to itself.
func sameValue(a, b reflect.Value) bool {
	if a.Kind() != b.Kind() || a.Type() != b.Type() {
		return false
	}
	switch a.Kind() {
	case reflect.Float32, reflect.Float64:
		x, y := a.Float(), b.Float()
		return x == y || math.IsNaN(x) && math.IsNaN(y)
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return sameValue(a.Elem(), b.Elem())
	case reflect.Slice:
		if a.IsNil() != b.IsNil() || a.Len() != b.Len() {
			return false
		}
		for i := range a.Len() {
			if !sameValue(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Struct:
		for i := range a.NumField() {
			if !a.Type().Field(i).IsExported() {
				continue
			}
			if !sameValue(a.Field(i), b.Field(i)) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a.Interface(), b.Interface())
}
