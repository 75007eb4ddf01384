package wsdl_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/coretest"
	"github.com/soapwire/soapwire/core/rpc"
	"github.com/soapwire/soapwire/core/wsdl"
	"github.com/soapwire/soapwire/core/xsd"
)

// The forms service: qualified accessors, a type namespace, header parts,
// a required nillable element and a field in a namespace of its own.
type Contact struct {
	Name  string  `xml:"name"`
	Note  *string `xml:"note,nillable"`
	Email *string `xml:"email"`
	Ref   string  `xml:"urn:refs ref"`
}

type Session struct {
	ID string `xml:"id"`
}

type SaveReq struct {
	Session Session  `xml:"Session,header"`
	Contact Contact  `xml:"contact"`
	Tags    []string `xml:"tags"`
}

type SaveResp struct {
	Return Contact `xml:"return"`
	Quota  int32   `xml:"Quota,header"`
}

type LookupReq struct {
	Query string `xml:"Query"`
}

type LookupResp struct {
	Found *Contact `xml:"Found,nillable"`
}

const (
	formsNS = "urn:soapwire:forms"
	typesNS = "urn:soapwire:forms:types"
)

func newFormsService(opts ...rpc.ServiceOption) *rpc.Service {
	s := rpc.NewService(formsNS, "Forms", opts...)
	rpc.Register(s, "save", func(_ context.Context, r *SaveReq) (*SaveResp, error) {
		return &SaveResp{Return: r.Contact}, nil
	})
	rpc.Register(s, "lookup", func(_ context.Context, r *LookupReq) (*LookupResp, error) {
		return &LookupResp{}, nil
	})
	return s
}

