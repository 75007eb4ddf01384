package rpc_test

import (
	"bytes"
	"context"
	"encoding/xml"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/rpc"
)

const calcNS = "urn:soapwire:calc"

// The calculator of the form tests: the shapes of the interop contracts
// (internal/interop), code-first.
type Address struct {
	Street string `xml:"street"`
	City   string `xml:"city"`
}

type Person struct {
	Name     string   `xml:"name"`
	Age      int32    `xml:"age"`
	Address  Address  `xml:"address"`
	Tags     []string `xml:"tags"`
	Nickname *string  `xml:"nickname"`
	Note     *string  `xml:"note,nillable"`
}

type AddIn struct {
	A int32 `xml:"a"`
	B int32 `xml:"b"`
}

type AddOut struct {
	Result int32 `xml:"result"`
}

type PersonIn struct {
	Person Person `xml:"person"`
}

type PersonOut struct {
	Return Person `xml:"return"`
}

func strPtr(s string) *string { return &s }

func newCalc(opts ...rpc.ServiceOption) *rpc.Service {
	s := rpc.NewService(calcNS, "Calc", opts...)
	rpc.Register(s, "add", func(_ context.Context, r *AddIn) (*AddOut, error) {
		return &AddOut{Result: r.A + r.B}, nil
	})
	rpc.Register(s, "echoStruct", func(_ context.Context, r *PersonIn) (*PersonOut, error) {
		return &PersonOut{Return: r.Person}, nil
	})
	return s
}

// recording wraps a RoundTripper and keeps the last request and reply as
// text.
type recording struct {
	rt         core.RoundTripper
	req, reply string
}

func (r *recording) RoundTrip(ctx context.Context, m *core.Message) (*core.Message, error) {
	var b bytes.Buffer
	_, err := m.WriteTo(&b)
	if err != nil {
		return nil, err
	}
	r.req = b.String()
	back, err := core.ReadMessage(strings.NewReader(r.req), core.Limits{})
	if err != nil {
		return nil, err
	}
	reply, err := r.rt.RoundTrip(ctx, back)
	if err != nil || reply == nil {
		return reply, err
	}
	b.Reset()
	if _, err := reply.WriteTo(&b); err != nil {
		return nil, err
	}
	r.reply = b.String()
	return core.ReadMessage(strings.NewReader(r.reply), core.Limits{})
}

// TestQualifiedRoundTrip: with WithQualified a client and a service write
// every accessor qualified (the wrapper's children in the service
// namespace, struct fields and list items in the type namespace; rpc part
// accessors stay unqualified) and read each other's messages, in every
// style and version.
func TestQualifiedRoundTrip(t *testing.T) {
	ada := Person{Name: "Ada", Age: 36, Address: Address{Street: "s", City: "London"}, Tags: []string{"a", "b"}}
	for _, style := range styles {
		for _, v := range versions {
			t.Run(style.String()+"/"+v.String(), func(t *testing.T) {
				opts := []rpc.Option{rpc.WithStyle(style), rpc.WithQualified(true)}
				rec := &recording{rt: loopback(t, newCalc(serviceOpts(opts)...))}
				c := rpc.NewClient(rec, calcNS, append(clientOpts(opts), rpc.WithVersion(v))...)
				sum, err := rpc.Call[AddOut](t.Context(), c, "add", AddIn{A: 40, B: 2})
				require.NoError(t, err)
				assert.Equal(t, int32(42), sum.Result)
				if style == rpc.DocumentLiteral {
					assert.Contains(t, rec.req, `<m:add xmlns:m="urn:soapwire:calc"><m:a>40</m:a><m:b>2</m:b></m:add>`)
					assert.Contains(t, rec.reply, `<m:result>42</m:result>`)
				} else {
					assert.Regexp(t, `<a[ >]`, rec.req, "rpc accessors are unqualified")
				}

				got, err := rpc.Call[PersonOut](t.Context(), c, "echoStruct", PersonIn{Person: ada})
				require.NoError(t, err)
				assert.Equal(t, ada, got.Return)
				assert.Regexp(t, `<(m|f):city[^>]*>London</(m|f):city>`, rec.req, "nested fields qualified")
				assert.Regexp(t, `<(m|f):note [^>]*xsi:nil="true"`, rec.reply, "a nil nillable field is written nil")
			})
		}
	}
}

