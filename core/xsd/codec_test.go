package xsd_test

import (
	"bytes"
	"context"
	"encoding/xml"
	"math/big"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/soapenc"
	"github.com/soapwire/soapwire/core/xsd"
)

const kns = "urn:kitchen"

// kitchen loads the codec's test schema.
func kitchen(t testing.TB) *xsd.Set {
	t.Helper()
	set, err := xsd.Load(context.Background(), xsd.FSLoader(os.DirFS("testdata/codec")), "kitchen.xsd")
	require.NoError(t, err)
	return set
}

func kel(set *xsd.Set, local string) *xsd.Element {
	return set.Element(xml.Name{Space: kns, Local: local})
}

type Money struct {
	Amount   soapenc.Decimal `xml:",chardata"`
	Currency string          `xml:"currency,attr"`
}

type Circle struct {
	Label  string  `xml:"label"`
	Radius float64 `xml:"radius"`
}

type Square struct {
	Label string  `xml:"label"`
	Side  float64 `xml:"side"`
}

type Order struct {
	Version int                   `xml:"version,attr,omitempty"`
	Status  string                `xml:"status,attr"`
	ID      int64                 `xml:"id"`
	When    time.Time             `xml:"when"`
	Day     *time.Time            `xml:"day"`
	Wait    *time.Duration        `xml:"wait"`
	Total   Money                 `xml:"total"`
	Big     *big.Int              `xml:"big"`
	Color   string                `xml:"color,omitempty"`
	Percent *int                  `xml:"percent"`
	Code    string                `xml:"code,omitempty"`
	Numbers []int32               `xml:"numbers"`
	Either  string                `xml:"either,omitempty"`
	Blob    []byte                `xml:"blob"`
	Hash    soapenc.HexBinary     `xml:"hash"`
	Kind    *xml.Name             `xml:"kind"`
	Card    *string               `xml:"card"`
	Cash    *bool                 `xml:"cash"`
	Shapes  []any                 `xml:"shape"`
	Opened  []string              `xml:"opened"`
	Closed  []string              `xml:"closed"`
	Remark  *xsd.Nillable[string] `xml:"remark"`
	Extra   *Extra                `xml:"extra"`
}

type Extra struct {
	Any []xsd.RawXML `xml:",any"`
}

func ptr[T any](v T) *T { return &v }

// fullOrder has a value for every construct of kitchen.xsd.
func fullOrder() Order {
	return Order{
		Status: "open", ID: 1 << 40,
		When:    time.Date(2024, 5, 1, 10, 30, 0, 500_000_000, time.UTC),
		Day:     ptr(time.Date(2024, 5, 2, 0, 0, 0, 0, soapenc.NoZone())),
		Wait:    ptr(90 * time.Minute),
		Total:   Money{Amount: "1234.50", Currency: "EUR"},
		Big:     new(big.Int).Lsh(big.NewInt(1), 100),
		Color:   "green",
		Percent: ptr(42),
		Code:    "AB12",
		Numbers: []int32{1, -2, 3},
		Either:  "blue",
		Blob:    []byte("hi\x00"),
		Hash:    soapenc.HexBinary{0xCA, 0xFE},
		Kind:    &xml.Name{Space: "urn:other", Local: "thing"},
		Card:    ptr("VISA"),
		Shapes:  []any{Circle{Label: "c", Radius: 1.5}, Square{Label: "s", Side: 2}},
		Opened:  []string{"monday"},
		Closed:  []string{"friday"},
		Remark:  ptr(xsd.NilValue[string]()),
		Extra:   &Extra{Any: []xsd.RawXML{xsd.RawXML(`<o:note xmlns:o="urn:other" o:lang="en">x<o:b/></o:note>`)}},
	}
}