// TestWSDLForms: the WSDL of a qualified service says
// elementFormDefault="qualified" and puts the types in their own schema
// when they have their own namespace; header parts are soap:header parts;
// a nillable parameter is required and nillable; a field in another
// namespace refers to a global element of that namespace; bare messages
// are global elements. Pinned by golden files, and read back with
// wsdl.Load, whose signatures say what the service writes.
func TestWSDLForms(t *testing.T) {
	tests := []struct {
		name string
		file string
		opts []rpc.ServiceOption
		has  []string
	}{
		{"qualified", "document-qualified.wsdl",
			[]rpc.ServiceOption{rpc.WithQualified(true), rpc.WithTypeNamespace(typesNS)},
			[]string{`<xsd:schema targetNamespace="urn:soapwire:forms:types" elementFormDefault="qualified"><xsd:import namespace="urn:refs"/>`,
				`<xsd:schema targetNamespace="urn:soapwire:forms" elementFormDefault="qualified"><xsd:import namespace="urn:soapwire:forms:types"/>`,
				`<xsd:element name="note" type="xsd:string" nillable="true"/>`,
				`<xsd:element name="email" type="xsd:string" minOccurs="0" nillable="true"/>`,
				`<xsd:element ref="ns1:ref"/>`,
				`<xsd:schema targetNamespace="urn:refs" elementFormDefault="qualified">`,
				`<wsdl:part name="Session" element="tns:Session"/>`,
				`<soap:body use="literal" parts="parameters"/><soap:header message="tns:saveRequest" part="Session" use="literal" wsdl:required="true"/>`,
				`<soap12:body use="literal" parts="parameters"/><soap12:header message="tns:saveResponse" part="Quota" use="literal" wsdl:required="true"/>`,
				`<xsd:element name="Found" type="ts:Contact" nillable="true"/>`}},
		{"bare", "document-bare.wsdl",
			[]rpc.ServiceOption{rpc.WithStyle(rpc.DocumentBare)},
			[]string{`elementFormDefault="unqualified"`,
				`<xsd:element name="Query" type="xsd:string"/>`,
				`<wsdl:message name="lookupRequest"><wsdl:part name="Query" element="tns:Query"/></wsdl:message>`,
				`<xsd:element name="ref" type="xsd:string"/>`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.name == "bare" { // bare: one body parameter per message
				tt.opts = append(tt.opts, rpc.WithQualified(false))
			}
			var b bytes.Buffer
			svc := bareOrForms(tt.name, tt.opts...)
			require.NoError(t, svc.WSDL(&b, "http://localhost:8080/forms"))
			out := b.String()
			for _, s := range tt.has {
				assert.Contains(t, out, s)
			}
			golden := filepath.Join("testdata", tt.file)
			if *update {
				require.NoError(t, os.WriteFile(golden, b.Bytes(), 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err, "run go test ./core/wsdl -update to create it")
			assert.Equal(t, string(want), out)

			c, err := wsdl.Load(t.Context(), xsd.MapLoader{"forms.wsdl": b.Bytes()}, "forms.wsdl")
			require.NoError(t, err)
			assert.Empty(t, c.Warnings)
			require.Len(t, c.Endpoints(), 2)
			for _, e := range c.Endpoints() {
				checkForms(t, tt.name, e)
			}
		})
	}
}

// bareOrForms returns the forms service, or its bare variant (one body
// parameter per message).
func bareOrForms(name string, opts ...rpc.ServiceOption) *rpc.Service {
	if name != "bare" {
		return newFormsService(opts...)
	}
	s := rpc.NewService(formsNS, "Forms", opts...)
	type saveIn struct {
		Contact Contact `xml:"Contact"`
	}
	type saveOut struct {
		Saved Contact `xml:"Saved"`
	}
	rpc.Register(s, "save", func(_ context.Context, r *saveIn) (*saveOut, error) { return &saveOut{Saved: r.Contact}, nil })
	rpc.Register(s, "lookup", func(_ context.Context, r *LookupReq) (*LookupResp, error) { return &LookupResp{}, nil })
	return s
}

// checkForms checks what the reader makes of the generated WSDL.
func checkForms(t *testing.T, name string, e *wsdl.Endpoint) {
	t.Helper()
	save := op(t, e, "save")
	lookup := op(t, e, "lookup")
	if name == "bare" {
		assert.False(t, save.Input.Wrapped)
		assert.Equal(t, q(formsNS, "Contact"), save.Input.Element)
		assert.Equal(t, q(formsNS, "Saved"), save.Output.Element)
		assert.Equal(t, q(formsNS, "Query"), lookup.Input.Element)
		ct := save.Input.Params[0].Element.Type.(*xsd.ComplexType)
		fields := ct.EffectiveParticle().Group.Particles
		assert.Equal(t, []string{"name", "note", "email", "{urn:refs}ref"}, paramNames(fields), "unqualified fields, ref in its namespace")
		return
	}
	assert.True(t, save.Input.Wrapped)
	assert.Equal(t, []string{"{urn:soapwire:forms}contact", "{urn:soapwire:forms}tags"}, paramNames(save.Input.Params))
	require.Len(t, save.Input.Headers, 1)
	assert.Equal(t, q(formsNS, "Session"), save.Input.Headers[0].Element.Name)
	assert.True(t, save.Input.Headers[0].Required, "a header field that is not a pointer is required")
	require.Len(t, save.Output.Headers, 1)
	assert.Equal(t, q(formsNS, "Quota"), save.Output.Headers[0].Element.Name)
	contact := save.Input.Params[0].Element.Type.(*xsd.ComplexType)
	assert.Equal(t, q(typesNS, "Contact"), contact.Name)
	fields := contact.EffectiveParticle().Group.Particles
	assert.Equal(t, []string{"{urn:soapwire:forms:types}name", "{urn:soapwire:forms:types}note", "{urn:soapwire:forms:types}email", "{urn:refs}ref"},
		paramNames(fields))
	assert.Equal(t, 1, fields[1].Min, "note is required")
	assert.True(t, fields[1].Element.Nillable, "and nillable")
	assert.Equal(t, 0, fields[2].Min, "email is optional")
	found := lookup.Output.Params[0]
	assert.Equal(t, 1, found.Min)
	assert.True(t, found.Element.Nillable)
}

// TestWSDLFormsMatchTheWire: what the qualified service writes is what
// its WSDL describes: every element of a reply is in the namespace the
// reader says.
func TestWSDLFormsMatchTheWire(t *testing.T) {
	svc := newFormsService(rpc.WithQualified(true), rpc.WithTypeNamespace(typesNS))
	note := "n"
	c := rpc.NewClient(core.RoundTripFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		var b bytes.Buffer
		_, err := m.WriteTo(&b)
		require.NoError(t, err)
		in, err := core.ReadMessage(&b, core.Limits{})
		require.NoError(t, err)
		reply, err := svc.ServeSOAP(ctx, in)
		require.NoError(t, err)
		b.Reset()
		_, err = reply.WriteTo(&b)
		require.NoError(t, err)
		for _, want := range []string{`<m:saveResponse xmlns:m="urn:soapwire:forms" xmlns:f="urn:soapwire:forms:types"><m:return><f:name>`,
			`<f:note>n</f:note><p:ref xmlns:p="urn:refs">r</p:ref></m:return>`, `<m:Quota `} {
			assert.Contains(t, b.String(), want)
		}
		return core.ReadMessage(&b, core.Limits{})
	}), formsNS, rpc.WithQualified(true), rpc.WithTypeNamespace(typesNS))
	got, err := rpc.Call[SaveResp](t.Context(), c, "save", SaveReq{Session: Session{ID: "s"}, Contact: Contact{Name: "x", Note: &note, Ref: "r"}})
	require.NoError(t, err)
	assert.Equal(t, "x", got.Return.Name)
}