func serviceOpts(opts []rpc.Option) []rpc.ServiceOption {
	out := make([]rpc.ServiceOption, len(opts))
	for i, o := range opts {
		out[i] = o
	}
	return out
}

func clientOpts(opts []rpc.Option) []rpc.ClientOption {
	out := make([]rpc.ClientOption, len(opts))
	for i, o := range opts {
		out[i] = o
	}
	return out
}

// TestQualifiedRefusals: a qualified service refuses what the lenient one
// reads (BadArguments naming the element), and the lenient one reads both
// forms.
func TestQualifiedRefusals(t *testing.T) {
	op := func(local, children string) string {
		return `<c:` + local + ` xmlns:c="` + calcNS + `">` + children + `</c:` + local + `>`
	}
	const person = `<c:name>n</c:name><c:age>1</c:age><c:address><c:street/><c:city>c</c:city></c:address><c:note xsi:nil="true" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"/>`
	tests := []struct {
		name      string
		body      string
		qualified string // the qualified service's fault reason; "" = accepted
		lenient   string // the lenient one's
	}{
		{"qualified", op("add", `<c:a>40</c:a><c:b>2</c:b>`), "", ""},
		{"unqualified", op("add", `<a>40</a><b>2</b>`), "argument a is in no namespace, but must be in urn:soapwire:calc (qualified)", ""},
		{"default namespace undeclared", op("add", `<a xmlns="">40</a><c:b>2</c:b>`), "argument a is in no namespace", ""},
		{"other namespace", op("add", `<x:a xmlns:x="urn:x">40</x:a><c:b>2</c:b>`), "argument a is in the namespace urn:x, but must be in urn:soapwire:calc", ""},
		{"out of order", op("add", `<c:b>2</c:b><c:a>40</c:a>`), "argument a out of order in add", ""},
		{"positional", op("add", `<c:arg0>40</c:arg0><c:arg1>2</c:arg1>`), "unexpected element {urn:soapwire:calc}arg0 in add", ""},
		{"case folded", op("add", `<c:A>40</c:A><c:b>2</c:b>`), "unexpected element {urn:soapwire:calc}A", ""},
		{"missing", op("add", `<c:a>40</c:a>`), "missing argument {urn:soapwire:calc}b", "missing argument b"},
		{"nil int", op("add", `<c:a xsi:nil="true" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"/><c:b>2</c:b>`), "xsi:nil for a int32", "xsi:nil for a int32"},
		{"struct field unqualified", op("echoStruct", `<c:person>`+strings.Replace(person, "<c:name>n</c:name>", "<name>n</name>", 1)+`</c:person>`),
			"the element name is in no namespace, but must be in urn:soapwire:calc (qualified)", ""},
		{"struct field missing", op("echoStruct", `<c:person>`+strings.Replace(person, "<c:age>1</c:age>", "", 1)+`</c:person>`),
			"missing element age (field Age of rpc_test.Person)", "missing element age"},
		{"nillable missing", op("echoStruct", `<c:person>`+person[:strings.Index(person, "<c:note")]+`</c:person>`),
			"missing element note", "missing element note"},
		{"surplus field", op("echoStruct", `<c:person>`+person+`<c:shoe>42</c:shoe></c:person>`), "unexpected element {urn:soapwire:calc}shoe", "unexpected element {urn:soapwire:calc}shoe"},
	}
	for _, v := range versions {
		for _, tt := range tests {
			t.Run(v.String()+"/"+tt.name, func(t *testing.T) {
				for _, run := range []struct {
					svc  *rpc.Service
					want string
				}{{newCalc(rpc.WithQualified(true)), tt.qualified}, {newCalc(), tt.lenient}} {
					out, f := serveRaw(t, run.svc, envelope(v, tt.body))
					if run.want == "" {
						require.Nil(t, f, "fault: %v", f)
						assert.NotContains(t, out, "Fault")
						continue
					}
					require.NotNil(t, f, "reply: %s", out)
					assert.Equal(t, core.CodeSender, f.Code)
					assert.True(t, f.HasSubcode(badArguments), "subcodes %v", f.Subcodes)
					assert.Contains(t, f.Reason, run.want)
				}
			})
		}
	}
}

