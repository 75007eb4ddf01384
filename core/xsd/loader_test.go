package xsd_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core/xsd"
)

func TestResolveLocation(t *testing.T) {
	for _, tc := range []struct{ base, ref, want, err string }{
		{"main.wsdl", "types.xsd", "types.xsd", ""},
		{"wsdl/context/a.wsdl", "../../sp/b.xsd", "sp/b.xsd", ""},
		{"wsdl/a.wsdl", `..\xsd\b.xsd`, "xsd/b.xsd", ""},
		{"wsdl/a.wsdl", "My%20Types.xsd", "wsdl/My Types.xsd", ""},
		{"wsdl/a.wsdl", "b.xsd?x=1", "wsdl/b.xsd", ""},
		{"/srv/a.wsdl", "b.xsd", "/srv/b.xsd", ""},
		{"a.wsdl", "../b.xsd", "../b.xsd", ""},
		{"http://example.com/svc?wsdl", "?xsd=1", "http://example.com/svc?xsd=1", ""},
		{"http://example.com/a/svc.wsdl", "../t/b.xsd", "http://example.com/t/b.xsd", ""},
		{"http://example.com/a/svc.wsdl", `x\b.xsd`, "http://example.com/a/x/b.xsd", ""},
		{"main.wsdl", "https://example.com/b.xsd", "https://example.com/b.xsd", ""},
		{"main.wsdl", "C:\\schemas\\b.xsd", "C:/schemas/b.xsd", ""},
		{"main.wsdl", " ", "", "an empty location"},
	} {
		got, err := xsd.ResolveLocation(tc.base, tc.ref)
		if tc.err != "" {
			assert.ErrorContains(t, err, tc.err, tc.ref)
			continue
		}
		require.NoError(t, err, tc.ref)
		assert.Equal(t, tc.want, got, "%s + %s", tc.base, tc.ref)
	}
	assert.True(t, xsd.IsURL("urn:x"))
	assert.False(t, xsd.IsURL(`C:\x`))
	assert.False(t, xsd.IsURL("a/b:c"))
}

func TestFSLoader(t *testing.T) {
	l := xsd.FSLoader(fstest.MapFS{"a.xsd": {Data: []byte("x")}})
	rc, err := l.Open(t.Context(), "a.xsd")
	require.NoError(t, err)
	rc.Close()
	_, err = l.Open(t.Context(), "http://example.com/a.xsd")
	assert.ErrorIs(t, err, xsd.ErrNotAllowed)
	_, err = l.Open(t.Context(), "../a.xsd")
	assert.ErrorContains(t, err, "not a path inside the loader's files")
	_, err = l.Open(t.Context(), "b.xsd")
	assert.ErrorIs(t, err, os.ErrNotExist)
}

// TestHTTPLoader: URLs are fetched only through an HTTP loader the caller
// adds, relative imports resolved as URLs; a failure says which.
func TestHTTPLoader(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/svc/a.xsd", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(schemaDoc(`<xs:import namespace="urn:b" schemaLocation="../types/b.xsd"/>`)))
	})
	mux.HandleFunc("/types/b.xsd", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" targetNamespace="urn:b"><xs:element name="b" type="xs:int"/></xs:schema>`))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)

	_, err := xsd.Load(t.Context(), xsd.MapLoader{}, srv.URL+"/svc/a.xsd")
	assert.ErrorIs(t, err, xsd.ErrNotAllowed, "no HTTP unless allowed")

	l := xsd.Loaders(xsd.FSLoader(fstest.MapFS{}), xsd.HTTPLoader(srv.Client()))
	set, err := xsd.Load(t.Context(), l, srv.URL+"/svc/a.xsd")
	require.NoError(t, err)
	e := set.Element(q("urn:b", "b"))
	require.NotNil(t, e)
	assert.Equal(t, srv.URL+"/types/b.xsd", e.Loc.File)

	_, err = xsd.Load(t.Context(), l, srv.URL+"/svc/nope.xsd")
	assert.ErrorContains(t, err, "404 Not Found")
	_, err = xsd.HTTPLoader(nil).Open(t.Context(), "a.xsd")
	assert.ErrorIs(t, err, xsd.ErrNotAllowed)

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err = xsd.Load(ctx, l, srv.URL+"/svc/a.xsd")
	assert.ErrorIs(t, err, context.Canceled)
}

// TestCatalog: the standard schemas load offline by URL (http or https)
// and by namespace; a catalog file adds URLs; without a catalog a
// reference into xml: does not resolve.
func TestCatalog(t *testing.T) {
	doc := schemaDoc(`<xs:import namespace="http://www.w3.org/XML/1998/namespace" schemaLocation="https://www.w3.org/2001/xml.xsd"/>
<xs:import namespace="urn:x" schemaLocation="http://example.com/x.xsd"/>
<xs:complexType name="T"><xs:attribute ref="xml:lang"/></xs:complexType>`)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "catalog.json"), []byte(`{"map": {"http://example.com/x.xsd": "copies/x.xsd"}}`), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "copies"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "copies", "x.xsd"), []byte(`<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" targetNamespace="urn:x"><xs:element name="x"/></xs:schema>`), 0o644))
	cat, err := xsd.ReadCatalog(os.DirFS(dir), "catalog.json")
	require.NoError(t, err)
	set, err := xsd.Load(t.Context(), xsd.MapLoader{"a.xsd": []byte(doc)}, "a.xsd", xsd.WithCatalog(cat))
	require.NoError(t, err)
	assert.NotNil(t, set.Element(q("urn:x", "x")))
	assert.NotNil(t, set.Attribute(q(xsd.NamespaceXML, "lang")))

	_, err = xsd.Load(t.Context(), xsd.MapLoader{"a.xsd": []byte(doc)}, "a.xsd")
	assert.ErrorIs(t, err, xsd.ErrNotAllowed, "the standard catalog does not have example.com")

	noImport := schemaDoc(`<xs:complexType name="T"><xs:attribute ref="xml:lang"/></xs:complexType>`)
	_, err = xsd.Load(t.Context(), xsd.MapLoader{"a.xsd": []byte(noImport)}, "a.xsd")
	require.NoError(t, err, "the xml namespace comes from the standard catalog")
	_, err = xsd.Load(t.Context(), xsd.MapLoader{"a.xsd": []byte(noImport)}, "a.xsd", xsd.WithCatalog(nil))
	assert.ErrorContains(t, err, "the attribute {http://www.w3.org/XML/1998/namespace}lang is not defined")

	_, err = xsd.ReadCatalog(os.DirFS(dir), "nope.json")
	assert.Error(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "bad.json"), []byte(`{"map": {"u": "../../etc/passwd"}}`), 0o644))
	_, err = xsd.ReadCatalog(os.DirFS(dir), "bad.json")
	assert.ErrorContains(t, err, "is not a file beside it")
}

// TestStandardCatalog: every schema soapwire ships loads on its own.
func TestStandardCatalog(t *testing.T) {
	for _, u := range []string{
		"http://www.w3.org/2001/xml.xsd", "http://www.w3.org/2005/05/xmlmime", "http://www.w3.org/2004/08/xop/include",
		"http://www.w3.org/2005/08/addressing/ws-addr.xsd", "http://www.w3.org/2003/05/soap-envelope",
		"http://schemas.xmlsoap.org/soap/encoding/", "http://www.w3.org/2003/05/soap-encoding",
	} {
		set, err := xsd.Load(t.Context(), xsd.MapLoader{}, u)
		require.NoError(t, err, u)
		assert.NotEmpty(t, set.Schemas(), u)
		assert.Empty(t, set.Warnings(), u)
	}
}