// fullOrderXML is what the codec writes for fullOrder.
const fullOrderXML = `<ns0:order xmlns:ns0="urn:kitchen" status="open">` +
	`<ns0:id>1099511627776</ns0:id><ns0:when>2024-05-01T10:30:00.5Z</ns0:when><ns0:day>2024-05-02</ns0:day>` +
	`<ns0:wait>PT1H30M</ns0:wait><ns0:total currency="EUR">1234.50</ns0:total>` +
	`<ns0:big>1267650600228229401496703205376</ns0:big><ns0:color>green</ns0:color><ns0:percent>42</ns0:percent>` +
	`<ns0:code>AB12</ns0:code><ns0:numbers>1 -2 3</ns0:numbers><ns0:either>blue</ns0:either><ns0:blob>aGkA</ns0:blob>` +
	`<ns0:hash>CAFE</ns0:hash><ns0:kind xmlns:ns1="urn:other">ns1:thing</ns0:kind><ns0:card>VISA</ns0:card>` +
	`<ns0:shape xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:type="ns0:Circle"><ns0:label>c</ns0:label><ns0:radius>1.5</ns0:radius></ns0:shape>` +
	`<ns0:shape xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:type="ns0:Square"><ns0:label>s</ns0:label><ns0:side>2</ns0:side></ns0:shape>` +
	`<ns0:opened>monday</ns0:opened><ns0:closed>friday</ns0:closed>` +
	`<ns0:remark xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:nil="true"/>` +
	`<ns0:extra><ns1:note xmlns:ns1="urn:other" ns1:lang="en">x<ns1:b/></ns1:note></ns0:extra></ns0:order>`

func TestCodecGoRoundTrip(t *testing.T) {
	set := kitchen(t)
	c := xsd.NewCodec(set)
	el := kel(set, "order")
	var buf bytes.Buffer
	require.NoError(t, c.Encode(&buf, el, fullOrder()))
	assert.Equal(t, fullOrderXML, buf.String())

	var back Order
	require.NoError(t, c.DecodeBytes(buf.Bytes(), el, &back))
	want := fullOrder()
	assert.Equal(t, 1, back.Version, "the attribute's default")
	back.Version = 0
	// shapes come back as trees (an any field), the rest as written
	require.Len(t, back.Shapes, 2)
	assert.Equal(t, "1.5", back.Shapes[0].(*xsd.Value).Elem("radius").Text)
	assert.Equal(t, xml.Name{Space: kns, Local: "Square"}, back.Shapes[1].(*xsd.Value).Type)
	back.Shapes, want.Shapes = nil, nil
	assert.True(t, want.When.Equal(back.When))
	// raw XML comes back with the codec's prefixes
	want.Extra.Any[0] = xsd.RawXML(`<ns0:note xmlns:ns0="urn:other" ns0:lang="en">x<ns0:b/></ns0:note>`)
	back.When = want.When
	assert.Equal(t, want, back)

	// and writing what was read gives the same bytes
	var tree *xsd.Value
	require.NoError(t, c.DecodeBytes(buf.Bytes(), el, &tree))
	var again bytes.Buffer
	require.NoError(t, c.Encode(&again, el, tree))
	assert.Equal(t, fullOrderXML, again.String())
}

func TestCodecTree(t *testing.T) {
	set := kitchen(t)
	c := xsd.NewCodec(set)
	var tree *xsd.Value
	require.NoError(t, c.DecodeBytes([]byte(fullOrderXML), kel(set, "order"), &tree))
	assert.Equal(t, "EUR", tree.Get("total.currency").Text)
	assert.Equal(t, "{urn:other}thing", tree.Get("kind").Text, "a QName is held resolved")
	assert.Equal(t, "s", tree.Get("shape.1.label").Text)
	assert.True(t, tree.Get("remark").Nil)
	assert.Equal(t, kel(set, "opened"), tree.Get("opened").Decl(), "a substitute's own declaration")
	ps := tree.Paths()
	assert.Equal(t, "1.5", *ps["shape.0.radius"])
	assert.Nil(t, ps["remark"])
	m := tree.Interface().(map[string]any)
	assert.Equal(t, "open", m["status"])
	assert.Len(t, m["shape"], 2)

	// a tree built by hand, in any order and without namespaces, is written
	// in the schema's order and form
	hand := map[string]any{
		"card": "AMEX", "total": map[string]any{"": "5", "@currency": "USD"}, "when": "2024-01-01T00:00:00Z",
		"id": 7, "status": "new", "numbers": []any{1, 2},
	}
	var buf bytes.Buffer
	require.NoError(t, c.Encode(&buf, kel(set, "order"), hand))
	assert.Equal(t, `<ns0:order xmlns:ns0="urn:kitchen" status="new"><ns0:id>7</ns0:id><ns0:when>2024-01-01T00:00:00Z</ns0:when>`+
		`<ns0:total currency="USD">5</ns0:total><ns0:numbers>1 2</ns0:numbers><ns0:card>AMEX</ns0:card></ns0:order>`, buf.String())
}

