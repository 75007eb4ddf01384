package main_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core/coretest"
)

const readContracts = "../../core/wsdl/testdata/read"

// TestWSDLCommand: soapwire wsdl prints a contract read from files, from
// its URL (with the schemas on that host), and says why it cannot read one.
func TestWSDLCommand(t *testing.T) {
	res := invocation{args: []string{"wsdl", "calc.wsdl"}, dir: readContracts}.run(t)
	require.Equal(t, 0, res.code, "%s", res)
	want, err := os.ReadFile(filepath.Join(readContracts, "calc.txt"))
	require.NoError(t, err)
	assert.Equal(t, string(want), res.stdout, "what core/wsdl's Describe golden pins")
	assert.Empty(t, res.stderr)
	res = soapwire(t, "wsdl", filepath.Join(readContracts, "rpc.wsdl"))
	require.Equal(t, 0, res.code, "%s", res)
	assert.True(t, strings.HasPrefix(res.stdout, "Contract "+filepath.Join(readContracts, "rpc.wsdl")+" (target namespace urn:rpc)\n"), res.stdout)

	bad := writeFile(t, "bad.wsdl", `<definitions xmlns="http://schemas.xmlsoap.org/wsdl/" xmlns:tns="urn:t" targetNamespace="urn:t">
<message name="m"><part name="p" element="tns:nope"/></message>
<portType name="P"><operation name="o"><input message="tns:other"/></operation></portType>
</definitions>`)
	res = soapwire(t, "wsdl", bad)
	assert.Equal(t, 1, res.code)
	assert.Empty(t, res.stdout)
	assert.Contains(t, res.stderr, "soapwire wsdl: "+bad+": the contract cannot be read (2 problems):\n")
	assert.Contains(t, res.stderr, "  "+bad+":3: the message {urn:t}other is not defined\n")
	assert.Contains(t, res.stderr, "  "+bad+":2: the element {urn:t}nope of the part p of the message m is not defined\n")

	res = soapwire(t, "wsdl", filepath.Join(t.TempDir(), "nope.wsdl"))
	assert.Equal(t, 1, res.code)
	assert.Contains(t, res.stderr, "no such file or directory")

	res = soapwire(t, "wsdl")
	assert.Equal(t, 2, res.code)
	assert.Contains(t, res.stderr, "soapwire wsdl: a WSDL FILE or URL is required")
	res = soapwire(t, "wsdl", "a.wsdl", "b.wsdl")
	assert.Equal(t, 2, res.code)
	res = soapwire(t, "wsdl", "--help")
	assert.Equal(t, 0, res.code)
	assert.Contains(t, res.stdout, "Usage: soapwire wsdl [flags] FILE|URL")
}