// TestQualifiedClientRefusals: a qualified client refuses a reply in the
// wrong form, and every client refuses a reply that lacks a required
// element, naming it, instead of returning a zero.
func TestQualifiedClientRefusals(t *testing.T) {
	tests := []struct {
		name      string
		reply     string
		qualified string // the qualified client's error; "" = 42 read
		lenient   string
	}{
		{"qualified", `<c:addResponse xmlns:c="` + calcNS + `"><c:result>42</c:result></c:addResponse>`, "", ""},
		{"unqualified", `<c:addResponse xmlns:c="` + calcNS + `"><result>42</result></c:addResponse>`,
			"argument result is in no namespace, but must be in urn:soapwire:calc (qualified)", ""},
		{"missing", `<c:addResponse xmlns:c="` + calcNS + `"/>`, "missing argument {urn:soapwire:calc}result", "missing argument result"},
		{"surplus", `<c:addResponse xmlns:c="` + calcNS + `"><c:result>42</c:result><c:more>1</c:more></c:addResponse>`,
			"unexpected element {urn:soapwire:calc}more", "do not match"},
		{"empty body", ``, "empty reply body", "empty reply body"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rt := core.RoundTripFunc(func(context.Context, *core.Message) (*core.Message, error) {
				return core.ReadMessage(strings.NewReader(envelope(core.V11, tt.reply)), core.Limits{})
			})
			for _, run := range []struct {
				c    *rpc.Client
				want string
			}{{rpc.NewClient(rt, calcNS, rpc.WithQualified(true)), tt.qualified}, {rpc.NewClient(rt, calcNS), tt.lenient}} {
				got, err := rpc.Call[AddOut](t.Context(), run.c, "add", AddIn{A: 40, B: 2})
				if run.want == "" {
					require.NoError(t, err)
					assert.Equal(t, int32(42), got.Result)
					continue
				}
				require.Error(t, err)
				assert.Nil(t, got)
				assert.Contains(t, err.Error(), run.want)
			}
		})
	}
}

// Tagged has parameters and fields in namespaces of their own.
type TaggedIn struct {
	Code  string    `xml:"urn:codes code"`
	Inner TaggedSub `xml:"inner"`
}

type TaggedSub struct {
	Ref string `xml:"urn:refs ref"`
}

type TaggedOut struct {
	Code  string    `xml:"urn:codes code"`
	Inner TaggedSub `xml:"inner"`
}

// TestTagNamespaces: an xml tag's namespace is written, for a parameter and
// for a struct field, and checked when read, in either mode.
func TestTagNamespaces(t *testing.T) {
	newSvc := func(opts ...rpc.ServiceOption) *rpc.Service {
		s := rpc.NewService(calcNS, "Tagged", opts...)
		rpc.Register(s, "tag", func(_ context.Context, r *TaggedIn) (*TaggedOut, error) {
			return &TaggedOut{Code: r.Code, Inner: r.Inner}, nil
		})
		return s
	}
	for _, qualified := range []bool{false, true} {
		rec := &recording{rt: loopback(t, newSvc(rpc.WithQualified(qualified)))}
		c := rpc.NewClient(rec, calcNS, rpc.WithQualified(qualified))
		got, err := rpc.Call[TaggedOut](t.Context(), c, "tag", TaggedIn{Code: "x", Inner: TaggedSub{Ref: "r"}})
		require.NoError(t, err)
		assert.Equal(t, TaggedOut{Code: "x", Inner: TaggedSub{Ref: "r"}}, *got)
		assert.Contains(t, rec.req, `<p:code xmlns:p="urn:codes">x</p:code>`)
		assert.Contains(t, rec.req, `<p:ref xmlns:p="urn:refs">r</p:ref>`)

		for body, want := range map[string]string{
			`<c:tag xmlns:c="` + calcNS + `"><code>x</code><inner><p:ref xmlns:p="urn:refs">r</p:ref></inner></c:tag>`:  "argument code is in no namespace, but must be in urn:codes",
			`<c:tag xmlns:c="` + calcNS + `"><p:code xmlns:p="urn:codes">x</p:code><inner><ref>r</ref></inner></c:tag>`: "the element ref is in no namespace, but must be in urn:refs",
		} {
			if qualified {
				body = strings.ReplaceAll(body, "<inner>", "<c:inner>")
				body = strings.ReplaceAll(body, "</inner>", "</c:inner>")
			}
			_, f := serveRaw(t, newSvc(rpc.WithQualified(qualified)), envelope(core.V11, body))
			require.NotNil(t, f, "qualified=%v", qualified)
			assert.Contains(t, f.Reason, want)
		}
	}
}

