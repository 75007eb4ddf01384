package soapenc_test

import (
	"encoding/xml"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/soapenc"
)

// tokenOnly hides the *xml.Decoder behind a plain TokenReader, so the
// Decoder reads Token (namespace-resolved by encoding/xml) instead of
// RawToken (resolved by soapenc).
type tokenOnly struct{ d *xml.Decoder }

func (r tokenOnly) Token() (xml.Token, error) { return r.d.Token() }

// readBoth reads body through RawToken and through Token.
func readBoth(body string) (raw, tok *soapenc.Element, rawErr, tokErr error) {
	raw, rawErr = soapenc.NewDecoder(xml.NewDecoder(strings.NewReader(body))).ReadBody()
	tok, tokErr = soapenc.NewDecoder(tokenOnly{xml.NewDecoder(strings.NewReader(body))}).ReadBody()
	return
}

// sameTree compares two element trees (names, types, text, nil, children;
// references followed) down to depth, visiting at most 10000 elements.
func sameTree(t testing.TB, a, b *soapenc.Element, depth int) {
	t.Helper()
	budget := 10000
	compareTree(t, a, b, depth, &budget, func(s string) string { return s })
}

// sameTreeAttrNorm is sameTree for a tree read by core, which normalizes
// white space in attribute values (XML 1.0 §3.3.3), against one read by
// encoding/xml, which does not: namespace URIs (from xmlns attributes) are
// compared with tab, newline and carriage return read as spaces.
func sameTreeAttrNorm(t testing.TB, a, b *soapenc.Element, depth int) {
	t.Helper()
	budget := 10000
	compareTree(t, a, b, depth, &budget, func(s string) string {
		return strings.NewReplacer("\t", " ", "\n", " ", "\r", " ").Replace(s)
	})
}

func compareTree(t testing.TB, a, b *soapenc.Element, depth int, budget *int, uri func(string) string) {
	t.Helper()
	if *budget--; *budget < 0 {
		return
	}
	name := func(n xml.Name) xml.Name { return xml.Name{Space: uri(n.Space), Local: n.Local} }
	require.Equal(t, name(a.Name), name(b.Name))
	require.Equal(t, name(a.Type()), name(b.Type()), "%s", a.Name.Local)
	require.Equal(t, a.Text(), b.Text(), "%s", a.Name.Local)
	require.Equal(t, a.IsNil(), b.IsNil(), "%s", a.Name.Local)
	ak, bk := a.Children(), b.Children()
	require.Equal(t, len(ak), len(bk), "%s", a.Name.Local)
	if depth == 0 {
		return
	}
	for i := range ak {
		compareTree(t, ak[i], bk[i], depth-1, budget, uri)
	}
}

// TestRawTokens: reading a fresh *xml.Decoder with RawToken gives the tree
// Token gives, for every encoded round-trip value.
func TestRawTokens(t *testing.T) {
	for _, tc := range roundTrips() {
		for _, v := range versions {
			x := encode(t, soapenc.Encoder{Version: v, MultiRefs: true, TypeNamespace: "urn:t"}, tc.in)
			raw, tok, rawErr, tokErr := readBoth(x)
			require.NoError(t, rawErr, x)
			require.NoError(t, tokErr, x)
			sameTree(t, raw, tok, 8)
		}
	}
	raw, tok, rawErr, tokErr := readBoth(`<m:op xmlns:m="urn:m" xmlns="urn:d"><a xml:lang="fr" xmlns:p="urn:p" p:x="1"><p:b/></a></m:op>`)
	require.NoError(t, rawErr)
	require.NoError(t, tokErr)
	sameTree(t, raw, tok, 8)
	assert.Equal(t, xml.Name{Space: "urn:p", Local: "b"}, raw.Children()[0].Children()[0].Name)
	assert.Equal(t, xml.Name{Space: "urn:d", Local: "a"}, raw.Children()[0].Name)
}

func TestRawTokenErrors(t *testing.T) {
	for _, body := range []string{
		`<a><b></a></b>`,
		`<a></b>`,
		`<p:a xmlns:q="urn:q"></p:a>`,
		`<a q:x="1"/>`,
		`<p:a xmlns:p="urn:p"></q:a>`,
		`<a xmlns="" xmlns="urn:x"/>`,
		`<a x="1" x="2"/>`,
		`<a ` + strings.Repeat(`b="1" `, 20) + `/>`,
	} {
		_, err := soapenc.NewDecoder(xml.NewDecoder(strings.NewReader(body))).ReadBody()
		assert.Error(t, err, body)
	}
}

// readCore reads body inside a SOAP 1.1 envelope through core, whose Body
// the Decoder reads with Next (tokens without copies).
func readCore(body string) (*soapenc.Element, error) {
	m, err := core.ReadMessage(strings.NewReader(`<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body>`+
		body+`</s:Body></s:Envelope>`), core.Limits{})
	if err != nil {
		return nil, err
	}
	return soapenc.NewDecoder(m.Body()).ReadBody()
}

// TestCoreBodyTokens: a core.Body read with Next gives the tree an
// xml.Decoder gives, for every encoded and literal round-trip value, and
// decodes to the same values.
func TestCoreBodyTokens(t *testing.T) {
	for _, tc := range roundTrips() {
		for _, enc := range []soapenc.Encoder{
			{Version: soapenc.V11, MultiRefs: true, TypeNamespace: "urn:t"},
			{Version: soapenc.V12, MultiRefs: true, TypeNamespace: "urn:t"},
			{Literal: true},
		} {
			x := encode(t, enc, tc.in)
			viaCore, err := readCore(x)
			require.NoError(t, err, x)
			sameTree(t, viaCore, read(t, 0, x), 8)
			if enc.Literal && strings.Contains(tc.name, "any") {
				continue
			}
			got := reflect.New(reflect.TypeOf(tc.in))
			require.NoError(t, viaCore.Decode(got.Interface()), x)
			assertSame(t, tc.in, got.Elem().Interface(), x)
		}
	}
	// the prefixes declared on the Envelope reach QName values
	m, err := core.ReadMessage(strings.NewReader(`<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:p="urn:p"><s:Body>`+
		`<m:op xmlns:m="urn:m"><n xsi:type="xsd:int">5</n><q xsi:type="xsd:QName">p:x</q></m:op></s:Body></s:Envelope>`), core.Limits{})
	require.NoError(t, err)
	el, err := soapenc.NewDecoder(m.Body()).ReadBody()
	require.NoError(t, err)
	var got map[string]any
	require.NoError(t, el.Decode(&got))
	assert.Equal(t, map[string]any{"n": int32(5), "q": xml.Name{Space: "urn:p", Local: "x"}}, got)
}