// TestWSDLFormsErrors: what the writer cannot describe.
func TestWSDLFormsErrors(t *testing.T) {
	str := reflect.TypeFor[string]()
	tests := []struct {
		name string
		def  wsdl.Definition
		want string
	}{
		{"bare rpc", wsdl.Definition{Name: "x", RPC: true, Bare: true}, "bare is a document style"},
		{"rpc part in a namespace", wsdl.Definition{Name: "x", RPC: true, Operations: []wsdl.Operation{{Name: "op",
			Input: []wsdl.Part{{Name: "a", Space: "urn:x", Type: str}}}}}, "cannot be in a namespace"},
		{"header named as the body part", wsdl.Definition{Name: "x", Namespace: "urn:x", Operations: []wsdl.Operation{{Name: "op",
			InputHeaders: []wsdl.Part{{Name: "parameters", Type: str}}}}}, "has the name of a body part"},
		{"one element, two types", wsdl.Definition{Name: "x", Namespace: "urn:x", Bare: true, Operations: []wsdl.Operation{
			{Name: "a", Input: []wsdl.Part{{Name: "E", Type: str}}},
			{Name: "b", Input: []wsdl.Part{{Name: "E", Type: reflect.TypeFor[int32]()}}}}}, "two elements {urn:x}E"},
		{"one wrapper, twice", wsdl.Definition{Name: "x", Namespace: "urn:x", Operations: []wsdl.Operation{
			{Name: "a", InputElement: q("urn:x", "W")}, {Name: "b", InputElement: q("urn:x", "W")}}}, "two elements {urn:x}W"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.def.Write(&strings.Builder{}, "http://x")
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

// TestZeepLoadsFormsWSDL: zeep reads the qualified and the bare WSDL and
// sees their operations as the reader does.
func TestZeepLoadsFormsWSDL(t *testing.T) {
	if err := exec.Command(python, "-c", "import zeep").Run(); err != nil {
		coretest.RequirePeer(t, "zeep", fmt.Errorf("not installed for %s (apt install python3-zeep): %w", python, err))
	}
	for _, tt := range []struct {
		name string
		opts []rpc.ServiceOption
		ops  map[string]string
	}{
		{"qualified", []rpc.ServiceOption{rpc.WithQualified(true), rpc.WithTypeNamespace(typesNS)},
			map[string]string{"save": "contact: ns0:Contact, tags: xsd:string[], _soapheaders={Session: ns0:Session}", "lookup": "Query: xsd:string"}},
		{"bare", []rpc.ServiceOption{rpc.WithStyle(rpc.DocumentBare)},
			map[string]string{"save": "name: xsd:string, note: xsd:string, email: xsd:string, ref: xsd:string", "lookup": "xsd:string"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "forms.wsdl")
			var b bytes.Buffer
			require.NoError(t, bareOrForms(tt.name, tt.opts...).WSDL(&b, "http://127.0.0.1:8080/forms"))
			require.NoError(t, os.WriteFile(file, b.Bytes(), 0o644))
			out, err := exec.CommandContext(t.Context(), python, "testdata/zeep_load.py", file,
				"../rpc/testdata/soap-encoding.xsd", typesNS).Output()
			var stderr []byte
			if ee, ok := err.(*exec.ExitError); ok {
				stderr = ee.Stderr
			}
			require.NoError(t, err, "zeep could not load the WSDL:\n%s", stderr)
			for name, sig := range tt.ops {
				assert.Contains(t, string(out), `"`+name+`": "`+sig+`"`)
			}
		})
	}
}

// TestWriteDocument: a loaded contract is written back as it was read,
// every port at the address given; what is written loads to the same
// endpoints and signatures.
func TestWriteDocument(t *testing.T) {
	c, err := wsdl.Load(t.Context(), xsd.FSLoader(os.DirFS("../../internal/interop/testdata/contracts")), "calc-qualified.wsdl")
	require.NoError(t, err)
	var b bytes.Buffer
	require.NoError(t, c.WriteDocument(&b, "http://127.0.0.1:9/calc?x=1&y=2"))
	out := b.String()
	assert.Equal(t, 2, strings.Count(out, `location="http://127.0.0.1:9/calc?x=1&amp;y=2"`), out)
	assert.NotContains(t, out, "8080")
	back, err := wsdl.Load(t.Context(), xsd.MapLoader{"back.wsdl": b.Bytes()}, "back.wsdl")
	require.NoError(t, err)
	require.Len(t, back.Endpoints(), 2)
	var want, got bytes.Buffer
	require.NoError(t, c.Describe(&want))
	require.NoError(t, back.Describe(&got))
	assert.Equal(t, strings.ReplaceAll(want.String(), "http://127.0.0.1:8080/calc", "http://127.0.0.1:9/calc?x=1&y=2"),
		strings.ReplaceAll(got.String(), "back.wsdl", "calc-qualified.wsdl"))

	b.Reset()
	require.NoError(t, c.WriteDocument(&b, ""))
	assert.Contains(t, b.String(), `location="http://127.0.0.1:8080/calc"`)
}