// minimal is the smallest order kitchen.xsd accepts, with a hole to fill.
func minimal(inner string) string {
	return `<k:order xmlns:k="urn:kitchen" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" status="s"><k:id>1</k:id>` +
		`<k:when>2024-01-01T00:00:00Z</k:when><k:total currency="EUR">1</k:total>` + inner + `</k:order>`
}

func TestCodecRefuses(t *testing.T) {
	set := kitchen(t)
	c := xsd.NewCodec(set)
	el := kel(set, "order")
	require.NoError(t, c.DecodeBytes([]byte(minimal(`<k:cash>true</k:cash>`)), el, nil))
	tests := []struct {
		name, xml, want string
	}{
		{"required element missing", `<k:order xmlns:k="urn:kitchen" status="s"><k:id>1</k:id><k:total currency="E">1</k:total><k:cash>1</k:cash></k:order>`,
			"order: the required element {urn:kitchen}when is missing (found {urn:kitchen}total)"},
		{"unqualified element", `<k:order xmlns:k="urn:kitchen" status="s"><id>1</id></k:order>`,
			"order: the required element {urn:kitchen}id is missing (found id: the schema wants it in the namespace urn:kitchen (qualified))"},
		{"unknown element", minimal(`<k:cash>1</k:cash><k:bogus/>`), "order: the element {urn:kitchen}bogus is not allowed here"},
		{"wrong order", minimal(`<k:cash>1</k:cash><k:color>red</k:color>`), "order: the element {urn:kitchen}color is out of order"},
		{"too many", minimal(`<k:cash>1</k:cash><k:remark>a</k:remark><k:remark>b</k:remark>`), "the element {urn:kitchen}remark is out of order or occurs more often"},
		{"choice missing", minimal(``), "order: one of {urn:kitchen}card, {urn:kitchen}cash is required (nothing follows)"},
		{"choice both", minimal(`<k:card>x</k:card><k:cash>1</k:cash>`), "order: the element {urn:kitchen}cash is out of order"},
		{"bad int", strings.Replace(minimal(`<k:cash>1</k:cash>`), "<k:id>1<", "<k:id>one<", 1), `order/id: "one" is not a valid xsd:long`},
		{"out of range", minimal(`<k:percent>101</k:percent><k:cash>1</k:cash>`), `order/percent: "101" is not a valid {urn:kitchen}Percent: over the maximum 100`},
		{"enumeration", minimal(`<k:color>pink</k:color><k:cash>1</k:cash>`), "not one of the values the type enumerates (red, green, blue)"},
		{"pattern", minimal(`<k:code>ab12</k:code><k:cash>1</k:cash>`), "does not match the type's pattern"},
		{"digits", strings.Replace(minimal(`<k:cash>1</k:cash>`), ">1</k:total>", ">1.234</k:total>", 1), "has 3 fraction digits, over the type's 2"},
		{"list item", minimal(`<k:numbers>1 x</k:numbers><k:cash>1</k:cash>`), `list item "x"`},
		{"union", minimal(`<k:either>pink</k:either><k:cash>1</k:cash>`), "no member type of the union accepts it"},
		{"boolean", minimal(`<k:cash>yes</k:cash>`), "want true, false, 1 or 0"},
		{"nil not nillable", minimal(`<k:cash xsi:nil="true"/>`), "order/cash: xsi:nil on an element that is not nillable"},
		{"nil with content", minimal(`<k:cash>1</k:cash><k:remark xsi:nil="true">x</k:remark>`), "a nil element has no text"},
		{"required attribute", strings.Replace(minimal(`<k:cash>1</k:cash>`), ` status="s"`, "", 1), "order: the required attribute status is missing"},
		{"unknown attribute", strings.Replace(minimal(`<k:cash>1</k:cash>`), ` status="s"`, ` status="s" colour="red"`, 1), "order: the attribute colour is not allowed here (expected: version, status)"},
		{"attribute value", strings.Replace(minimal(`<k:cash>1</k:cash>`), ` status="s"`, ` status="s" version="v1"`, 1), `attribute version: "v1" is not a valid xsd:int`},
		{"abstract type", minimal(`<k:cash>1</k:cash><k:shape><k:label>x</k:label></k:shape>`), "order/shape: the type {urn:kitchen}Shape is abstract"},
		{"xsi:type not derived", minimal(`<k:cash>1</k:cash><k:shape xsi:type="k:Money"><k:label>x</k:label></k:shape>`), "xsi:type {urn:kitchen}Money does not derive from the element's type"},
		{"xsi:type unknown", minimal(`<k:cash>1</k:cash><k:shape xsi:type="k:Oval"/>`), "xsi:type names {urn:kitchen}Oval, which the schema does not define"},
		{"xsi:type unbound prefix", minimal(`<k:cash>1</k:cash><k:shape xsi:type="q:Oval"/>`), "the prefix q is not declared"},
		{"abstract element", minimal(`<k:cash>1</k:cash><k:event>x</k:event>`), "order: the element {urn:kitchen}event is abstract: a member of its substitution group must stand for it"},
		{"text in element content", minimal(`<k:cash>1</k:cash>stray`), "text is not allowed"},
		{"element in simple value", minimal(`<k:cash><k:b/></k:cash>`), "is not allowed inside a simple value"},
		{"simple content attribute missing", strings.Replace(minimal(`<k:cash>1</k:cash>`), ` currency="EUR"`, "", 1), "order/total: the required attribute currency is missing"},
		{"dateTime", strings.Replace(minimal(`<k:cash>1</k:cash>`), "2024-01-01T00", "2024-02-30T00", 1), "the day is out of range"},
		{"base64", minimal(`<k:blob>!!</k:blob><k:cash>1</k:cash>`), "not base64"},
		{"hex", minimal(`<k:hash>ABC</k:hash><k:cash>1</k:cash>`), "not hexadecimal octets"},
		{"wrong root", `<k:pair xmlns:k="urn:kitchen"/>`, "expected the element {urn:kitchen}order, found {urn:kitchen}pair"},
		{"empty", ``, "the element {urn:kitchen}order is missing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := c.DecodeBytes([]byte(tt.xml), el, nil)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			var ve *xsd.ValueError
			require.ErrorAs(t, err, &ve)
			f := core.FaultOf(err)
			assert.Equal(t, core.CodeSender, f.Code, "a server answers a Sender fault")
			assert.Equal(t, err.Error(), f.Reason)
		})
	}
}

