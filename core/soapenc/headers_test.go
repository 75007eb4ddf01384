package soapenc_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/soapenc"
)

// envelopeDecoder reads a whole envelope with core and returns a Decoder of its
// body that knows its header blocks.
func envelopeDecoder(t testing.TB, env string) *soapenc.Decoder {
	t.Helper()
	m, err := core.ReadMessage(strings.NewReader(env), core.Limits{})
	require.NoError(t, err)
	d := soapenc.NewDecoder(m.Body())
	d.Headers = m.Envelope.Headers
	return d
}

const (
	env11 = `<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema">`
	env12 = `<env:Envelope xmlns:env="http://www.w3.org/2003/05/soap-envelope" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:enc="http://www.w3.org/2003/05/soap-encoding">`
)

// T57 and T76 of the W3C SOAP 1.2 test collection (as PHP's ext/soap carries
// them): the body's argument refers to a value in a header block; T57 with
// the "#data" form of the drafts, T76 with the IDREF form.
var (
	t57 = env12 + `<env:Header><test:DataHolder xmlns:test="http://example.org/ts-tests" env:encodingStyle="http://www.w3.org/2003/05/soap-encoding">` +
		`<test:Data enc:id="data" xsi:type="xsd:string">hello world</test:Data></test:DataHolder></env:Header>` +
		`<env:Body><test:echoString xmlns:test="http://example.org/ts-tests" env:encodingStyle="http://www.w3.org/2003/05/soap-encoding">` +
		`<test:inputString enc:ref="#data" xsi:type="xsd:string"/></test:echoString></env:Body></env:Envelope>`
	t76 = strings.Replace(strings.Replace(t57, `enc:ref="#data"`, `enc:ref="data"`, 1), "<test:inputString ", "<inputString ", 1)
)

// TestHeaderReferences: a reference in the body may point to an element of
// a header block, in both versions; an id carried in a header block and in
// the body, or in two blocks, is DuplicateID.
func TestHeaderReferences(t *testing.T) {
	type args struct {
		InputString string `soap:"inputString"`
	}
	ok := []struct {
		name, env, want string
	}{
		{"T57 (1.2, #id)", t57, "hello world"},
		{"T76 (1.2, IDREF)", t76, "hello world"},
		{"1.1 href to a header element", env11 + `<s:Header><h:Data xmlns:h="urn:h"><h:v id="d1" xsi:type="xsd:string">from the header</h:v></h:Data></s:Header>` +
			`<s:Body><m:echoString xmlns:m="urn:m"><inputString href="#d1"/></m:echoString></s:Body></s:Envelope>`, "from the header"},
		{"1.1, the header block itself carries the id", env11 + `<s:Header><h:Data xmlns:h="urn:h" id="d1">block</h:Data></s:Header>` +
			`<s:Body><m:echoString xmlns:m="urn:m"><inputString href="#d1"/></m:echoString></s:Body></s:Envelope>`, "block"},
		{"1.1, through a header reference into the body", env11 + `<s:Header><h:Data xmlns:h="urn:h"><h:v id="d1" href="#d2"/></h:Data></s:Header>` +
			`<s:Body><m:echoString xmlns:m="urn:m"><inputString href="#d1"/></m:echoString><multiRef id="d2">in the body</multiRef></s:Body></s:Envelope>`, "in the body"},
		{"blocks without ids, links and foreign encodings are left alone", env11 + `<s:Header>` +
			`<a:Action xmlns:a="http://www.w3.org/2005/08/addressing">urn:x</a:Action>` +
			`<l:Link xmlns:l="urn:l" href="http://example.com/" s:encodingStyle="urn:other"><l:x id="z" href="#nowhere" xsi:type="nope:t"/></l:Link></s:Header>` +
			`<s:Body><m:echoString xmlns:m="urn:m"><inputString>plain</inputString></m:echoString></s:Body></s:Envelope>`, "plain"},
	}
	for _, c := range ok {
		t.Run(c.name, func(t *testing.T) {
			el, err := envelopeDecoder(t, c.env).ReadBody()
			require.NoError(t, err)
			assert.Equal(t, "echoString", el.Name.Local, "the main element is the body's, never a header block")
			var a args
			require.NoError(t, el.Decode(&a))
			assert.Equal(t, c.want, a.InputString)
		})
	}

	bad := []struct {
		name, env, sub, path string
	}{
		{"1.2: an id in a header block and in the body", env12 + `<env:Header><h:D xmlns:h="urn:h"><h:v enc:id="x">1</h:v></h:D></env:Header>` +
			`<env:Body><m:echoString xmlns:m="urn:m"><inputString enc:id="x">2</inputString></m:echoString></env:Body></env:Envelope>`,
			soapenc.SubcodeDuplicateID, "/echoString/inputString"},
		{"1.1: an id in a header block and in the body", env11 + `<s:Header><h:D xmlns:h="urn:h" id="x">1</h:D></s:Header>` +
			`<s:Body><m:echoString xmlns:m="urn:m"><inputString href="#x"/></m:echoString><multiRef id="x">2</multiRef></s:Body></s:Envelope>`,
			soapenc.SubcodeDuplicateID, "/multiRef"},
		{"an id in two header blocks", env11 + `<s:Header><h:D xmlns:h="urn:h" id="x">1</h:D><h:E xmlns:h="urn:h"><h:v id="x">2</h:v></h:E></s:Header>` +
			`<s:Body><m:echoString xmlns:m="urn:m"><inputString>a</inputString></m:echoString></s:Body></s:Envelope>`,
			soapenc.SubcodeDuplicateID, "/Header/E/v"},
		{"T56: a reference to an id nothing carries", strings.Replace(t57, `enc:ref="#data"`, `enc:ref="#data-2"`, 1),
			soapenc.SubcodeMissingID, "/echoString/inputString"},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			_, err := envelopeDecoder(t, c.env).ReadBody()
			assert.Equal(t, c.sub, subcode(t, err))
			var e *soapenc.Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, c.path, e.Path)
		})
	}

	// what is wrong in a header block is an error once the body reaches it
	reached := []struct {
		name, header, sub string
	}{
		{"a reference in it to nothing", `<h:D xmlns:h="urn:h"><h:v id="d1" href="#nowhere"/></h:D>`, soapenc.SubcodeMissingID},
		{"an unknown encodingStyle on it", `<h:D xmlns:h="urn:h" s:encodingStyle="urn:other"><h:v id="d1">x</h:v></h:D>`, soapenc.SubcodeDataEncodingUnknown},
		{"an xsi:type that does not resolve", `<h:D xmlns:h="urn:h"><h:v id="d1" xsi:type="nope:t">x</h:v></h:D>`, soapenc.SubcodeBadValue},
	}
	for _, c := range reached {
		t.Run("reached: "+c.name, func(t *testing.T) {
			env := env11 + `<s:Header>` + c.header + `</s:Header><s:Body><m:echoString xmlns:m="urn:m"><inputString href="#d1"/></m:echoString></s:Body></s:Envelope>`
			el, err := envelopeDecoder(t, env).ReadBody()
			require.NoError(t, err, "read: nothing has reached it yet")
			var a args
			err = el.Decode(&a)
			assert.Equal(t, c.sub, subcode(t, err))
			assert.Empty(t, a.InputString)
		})
	}
}

