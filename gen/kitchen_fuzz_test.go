package gen_test

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core/xsd"
	"github.com/soapwire/soapwire/gen/internal/kitchen"
)

// reflectiveLimit reports whether the reflective codec refused a message
// for what its Go side cannot hold (a Go interface, an attribute of an
// attribute wildcard), which the generated code holds: not a disagreement
// about the message.
func reflectiveLimit(err error) bool {
	s := err.Error()
	return strings.Contains(s, "cannot hold") || strings.Contains(s, "has no field for the attribute")
}

// FuzzKitchen: the generated codec and core/xsd's reflective codec agree
// on every input: both refuse it, or both read it into the same Go value,
// which both write to the same bytes (same bytes in, same value out; same
// value in, same bytes out).
func FuzzKitchen(f *testing.F) {
	set := kitchenSet(f)
	codec := xsd.NewCodec(set)
	el := set.Element(xml.Name{Space: kitchenNS, Local: "kitchen"})
	for _, v := range []*kitchen.Kitchen{fullKitchen(), derivedKitchen(), {}} {
		b, err := genEncode("kitchen", v)
		require.NoError(f, err)
		f.Add(b)
	}
	for _, s := range []string{
		`<k:kitchen xmlns:k="urn:kitchen"><k:unordered><k:z>z</k:z><k:x>1</k:x></k:unordered></k:kitchen>`,
		`<k:kitchen xmlns:k="urn:kitchen"><k:unordered><k:x>1</k:x><k:x>2</k:x><k:z>z</k:z></k:unordered></k:kitchen>`,
		`<k:kitchen xmlns:k="urn:kitchen"><k:unordered><k:x>1</k:x></k:unordered></k:kitchen>`,
		`<k:kitchen xmlns:k="urn:kitchen"><unordered><x>1</x><z/></unordered></k:kitchen>`,
		`<k:kitchen xmlns:k="urn:kitchen"><k:restricted><k:color>blue</k:color></k:restricted></k:kitchen>`,
		`<k:kitchen xmlns:k="urn:kitchen" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><k:circle xsi:nil="true"/></k:kitchen>`,
		`<k:kitchen xmlns:k="urn:kitchen"><k:circle><k:name>c</k:name><k:radius>INF</k:radius></k:circle></k:kitchen>`,
		`<k:kitchen xmlns:k="urn:kitchen"><k:circle id="x y"><k:name>c</k:name><k:radius>1</k:radius></k:circle></k:kitchen>`,
		`<k:kitchen xmlns:k="urn:kitchen"><k:order ref="r"><k:item xmlns:o="urn:kitchen:other" o:sku="s"><label> a  b </label><qty/></k:item><k:pickup/><k:key>k</k:key><k:key>l</k:key><k:val>v</k:val><k:total currency="c">1.005</k:total></k:order></k:kitchen>`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var byGen, byReflect kitchen.Kitchen
		genErr := genDecode(data, "kitchen", &byGen)
		refErr := codec.DecodeBytes(data, el, &byReflect)
		if refErr != nil && reflectiveLimit(refErr) {
			return
		}
		if (genErr == nil) != (refErr == nil) {
			t.Fatalf("the codecs disagree on\n%s\ngenerated: %v\nreflective: %v", data, genErr, refErr)
		}
		if genErr != nil {
			return
		}
		assert.Equal(t, byReflect, byGen, "read from\n%s", data)
		got, genErr := genEncode("kitchen", &byGen)
		var want bytes.Buffer
		refErr = codec.Encode(&want, el, &byReflect)
		if (genErr == nil) != (refErr == nil) {
			t.Fatalf("the codecs disagree writing what they read from\n%s\ngenerated: %v\nreflective: %v", data, genErr, refErr)
		}
		if genErr == nil {
			assert.Equal(t, want.String(), string(got), "written back from\n%s", data)
		}
	})
}