func TestCodecAll(t *testing.T) {
	set := kitchen(t)
	c := xsd.NewCodec(set)
	type Pair struct {
		Left  string  `xml:"left"`
		Right *string `xml:"right"`
	}
	var p Pair
	require.NoError(t, c.DecodeBytes([]byte(`<k:pair xmlns:k="urn:kitchen"><k:right>r</k:right><k:left>l</k:left></k:pair>`), kel(set, "pair"), &p))
	assert.Equal(t, Pair{Left: "l", Right: ptr("r")}, p)
	err := c.DecodeBytes([]byte(`<k:pair xmlns:k="urn:kitchen"><k:right>r</k:right></k:pair>`), kel(set, "pair"), &p)
	assert.ErrorContains(t, err, "pair: the required element {urn:kitchen}left is missing")
	err = c.DecodeBytes([]byte(`<k:pair xmlns:k="urn:kitchen"><k:left>r</k:left><k:left>r</k:left></k:pair>`), kel(set, "pair"), &p)
	assert.ErrorContains(t, err, "occurs more often")
}

func TestCodecGoTargets(t *testing.T) {
	set := kitchen(t)
	c := xsd.NewCodec(set)
	el := kel(set, "order")
	type Narrow struct {
		Status string `xml:"status,attr"`
		ID     int8   `xml:"id"`
	}
	var n Narrow
	err := c.DecodeBytes([]byte(minimal(`<k:cash>1</k:cash>`)), el, &n)
	assert.ErrorContains(t, err, "order: the Go type xsd_test.Narrow has no field for the element when", "nothing read is dropped")

	type Small struct {
		Status string `xml:"status,attr"`
		ID     int8   `xml:"id"`
		When   string `xml:"when"`
		Total  Money  `xml:"total"`
		Cash   bool   `xml:"cash"`
	}
	var s Small
	err = c.DecodeBytes([]byte(strings.Replace(minimal(`<k:cash>1</k:cash>`), "<k:id>1<", "<k:id>300<", 1)), el, &s)
	assert.ErrorContains(t, err, `order/id: "300" does not fit a Go int8`)

	type NoNil struct {
		Small
		Remark string `xml:"remark"`
	}
	var nn NoNil
	err = c.DecodeBytes([]byte(minimal(`<k:cash>1</k:cash><k:remark xsi:nil="true"/>`)), el, &nn)
	assert.ErrorContains(t, err, "order/remark: the element is nil, which a Go string cannot hold")

	// lenient: unknown fields dropped, forms and order forgiven
	lc := xsd.NewCodec(set, xsd.Lenient())
	err = lc.DecodeBytes([]byte(`<k:order xmlns:k="urn:kitchen" status="s" other="x"><cash>1</cash><id>5</id><k:bogus/></k:order>`), el, &s)
	require.NoError(t, err)
	assert.Equal(t, int8(5), s.ID)
	assert.True(t, s.Cash)
	err = lc.DecodeBytes([]byte(`<k:order xmlns:k="urn:kitchen" status="s"><id>five</id></k:order>`), el, &s)
	assert.ErrorContains(t, err, `"five" is not a valid xsd:long`, "lenient still refuses a value that does not parse")
}