// TestNillableParameter: a nillable pointer parameter is required and
// nillable: nil goes out as xsi:nil and comes back as nil, a value as
// itself, and a request without it is refused naming it; a plain pointer
// stays optional.
func TestNillableParameter(t *testing.T) {
	type in struct {
		Note *string `xml:"note,nillable"`
		Opt  *string `xml:"opt"`
	}
	type out struct {
		Note *string `xml:"note,nillable"`
	}
	for _, style := range styles {
		t.Run(style.String(), func(t *testing.T) {
			svc := rpc.NewService(calcNS, "Nil", rpc.WithStyle(style))
			rpc.Register(svc, "echoNote", func(_ context.Context, r *in) (*out, error) {
				return &out{Note: r.Note}, nil
			})
			rec := &recording{rt: loopback(t, svc)}
			c := rpc.NewClient(rec, calcNS, rpc.WithStyle(style))
			got, err := rpc.Call[out](t.Context(), c, "echoNote", in{})
			require.NoError(t, err)
			assert.Nil(t, got.Note)
			assert.Regexp(t, `<note[^>]*xsi:nil="true"`, rec.req)
			assert.NotContains(t, rec.req, "<opt")
			assert.Regexp(t, `<note[^>]*xsi:nil="true"`, rec.reply)

			got, err = rpc.Call[out](t.Context(), c, "echoNote", in{Note: strPtr("COBOL")})
			require.NoError(t, err)
			require.NotNil(t, got.Note)
			assert.Equal(t, "COBOL", *got.Note)

			_, f := serveRaw(t, svc, envelope(core.V12, `<c:echoNote xmlns:c="`+calcNS+`"><opt>x</opt></c:echoNote>`))
			require.NotNil(t, f)
			assert.True(t, f.HasSubcode(badArguments))
			assert.Contains(t, f.Reason, "missing argument note")
		})
	}
	assert.PanicsWithValue(t, "rpc: register bad: rpc: field Note of struct { Note string \"xml:\\\"note,nillable\\\"\" } is nillable but string cannot be nil: use a pointer", func() {
		rpc.Register(rpc.NewService(calcNS, "x"), "bad", func(context.Context, *struct {
			Note string `xml:"note,nillable"`
		}) (*out, error) {
			return nil, nil
		})
	})
}

// TestStringParameterNil: a string parameter given xsi:nil is refused (it
// was read as ""), naming it.
func TestStringParameterNil(t *testing.T) {
	for _, style := range styles {
		_, f := serveRaw(t, newEchoService(rpc.WithStyle(style)), envelope(core.V11,
			`<m:echoString xmlns:m="`+echoNS+`"><s xsi:nil="true" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"/></m:echoString>`))
		require.NotNil(t, f, style.String())
		assert.True(t, f.HasSubcode(badArguments))
		assert.Contains(t, f.Reason, "/echoString/s: xsi:nil for a string")
	}
}

