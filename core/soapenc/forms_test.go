package soapenc_test

import (
	"bytes"
	"encoding/xml"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core/soapenc"
)

type formAddress struct {
	Street string `soap:"street"`
	City   string `soap:"city"`
}

type formPerson struct {
	Name    string      `soap:"name"`
	Age     int32       `soap:"age"`
	Address formAddress `soap:"address"`
	Tags    []string    `soap:"tags"`
	Nick    *string     `soap:"nickname"`
	Note    *string     `soap:"note,nillable"`
	Other   string      `xml:"urn:other other"`
}

func strp(s string) *string { return &s }

// readStrict parses body XML with a strict Decoder checking forms in ns.
func readStrict(t testing.TB, body string, strict, forms bool, ns string) *soapenc.Element {
	t.Helper()
	d := soapenc.NewDecoder(xml.NewDecoder(strings.NewReader(body)))
	d.Strict, d.CheckForms, d.FieldNamespace = strict, forms, ns
	el, err := d.ReadBody()
	require.NoError(t, err)
	return el
}

// TestFieldNamespace: with FieldNamespace every field element (nested ones
// and literal list items too) is qualified, by the top element's prefix
// when it is in that namespace, else by one declared on the top element;
// a tag's namespace wins; a required nillable nil pointer is written
// xsi:nil. What is written reads back with the forms checked.
func TestFieldNamespace(t *testing.T) {
	const ns = "urn:calc"
	p := formPerson{Name: "Ada", Age: 36, Address: formAddress{City: "London"}, Tags: []string{"a", "b"}, Other: "o"}
	tests := []struct {
		name    string
		enc     soapenc.Encoder
		wrapper xml.Name
		want    []string
	}{
		{"literal, the wrapper's namespace", soapenc.Encoder{Literal: true, FieldNamespace: ns}, xml.Name{Space: ns, Local: "echo"},
			[]string{`<m:echo xmlns:m="urn:calc"><m:person><m:name>Ada</m:name><m:age>36</m:age><m:address><m:street></m:street><m:city>London</m:city></m:address>` +
				`<m:tags>a</m:tags><m:tags>b</m:tags><m:note xsi:nil="true" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"/><p:other xmlns:p="urn:other">o</p:other></m:person></m:echo>`}},
		{"literal, a type namespace", soapenc.Encoder{Literal: true, FieldNamespace: "urn:types"}, xml.Name{Space: ns, Local: "echo"},
			[]string{`<m:echo xmlns:m="urn:calc" xmlns:f="urn:types"><m:person><f:name>Ada</f:name>`, `<f:city>London</f:city></f:address>`, `<f:note xsi:nil="true"`}},
		{"encoded", soapenc.Encoder{FieldNamespace: ns, TypeNamespace: ns}, xml.Name{Space: ns, Local: "echo"},
			[]string{`xmlns:f="urn:calc"`, `<m:person xsi:type="tns:formPerson"><f:name xsi:type="xsd:string">Ada</f:name>`, `<f:note xsi:nil="true"/>`, `<p:other xmlns:p="urn:other" xsi:type="xsd:string">o</p:other>`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			require.NoError(t, tt.enc.EncodeParts(&b, tt.wrapper, soapenc.Part{Name: "person", Space: ns, Value: p}))
			x := b.String()
			namespaceComplete(t, x)
			for _, w := range tt.want {
				assert.Contains(t, x, w)
			}
			kids := readStrict(t, x, true, true, tt.enc.FieldNamespace).Children()
			require.Len(t, kids, 1)
			assert.Equal(t, xml.Name{Space: ns, Local: "person"}, kids[0].Name)
			var back formPerson
			require.NoError(t, kids[0].Decode(&back))
			if tt.enc.Literal {
				back.Address.Street = "" // an empty string reads back as itself
			}
			assert.Equal(t, p, back)
		})
	}
}