func TestCodecEncodeRefuses(t *testing.T) {
	set := kitchen(t)
	c := xsd.NewCodec(set)
	el := kel(set, "order")
	base := func(f func(o *Order)) Order {
		o := Order{Status: "s", When: time.Unix(0, 0).UTC(), Total: Money{Amount: "1", Currency: "E"}, Cash: ptr(true)}
		f(&o)
		return o
	}
	tests := []struct {
		name string
		v    any
		want string
	}{
		{"required attribute", base(func(o *Order) { o.Status = "" }), ""},
		{"choice both", base(func(o *Order) { o.Card = ptr("x") }), "order: the element cash occurs more often than the schema allows here"},
		{"choice none", base(func(o *Order) { o.Cash = nil }), "order: one of {urn:kitchen}card, {urn:kitchen}cash is required"},
		{"enumeration", base(func(o *Order) { o.Color = "pink" }), `order/color: "pink" is not a valid {urn:kitchen}Color`},
		{"range", base(func(o *Order) { o.Percent = ptr(-1) }), "under the minimum 0"},
		{"decimal", base(func(o *Order) { o.Total.Amount = "1e5" }), "not a decimal number"},
		{"abstract without type", base(func(o *Order) { o.Shapes = []any{map[string]any{"label": "x"}} }), "the type {urn:kitchen}Shape is abstract"},
		{"nil not nillable", map[string]any{"status": "s", "id": 1, "when": "2024-01-01T00:00:00Z", "total": map[string]any{"": "1", "currency": "E"}, "cash": nil},
			"order/cash: the element is not nillable"},
		{"unknown map key", map[string]any{"status": "s", "idd": 1}, "order: no element or attribute idd in {urn:kitchen}Order (it has @status, @version, big, blob, card"},
		{"unknown Go field", struct {
			Status string `xml:"status,attr"`
			Zip    string `xml:"zip"`
		}{"s", "x"}, "order: the Go field Zip matches nothing in {urn:kitchen}Order"},
		{"invalid character", base(func(o *Order) { o.Card, o.Cash = ptr("a\x01b"), nil }), "the character U+0001 cannot be carried by XML"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := c.Encode(&bytes.Buffer{}, el, tt.v)
			if tt.want == "" {
				// status "" is a value (the empty string), which xsd:string allows
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}