// serveContract serves a WSDL at /svc?wsdl whose schema is at /svc?xsd=1
// (as JAX-WS and WCF publish them), importing whatever other holds.
func serveContract(t *testing.T, other string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); ok && (u != "partner" || p != "secret") {
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		switch r.URL.RawQuery {
		case "wsdl":
			w.Write([]byte(`<definitions xmlns="http://schemas.xmlsoap.org/wsdl/" xmlns:soap="http://schemas.xmlsoap.org/wsdl/soap/" xmlns:tns="urn:t" targetNamespace="urn:t">
<types><xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"><xs:import namespace="urn:t" schemaLocation="svc?xsd=1"/>` + other + `</xs:schema></types>
<message name="m"><part name="parameters" element="tns:ping"/></message>
<portType name="P"><operation name="ping"><input message="tns:m"/></operation></portType>
<binding name="B" type="tns:P"><soap:binding style="document" transport="http://schemas.xmlsoap.org/soap/http"/><operation name="ping"><input><soap:body use="literal"/></input></operation></binding>
<service name="S"><port name="Q" binding="tns:B"><soap:address location="http://127.0.0.1/svc"/></port></service>
</definitions>`))
		case "xsd=1":
			w.Write([]byte(`<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" targetNamespace="urn:t" elementFormDefault="qualified"><xs:element name="ping"><xs:complexType><xs:sequence><xs:element name="n" type="xs:int"/></xs:sequence></xs:complexType></xs:element></xs:schema>`))
		case "other":
			w.Write([]byte(`<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" targetNamespace="urn:o"/>`))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestWSDLCommandFetches: the URL given and its host's imports are fetched;
// another host only with --fetch, or from a --catalog.
func TestWSDLCommandFetches(t *testing.T) {
	srv := serveContract(t, "")
	res := soapwire(t, "wsdl", srv.URL+"/svc?wsdl")
	require.Equal(t, 0, res.code, "%s", res)
	assert.Contains(t, res.stdout, "ping (document/literal wrapped, one-way)\n      in:  ns0:ping(ns0:n: xsd:int)\n")

	res = invocation{args: []string{"wsdl", "--http-user", "partner", srv.URL + "/svc?wsdl"}, env: []string{"SOAPWIRE_HTTP_PASSWORD=wrong"}}.run(t)
	assert.Equal(t, 1, res.code)
	assert.Contains(t, res.stderr, "401 Unauthorized")

	elsewhere := serveContract(t, "")
	imp := `<xs:import namespace="urn:o" schemaLocation="` + elsewhere.URL + `/x?other"/>`
	srv = serveContract(t, imp)
	res = soapwire(t, "wsdl", srv.URL+"/svc?wsdl")
	assert.Equal(t, 1, res.code)
	assert.Contains(t, res.stderr, "not the host of the URL given: --fetch fetches it, or give a --catalog with a local copy")
	res = soapwire(t, "wsdl", "--fetch", srv.URL+"/svc?wsdl")
	assert.Equal(t, 0, res.code, "%s", res)

	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "other.xsd"), []byte(`<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" targetNamespace="urn:o"/>`), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "catalog.json"), []byte(`{"map": {"`+elsewhere.URL+`/x?other": "other.xsd"}}`), 0o600))
	res = soapwire(t, "wsdl", "--catalog", filepath.Join(dir, "catalog.json"), srv.URL+"/svc?wsdl")
	assert.Equal(t, 0, res.code, "%s", res)

	local := writeFile(t, "local.wsdl", `<definitions xmlns="http://schemas.xmlsoap.org/wsdl/"><import namespace="urn:x" location="`+srv.URL+`/svc?wsdl"/></definitions>`)
	res = soapwire(t, "wsdl", local)
	assert.Equal(t, 1, res.code, "a local file's URL imports are not fetched without --fetch")
	assert.Contains(t, res.stderr, "not allowed by the loader")
}

// TestWSDLCommandCorpus: soapwire wsdl prints each contract of the corpus
// as core/wsdl's golden files pin it.
func TestWSDLCommandCorpus(t *testing.T) {
	dir := os.Getenv("SOAPWIRE_WSDL_CORPUS")
	if dir == "" {
		root, err := filepath.Abs("../..")
		require.NoError(t, err)
		for _, c := range []string{"../shared/wsdl-corpus", "../../shared/wsdl-corpus"} {
			if _, err := os.Stat(filepath.Join(root, c, "index.json")); err == nil {
				dir = filepath.Join(root, c)
				break
			}
		}
	}
	if dir == "" {
		coretest.RequirePeer(t, "wsdl-corpus", errors.New("no ../shared/wsdl-corpus beside the repository (set SOAPWIRE_WSDL_CORPUS to its folder)"))
	}
	b, err := os.ReadFile(filepath.Join(dir, "index.json"))
	require.NoError(t, err)
	var idx struct {
		Cases map[string]struct {
			Entry string `json:"entry"`
		} `json:"cases"`
	}
	require.NoError(t, json.Unmarshal(b, &idx))
	ids := make([]string, 0, len(idx.Cases))
	for id := range idx.Cases {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	golden, err := filepath.Abs("../../core/wsdl/testdata/corpus")
	require.NoError(t, err)
	for _, id := range ids {
		t.Run(id, func(t *testing.T) {
			res := invocation{args: []string{"wsdl", idx.Cases[id].Entry}, dir: filepath.Join(dir, "cases", id)}.run(t)
			require.Equal(t, 0, res.code, "%s", res)
			want, err := os.ReadFile(filepath.Join(golden, id+".txt"))
			require.NoError(t, err)
			assert.Equal(t, string(want), res.stdout)
		})
	}
}