// TestFieldNamespaceMultiRefs: an encoded multiRef element, outside the
// wrapper, declares the fields' prefix too.
func TestFieldNamespaceMultiRefs(t *testing.T) {
	shared := &formAddress{City: "Paris"}
	type pair struct {
		A *formAddress `soap:"a"`
		B *formAddress `soap:"b"`
	}
	var b bytes.Buffer
	enc := soapenc.Encoder{MultiRefs: true, FieldNamespace: "urn:f"}
	require.NoError(t, enc.EncodeParts(&b, xml.Name{Space: "urn:svc", Local: "op"}, soapenc.Part{Name: "p", Value: pair{shared, shared}}))
	x := b.String()
	namespaceComplete(t, x)
	assert.Contains(t, x, `<multiRef xmlns:xsi=`)
	assert.Regexp(t, `<multiRef [^>]*xmlns:f="urn:f"[^>]*><f:street`, x)
	var back pair
	require.NoError(t, readStrict(t, x, true, true, "urn:f").Children()[0].Decode(&back))
	assert.Same(t, back.A, back.B)
	assert.Equal(t, "Paris", back.A.City)
}

// TestNillableField: a nillable pointer field is written xsi:nil when nil
// (never left out, unlike a plain pointer) and read back as nil; present,
// it is its value; absent, a strict Decoder refuses it.
func TestNillableField(t *testing.T) {
	for _, lit := range []bool{true, false} {
		enc := soapenc.Encoder{Literal: lit}
		x := encode(t, enc, formPerson{Name: "n"})
		assert.Contains(t, x, `<note xsi:nil="true"`, "literal=%v", lit)
		if lit {
			assert.NotContains(t, x, `<nickname`, "a plain nil pointer is left out")
		}
		var back formPerson
		require.NoError(t, readStrict(t, x, true, false, "").Decode(&back))
		assert.Nil(t, back.Note)

		x = encode(t, enc, formPerson{Name: "n", Note: strp("COBOL")})
		back = formPerson{}
		require.NoError(t, readStrict(t, x, true, false, "").Decode(&back))
		require.NotNil(t, back.Note)
		assert.Equal(t, "COBOL", *back.Note)
	}
	type bad struct {
		N string `soap:"n,nillable"`
	}
	_, err := soapenc.Fields(reflect.TypeFor[bad]())
	assert.Equal(t, soapenc.SubcodeUnsupported, subcode(t, err))
	assert.ErrorContains(t, err, "cannot be nil")
	var b bytes.Buffer
	err = (&soapenc.Encoder{Literal: true}).Encode(&b, xml.Name{Local: "x"}, bad{})
	assert.Equal(t, soapenc.SubcodeUnsupported, subcode(t, err))
}

// TestFieldsForms: Fields says each field's namespace, nillable and
// required, as the Encoder writes them.
func TestFieldsForms(t *testing.T) {
	fields, err := soapenc.Fields(reflect.TypeFor[formPerson]())
	require.NoError(t, err)
	type row struct {
		Name, Space        string
		Nillable, Required bool
	}
	var got []row
	for _, f := range fields {
		got = append(got, row{f.Name, f.Space, f.Nillable, f.Required})
	}
	assert.Equal(t, []row{
		{"name", "", false, true}, {"age", "", false, true}, {"address", "", false, true},
		{"tags", "", false, false}, {"nickname", "", false, false}, {"note", "", true, true},
		{"other", "urn:other", false, true},
	}, got)
}