// rec is a type that can hold a reference cycle only by value: decoding one
// into it is SubcodeCycle.
type rec []rec

// TestHeaderReferencesBounded: the header blocks read count against the
// same limits as the body, and references through them are bounded as
// every reference is.
func TestHeaderReferencesBounded(t *testing.T) {
	big := env11 + `<s:Header><h:D xmlns:h="urn:h" id="d">` + strings.Repeat(`<h:i>1</h:i>`, 50) + `</h:D></s:Header>` +
		`<s:Body><m:op xmlns:m="urn:m"><a>1</a></m:op></s:Body></s:Envelope>`
	d := envelopeDecoder(t, big)
	d.MaxNodes = 40
	_, err := d.ReadBody()
	assert.Equal(t, soapenc.SubcodeLimit, subcode(t, err), "the header block's elements count")

	// a header block without "id" anywhere is not read, whatever its size
	noID := strings.Replace(big, ` id="d"`, ``, 1)
	d = envelopeDecoder(t, noID)
	d.MaxNodes = 40
	_, err = d.ReadBody()
	require.NoError(t, err)

	// a loop of references through a header block
	loop := env11 + `<s:Header><h:D xmlns:h="urn:h"><h:v id="a" href="#b"/></h:D></s:Header>` +
		`<s:Body><m:op xmlns:m="urn:m"><x href="#a"/></m:op><multiRef id="b" href="#a"/></s:Body></s:Envelope>`
	_, err = envelopeDecoder(t, loop).ReadBody()
	assert.Equal(t, soapenc.SubcodeBadValue, subcode(t, err))

	// deep values through a header reference are bounded by MaxDepth
	deep := env11 + `<s:Header><h:D xmlns:h="urn:h"><h:v id="a"><n href="#a"/></h:v></h:D></s:Header>` +
		`<s:Body><m:op xmlns:m="urn:m"><x href="#a"/></m:op></s:Body></s:Envelope>`
	d = envelopeDecoder(t, deep)
	el, err := d.ReadBody()
	require.NoError(t, err)
	type node struct {
		N *node `soap:"n"`
	}
	var args struct {
		X *node `soap:"x"`
	}
	require.NoError(t, el.Decode(&args), "a cycle into pointers is a pointer cycle")
	assert.Same(t, args.X, args.X.N)
	var generic any
	require.NoError(t, el.Decode(&generic))
	var flat struct {
		X rec `soap:"x"`
	}
	err = el.Decode(&flat)
	assert.Equal(t, soapenc.SubcodeCycle, subcode(t, err), "a cycle where no pointer can hold it")

	// values nested through header references: bounded by MaxDepth
	var chain strings.Builder
	for i := range 20 {
		chain.WriteString(`<h:v id="c` + strings.Repeat("i", i) + `"><n href="#c` + strings.Repeat("i", i+1) + `"/></h:v>`)
	}
	chain.WriteString(`<h:v id="c` + strings.Repeat("i", 20) + `"/>`)
	long := env11 + `<s:Header><h:D xmlns:h="urn:h">` + chain.String() + `</h:D></s:Header>` +
		`<s:Body><m:op xmlns:m="urn:m"><x href="#c"/></m:op></s:Body></s:Envelope>`
	d = envelopeDecoder(t, long)
	d.MaxDepth = 10
	el, err = d.ReadBody()
	require.NoError(t, err)
	err = el.Decode(&args)
	assert.Equal(t, soapenc.SubcodeLimit, subcode(t, err), "20 values deep through the header, MaxDepth 10")
	d = envelopeDecoder(t, long)
	el, err = d.ReadBody()
	require.NoError(t, err)
	require.NoError(t, el.Decode(&args), "within the default MaxDepth")
}