// TestElementNames: WithRequestElement and WithResponseElement rename the
// wrappers on both sides; the service routes on the request element, the
// client checks the response element.
func TestElementNames(t *testing.T) {
	req := xml.Name{Space: "urn:other", Local: "Sum"}
	resp := xml.Name{Space: calcNS, Local: "SumResult"}
	svc := rpc.NewService(calcNS, "Calc")
	rpc.Register(svc, "add", func(_ context.Context, r *AddIn) (*AddOut, error) {
		return &AddOut{Result: r.A + r.B}, nil
	}, rpc.WithRequestElement(req), rpc.WithResponseElement(resp), rpc.WithAction("urn:add"))
	rec := &recording{rt: loopback(t, svc)}
	c := rpc.NewClient(rec, calcNS, rpc.WithVersion(core.V12))
	got, err := rpc.Call[AddOut](t.Context(), c, "add", AddIn{A: 1, B: 2}, rpc.WithRequestElement(req), rpc.WithResponseElement(resp))
	require.NoError(t, err)
	assert.Equal(t, int32(3), got.Result)
	assert.Contains(t, rec.req, `<m:Sum xmlns:m="urn:other">`)
	assert.Contains(t, rec.reply, `<m:SumResult xmlns:m="urn:soapwire:calc">`)

	// routing is by the element: the operation's name is no element
	_, err = rpc.Call[AddOut](t.Context(), c, "add", AddIn{A: 1, B: 2})
	var f *core.Fault
	require.ErrorAs(t, err, &f)
	assert.True(t, f.HasSubcode(procedureNotPresent), "%v", f)

	// a reply of another name is refused when the name is given
	_, err = rpc.Call[AddOut](t.Context(), c, "add", AddIn{A: 1, B: 2}, rpc.WithRequestElement(req),
		rpc.WithResponseElement(xml.Name{Space: calcNS, Local: "addResponse"}))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the reply holds {urn:soapwire:calc}SumResult, not {urn:soapwire:calc}addResponse")

	assert.PanicsWithValue(t, "rpc: register plus: its request element {urn:other}Sum is add's", func() {
		rpc.Register(svc, "plus", func(_ context.Context, r *AddIn) (*AddOut, error) { return nil, nil }, rpc.WithRequestElement(req))
	})
}

// TestTypeNamespace: WithTypeNamespace names the namespace of encoded
// xsi:types and of qualified struct fields.
func TestTypeNamespace(t *testing.T) {
	const types = "urn:soapwire:types"
	for _, style := range []rpc.Style{rpc.DocumentLiteral, rpc.RPCEncoded} {
		opts := []rpc.Option{rpc.WithStyle(style), rpc.WithQualified(true), rpc.WithTypeNamespace(types)}
		rec := &recording{rt: loopback(t, newCalc(serviceOpts(opts)...))}
		c := rpc.NewClient(rec, calcNS, clientOpts(opts)...)
		p := Person{Name: "n", Address: Address{City: "c"}}
		got, err := rpc.Call[PersonOut](t.Context(), c, "echoStruct", PersonIn{Person: p})
		require.NoError(t, err)
		assert.Equal(t, p, got.Return)
		assert.Contains(t, rec.req, `xmlns:f="urn:soapwire:types"`)
		assert.Contains(t, rec.req, `<f:city`)
		if style == rpc.RPCEncoded {
			assert.Contains(t, rec.req, `xmlns:tns="urn:soapwire:types"`)
			assert.Contains(t, rec.req, `xsi:type="tns:Person"`)
		}
		// a field in the service namespace is not in the type namespace
		_, f := serveRaw(t, newCalc(serviceOpts(opts)...), strings.Replace(rec.req[strings.Index(rec.req, "<"):], `xmlns:f="urn:soapwire:types"`, `xmlns:f="urn:soapwire:calc"`, 1))
		require.NotNil(t, f, style.String())
		assert.Contains(t, f.Reason, "must be in urn:soapwire:types")
	}
}

// The bare calculator: each message's Body holds one element that is not
// named after the operation.
type BareText struct {
	Text string `xml:"EchoText"`
}

type BareEchoed struct {
	Text string `xml:"EchoedText"`
}

type BareAdd struct {
	Operands AddIn `xml:"Operands"`
}

type BareSum struct {
	Sum int32 `xml:"Sum"`
}

type BarePerson struct {
	Person Person `xml:"Traveller"`
}

type BareReturned struct {
	Person Person `xml:"Returned"`
}

func newBareCalc(opts ...rpc.ServiceOption) *rpc.Service {
	s := rpc.NewService(calcNS, "CalcBare", append([]rpc.ServiceOption{rpc.WithStyle(rpc.DocumentBare)}, opts...)...)
	rpc.Register(s, "echoString", func(_ context.Context, r *BareText) (*BareEchoed, error) {
		return &BareEchoed{Text: r.Text}, nil
	})
	rpc.Register(s, "add", func(_ context.Context, r *BareAdd) (*BareSum, error) {
		return &BareSum{Sum: r.Operands.A + r.Operands.B}, nil
	})
	rpc.Register(s, "echoStruct", func(_ context.Context, r *BarePerson) (*BareReturned, error) {
		return &BareReturned{Person: r.Person}, nil
	})
	return s
}

