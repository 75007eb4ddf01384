package gen_test

import (
	"bytes"
	"encoding/xml"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core/soapenc"
	"github.com/soapwire/soapwire/core/wsdl"
	"github.com/soapwire/soapwire/core/xsd"
	"github.com/soapwire/soapwire/gen/internal/kitchen"
)

const kitchenNS = "urn:kitchen"

// kitchenSet loads the generator's test contract.
func kitchenSet(t testing.TB) *xsd.Set {
	t.Helper()
	ct, err := wsdl.Load(t.Context(), xsd.FSLoader(os.DirFS("testdata")), "kitchen.wsdl")
	require.NoError(t, err)
	return ct.Schemas
}

// genEncode writes v as the element {kitchenNS}local with the generated
// codec.
func genEncode(local string, v xsd.Marshaler) ([]byte, error) {
	var buf bytes.Buffer
	e := xsd.NewEncoder(&buf)
	e.Start(kitchenNS, local)
	if err := v.EncodeXSD(e); err != nil {
		return nil, err
	}
	e.End()
	if err := e.Flush(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// genDecode reads the element {kitchenNS}local (of an anonymous type, not
// nillable) into v with the generated codec, as generated code reads a
// message's element.
func genDecode(data []byte, local string, v xsd.Unmarshaler) error {
	d := xsd.NewDecoder(xsd.BytesReader(data))
	st, err := d.Element(kitchenNS, local)
	if err != nil {
		return err
	}
	return d.Struct(st, v, "", "")
}

func ptr[T any](v T) *T { return &v }

// fullKitchen holds a value of every construct of the contract (but the
// types with derived types, which the reflective codec cannot read into a
// Go interface: see TestKitchenDerived).
func fullKitchen() *kitchen.Kitchen {
	utc := time.Date(2024, 5, 1, 10, 30, 0, 500_000_000, time.UTC)
	return &kitchen.Kitchen{
		Scalars: &kitchen.Scalars{
			S: " spaced <&> ünï ", Tok: "a token", B: true, F: 1.5, D: -2.25e10, Dec: "12345678901234567890.0001",
			Big: "-123456789012345678901234567890", Pos: "7", L: -1 << 62, I: 42, Sh: -7, By: 127, Ul: 1<<64 - 1, Ub: 255,
			Dt: utc, Date: time.Date(2024, 5, 1, 0, 0, 0, 0, soapenc.NoZone()), Time: time.Date(0, 1, 1, 23, 59, 58, 0, time.FixedZone("", 2*3600)),
			Year: time.Date(1999, 1, 1, 0, 0, 0, 0, soapenc.NoZone()), Dur: "P1Y2M3DT4H5M6.5S", Hex: []byte{0xde, 0xad}, B64: []byte("hello"),
			Qn: xml.Name{Space: "urn:q", Local: "thing"}, Uri: "http://example.org/a?b=c", Tokens: []string{"x", "y-z"},
		},
		Restricted: &kitchen.Restricted{
			Tone: ptr(kitchen.ColorGreen), Color: kitchen.ColorDarkBlue, Colors: kitchen.ColorList{kitchen.ColorRed, kitchen.ColorGreen},
			Level: []kitchen.Level{1, 5}, Code: xsd.Some[kitchen.Code]("AB12"), Price: ptr(xsd.NilValue[kitchen.Money]()),
			Ints: kitchen.IntList{1, -2, 3}, Short: kitchen.ShortList{4}, Either: []kitchen.IntOrColor{"12", "red"},
			Size: kitchen.RestrictedSizeM, FixedOne: ptr("one"),
		},
		Order: []kitchen.Order{{
			Ref: "o-1", Priority: ptr(kitchen.Level(2)),
			Item:    []kitchen.Item{{Sku: "A1", Label: "first  item", Qty: 3}, {Sku: "B2", Kind: ptr("gift"), Label: "second", Qty: 1}},
			Address: &kitchen.OrderAddress{Street: "1 Main St", City: "Springfield"},
			Key:     []string{"k1", "k2"}, Val: []string{"v1"},
			Cash: ptr("12.00"), Note: ptr("a note"),
			Total: kitchen.Price{Currency: "EUR", Value: "99.95"},
			Para:  &kitchen.Para{Text: "mixed text", Em: []string{"one", "two"}},
			Tree: &kitchen.Node{Value: 1, Next: &kitchen.Node{Value: 2},
				Children: []kitchen.Node{{Value: 3}, {Value: 4, Children: []kitchen.Node{{Value: 5}}}}},
			Extra: ptr(xsd.Some(xsd.RawXML(`<k:extra xmlns:k="urn:kitchen" a="1" xmlns:p="urn:p"><p:y>text</p:y></k:extra>`))),
			When:  []*time.Time{&utc, nil},
			Any:   []xsd.RawXML{xsd.RawXML(`<w:ext xmlns:w="urn:wild">wild</w:ext>`)},
		}, {
			Ref: "o-2", Item: []kitchen.Item{{Sku: "C3", Label: "third"}}, Pickup: ptr("at the shop"),
			Card: ptr("4111"), Total: kitchen.Price{Currency: "USD", Value: "0"},
		}},
		Unordered: &kitchen.Unordered{X: 1, Z: "zed"},
	}
}

// TestKitchenSameBytes: the generated codec writes what core/xsd's
// reflective codec writes for the same Go value, byte for byte, and each
// reads the other's bytes back into the same value.
func TestKitchenSameBytes(t *testing.T) {
	set := kitchenSet(t)
	codec := xsd.NewCodec(set)
	el := set.Element(xml.Name{Space: kitchenNS, Local: "kitchen"})
	v := fullKitchen()
	var want bytes.Buffer
	require.NoError(t, codec.Encode(&want, el, v))
	got, err := genEncode("kitchen", v)
	require.NoError(t, err)
	assert.Equal(t, want.String(), string(got))

	var byGen, byReflect kitchen.Kitchen
	require.NoError(t, genDecode(got, "kitchen", &byGen))
	require.NoError(t, codec.DecodeBytes(got, el, &byReflect))
	assert.Equal(t, byReflect, byGen)
	// read back, defaults are filled in (an attribute's default, a fixed
	// value): both codecs write them
	again, err := genEncode("kitchen", &byGen)
	require.NoError(t, err)
	var want2 bytes.Buffer
	require.NoError(t, codec.Encode(&want2, el, &byReflect))
	assert.Equal(t, want2.String(), string(again))
	assert.Contains(t, string(again), `version="2"`)
}

// derivedKitchen holds values of types derived from the declared ones.
func derivedKitchen() *kitchen.Kitchen {
	return &kitchen.Kitchen{
		Order: []kitchen.Order{{
			Ref: "o-3", Item: []kitchen.Item{{Sku: "D4", Label: "shapes"}}, Pickup: ptr("here"),
			Shape: []kitchen.AnyShape{
				&kitchen.Circle{Shape: kitchen.Shape{Id: ptr("c1"), Name: "circle"}, Radius: 1.5},
				&kitchen.Square{Shape: kitchen.Shape{Name: "square"}, Rotated: ptr(true), Side: 2},
				&kitchen.Cube{Square: kitchen.Square{Shape: kitchen.Shape{Name: "cube"}, Side: 3}, Depth: 4},
			},
			Square: &kitchen.Cube{Square: kitchen.Square{Shape: kitchen.Shape{Name: "cube"}, Side: 1}, Depth: 1},
			Total:  kitchen.Price{Currency: "EUR", Value: "1"},
		}},
		Circle: &kitchen.Circle{Shape: kitchen.Shape{Name: "plain circle"}, Radius: 9},
	}
}

// TestKitchenDerived: values of derived types are written with their
// xsi:type, as the reflective codec writes them, and read back into their
// own Go types by dispatching on it.
func TestKitchenDerived(t *testing.T) {
	set := kitchenSet(t)
	codec := xsd.NewCodec(set)
	el := set.Element(xml.Name{Space: kitchenNS, Local: "kitchen"})
	v := derivedKitchen()
	var want bytes.Buffer
	require.NoError(t, codec.Encode(&want, el, v))
	got, err := genEncode("kitchen", v)
	require.NoError(t, err)
	assert.Equal(t, want.String(), string(got))
	assert.Contains(t, string(got), `xsi:type="ns0:Cube"`)

	var back kitchen.Kitchen
	require.NoError(t, genDecode(got, "kitchen", &back))
	require.Len(t, back.Order, 1)
	require.Len(t, back.Order[0].Shape, 3)
	assert.IsType(t, &kitchen.Circle{}, back.Order[0].Shape[0])
	assert.IsType(t, &kitchen.Cube{}, back.Order[0].Shape[2])
	assert.IsType(t, &kitchen.Cube{}, back.Order[0].Square)
	back.Order[0].Priority, back.Order[0].Version = nil, nil
	back.Order[0].Item[0].Kind = nil
	assert.Equal(t, v, &back)

	// the abstract base alone, and a type not derived from the declared one,
	// are refused
	v.Order[0].Shape = []kitchen.AnyShape{&kitchen.Shape{Name: "abstract"}}
	_, err = genEncode("kitchen", v)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "abstract")
	bad := bytes.Replace(got, []byte(`xsi:type="ns0:Circle"`), []byte(`xsi:type="ns0:Order"`), 1)
	err = genDecode(bad, "kitchen", &back)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "does not derive")
	assert.Error(t, codec.DecodeBytes(bad, el, nil))
}