// TestStrictDecode: each refusal of a strict Decoder, and what the lenient
// one does with the same input.
func TestStrictDecode(t *testing.T) {
	const full = `<name>n</name><age>1</age><address><street>s</street><city>c</city></address><note xsi:nil="true"/><p:other xmlns:p="urn:other">o</p:other>`
	person := func(kids string) string {
		return `<person xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">` + kids + `</person>`
	}
	tests := []struct {
		name    string
		body    string
		forms   bool
		ns      string
		wantErr string // strict; "" = accepted
		lenient string // the lenient Decoder's error; "" = accepted
	}{
		{name: "complete, the optional fields absent", body: person(full)},
		{name: "missing required", body: person(`<age>1</age><address><street>s</street><city>c</city></address><note xsi:nil="true"/><p:other xmlns:p="urn:other">o</p:other>`),
			wantErr: "BadValue at /person: missing element name (field Name of soapenc_test.formPerson)"},
		{name: "missing nested", body: person(`<name>n</name><age>1</age><address><street>s</street></address><note xsi:nil="true"/><p:other xmlns:p="urn:other">o</p:other>`),
			wantErr: "at /person/address: missing element city"},
		{name: "missing nillable", body: person(`<name>n</name><age>1</age><address><street>s</street><city>c</city></address><p:other xmlns:p="urn:other">o</p:other>`),
			wantErr: "missing element note"},
		{name: "nil for a string", body: person(`<name xsi:nil="true"/><age>1</age><address><street>s</street><city>c</city></address><note xsi:nil="true"/><p:other xmlns:p="urn:other">o</p:other>`),
			wantErr: "at /person/name: xsi:nil for a string, which cannot be nil"},
		{name: "nil for a struct", body: person(`<name>n</name><age>1</age><address xsi:nil="true"/><note xsi:nil="true"/><p:other xmlns:p="urn:other">o</p:other>`),
			wantErr: "at /person/address: xsi:nil for a soapenc_test.formAddress"},
		{name: "surplus element", body: person(full + `<extra>x</extra>`),
			wantErr: "at /person/extra: unexpected element extra: soapenc_test.formPerson has no such field"},
		{name: "name in another case", body: person(strings.Replace(full, "<name>n</name>", "<Name>n</Name>", 1)),
			wantErr: "unexpected element Name"},
		{name: "tag namespace missing", body: person(strings.Replace(full, `<p:other xmlns:p="urn:other">o</p:other>`, `<other>o</other>`, 1)),
			wantErr: "at /person/other: the element other is in no namespace, but must be in urn:other (qualified)",
			lenient: "the element other is in no namespace"},
		{name: "tag namespace wrong", body: person(strings.Replace(full, `xmlns:p="urn:other"`, `xmlns:p="urn:else"`, 1)),
			wantErr: "the element other is in the namespace urn:else, but must be in urn:other", lenient: "urn:else"},
		{name: "unqualified where qualified", body: person(full), forms: true, ns: "urn:q",
			wantErr: "at /person/name: the element name is in no namespace, but must be in urn:q (qualified)"},
		{name: "qualified where unqualified", body: person(strings.Replace(full, "<name>n</name>", `<name xmlns="urn:q">n</name>`, 1)), forms: true,
			wantErr: "the element name is in the namespace urn:q, but must be in none (unqualified)"},
		{name: "qualified", forms: true, ns: "urn:q",
			body: `<q:person xmlns:q="urn:q" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><q:name>n</q:name><q:age>1</q:age><q:address><q:street/><q:city>c</q:city></q:address><q:note xsi:nil="true"/><p:other xmlns:p="urn:other">o</p:other></q:person>`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p formPerson
			err := readStrict(t, tt.body, true, tt.forms, tt.ns).Decode(&p)
			if tt.wantErr == "" {
				require.NoError(t, err)
				assert.Equal(t, "n", p.Name)
			} else {
				assert.Equal(t, soapenc.SubcodeBadValue, subcode(t, err))
				assert.ErrorContains(t, err, tt.wantErr)
			}
			err = readStrict(t, tt.body, false, tt.forms, tt.ns).Decode(&formPerson{})
			if tt.lenient == "" && !tt.forms {
				assert.NoError(t, err, "the lenient Decoder")
			} else if tt.lenient != "" {
				assert.ErrorContains(t, err, tt.lenient, "a tag's namespace is always checked")
			}
		})
	}
}