// TestBare: in document/literal bare the Body holds the parameter's
// element itself; the service routes on it; qualified or not, a client
// and a service agree in both versions.
func TestBare(t *testing.T) {
	for _, qualified := range []bool{false, true} {
		for _, v := range versions {
			rec := &recording{rt: loopback(t, newBareCalc(rpc.WithQualified(qualified)))}
			c := rpc.NewClient(rec, calcNS, rpc.WithStyle(rpc.DocumentBare), rpc.WithQualified(qualified), rpc.WithVersion(v))
			s, err := rpc.Call[BareEchoed](t.Context(), c, "echoString", BareText{Text: "héllo"})
			require.NoError(t, err)
			assert.Equal(t, "héllo", s.Text)
			assert.Contains(t, rec.req, `Body><m:EchoText xmlns:m="urn:soapwire:calc">héllo</m:EchoText></`)
			assert.Contains(t, rec.reply, `Body><m:EchoedText xmlns:m="urn:soapwire:calc">héllo</m:EchoedText></`)

			sum, err := rpc.Call[BareSum](t.Context(), c, "add", BareAdd{Operands: AddIn{A: 40, B: 2}})
			require.NoError(t, err)
			assert.Equal(t, int32(42), sum.Sum)
			if qualified {
				assert.Contains(t, rec.req, `<m:Operands xmlns:m="urn:soapwire:calc"><m:a>40</m:a><m:b>2</m:b></m:Operands>`)
			} else {
				assert.Contains(t, rec.req, `<m:Operands xmlns:m="urn:soapwire:calc"><a>40</a><b>2</b></m:Operands>`)
			}

			p := Person{Name: "Ada", Address: Address{City: "London"}, Note: strPtr("n")}
			got, err := rpc.Call[BareReturned](t.Context(), c, "echoStruct", BarePerson{Person: p})
			require.NoError(t, err)
			assert.Equal(t, p, got.Person)
		}
	}
}

// TestBareRefusals: what a bare service and client refuse.
func TestBareRefusals(t *testing.T) {
	svc := newBareCalc(rpc.WithQualified(true))
	tests := []struct {
		name, body string
		sub        xml.Name
		want       string
	}{
		{"operation name", `<c:add xmlns:c="` + calcNS + `"><c:a>1</c:a><c:b>2</c:b></c:add>`, procedureNotPresent, "no operation {urn:soapwire:calc}add"},
		{"element in no namespace", `<Operands><a>1</a><b>2</b></Operands>`, procedureNotPresent, "no operation {}Operands"},
		{"empty body", ``, procedureNotPresent, "no operation {}"},
		{"unqualified child", `<c:Operands xmlns:c="` + calcNS + `"><a>1</a><c:b>2</c:b></c:Operands>`, badArguments, "the element a is in no namespace"},
		{"missing child", `<c:Operands xmlns:c="` + calcNS + `"><c:a>1</c:a></c:Operands>`, badArguments, "missing element b"},
		{"text for a struct", `<c:Operands xmlns:c="` + calcNS + `">3</c:Operands>`, badArguments, "found text"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, f := serveRaw(t, svc, envelope(core.V12, tt.body))
			require.NotNil(t, f)
			assert.True(t, f.HasSubcode(tt.sub), "%v", f)
			assert.Contains(t, f.Reason, tt.want)
		})
	}

	reply := func(body string) core.RoundTripper {
		return core.RoundTripFunc(func(context.Context, *core.Message) (*core.Message, error) {
			return core.ReadMessage(strings.NewReader(envelope(core.V11, body)), core.Limits{})
		})
	}
	for body, want := range map[string]string{
		``: "missing element {urn:soapwire:calc}Sum: the Body is empty",
		`<c:Total xmlns:c="` + calcNS + `">42</c:Total>`: "the Body holds {urn:soapwire:calc}Total, not {urn:soapwire:calc}Sum",
		`<Sum>42</Sum>`: "the Body holds Sum, not {urn:soapwire:calc}Sum",
	} {
		c := rpc.NewClient(reply(body), calcNS, rpc.WithStyle(rpc.DocumentBare))
		_, err := rpc.Call[BareSum](t.Context(), c, "add", BareAdd{})
		require.Error(t, err, body)
		assert.Contains(t, err.Error(), want)
	}

	for name, f := range map[string]func(){
		"two body parameters": func() {
			rpc.Register(rpc.NewService(calcNS, "x", rpc.WithStyle(rpc.DocumentBare)), "add", func(context.Context, *AddIn) (*BareSum, error) { return nil, nil })
		},
		"no body parameter": func() {
			rpc.Register(rpc.NewService(calcNS, "x", rpc.WithStyle(rpc.DocumentBare)), "none", func(context.Context, *struct{}) (*BareSum, error) { return nil, nil })
		},
		"an element taken": func() {
			rpc.Register(newBareCalc(), "again", func(context.Context, *BareText) (*BareSum, error) { return nil, nil })
		},
	} {
		assert.Panics(t, f, name)
	}
}

// Header parts of the header tests.
type Token struct {
	Value string `xml:"value"`
}

type HeaderIn struct {
	Auth  Token   `xml:"Auth,header"`
	Trace *string `xml:"urn:trace Trace,header"`
	A     int32   `xml:"a"`
}

type HeaderOut struct {
	Result int32  `xml:"result"`
	Quota  int32  `xml:"Quota,header"`
	Echo   string `xml:"Echo,header"`
}

// TestHeaderParts: fields tagged header travel as header blocks (in the
// service namespace, or their tag's) both ways; a missing required header
// is refused naming it; an optional one may be absent.
func TestHeaderParts(t *testing.T) {
	for _, style := range append(styles, rpc.DocumentBare) {
		t.Run(style.String(), func(t *testing.T) {
			svc := rpc.NewService(calcNS, "H", rpc.WithStyle(style))
			rpc.Register(svc, "op", func(_ context.Context, r *HeaderIn) (*HeaderOut, error) {
				echo := r.Auth.Value
				if r.Trace != nil {
					echo += "/" + *r.Trace
				}
				return &HeaderOut{Result: r.A, Quota: 7, Echo: echo}, nil
			})
			rec := &recording{rt: loopback(t, svc)}
			c := rpc.NewClient(rec, calcNS, rpc.WithStyle(style), rpc.WithVersion(core.V12))
			got, err := rpc.Call[HeaderOut](t.Context(), c, "op", HeaderIn{Auth: Token{Value: "secret"}, Trace: strPtr("t1"), A: 5})
			require.NoError(t, err)
			assert.Equal(t, HeaderOut{Result: 5, Quota: 7, Echo: "secret/t1"}, *got)
			assert.Regexp(t, `Header><m:Auth [^>]*xmlns:m="urn:soapwire:calc"[^>]*><value[^>]*>secret</value></m:Auth><m:Trace [^>]*xmlns:m="urn:trace"[^>]*>t1</m:Trace></`, rec.req)
			assert.Regexp(t, `Header><m:Quota [^>]*xmlns:m="urn:soapwire:calc"[^>]*>7</m:Quota>`, rec.reply)

			got, err = rpc.Call[HeaderOut](t.Context(), c, "op", HeaderIn{Auth: Token{Value: "s"}})
			require.NoError(t, err)
			assert.Equal(t, "s", got.Echo, "the optional header absent")
			assert.NotContains(t, rec.req, "Trace")

			// a request without the required header
			body := rec.req[strings.Index(rec.req, "<soap:Body"):]
			body = body[strings.Index(body, ">")+1 : strings.LastIndex(body, "</soap:Body>")]
			_, f := serveRaw(t, svc, envelope(core.V12, body))
			require.NotNil(t, f)
			assert.True(t, f.HasSubcode(badArguments))
			assert.Contains(t, f.Reason, "missing header {urn:soapwire:calc}Auth")
		})
	}

	// a reply without the required header is an error
	svc := rpc.NewService(calcNS, "H")
	rpc.Register(svc, "op", func(_ context.Context, r *HeaderIn) (*AddOut, error) { return &AddOut{Result: 1}, nil })
	c := rpc.NewClient(loopback(t, svc), calcNS)
	_, err := rpc.Call[HeaderOut](t.Context(), c, "op", HeaderIn{Auth: Token{Value: "s"}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "missing header {urn:soapwire:calc}Quota")
}
