package xsd

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"
)

//go:embed standard/*.xsd
var standardFS embed.FS

// Catalog maps URLs of documents to local copies, so that a contract that
// imports schemas by URL loads without a network. It also knows, for some
// namespaces, the document that describes them: an import that names such a
// namespace without a location, or a reference into it with no import, is
// resolved from the catalog.
type Catalog struct {
	docs       map[string]catalogDoc // by URL
	namespaces map[string]string     // namespace -> URL
}

type catalogDoc struct {
	fsys fs.FS
	name string
	key  string // one per document: two URLs of one document share it
}

// NewCatalog returns an empty catalog.
func NewCatalog() *Catalog {
	return &Catalog{docs: map[string]catalogDoc{}, namespaces: map[string]string{}}
}

// standardSchema is a schema soapwire ships (see standard/README.md): its
// file, namespace and the URLs it is published at.
type standardSchema struct {
	file, namespace string
	urls            []string
}

func standardSchemas() []standardSchema {
	return []standardSchema{
		{"xml.xsd", NamespaceXML, []string{"http://www.w3.org/2001/xml.xsd", "http://www.w3.org/2009/01/xml.xsd"}},
		{"xmlmime.xsd", "http://www.w3.org/2005/05/xmlmime", []string{"http://www.w3.org/2005/05/xmlmime", "http://www.w3.org/2005/05/xmlmime/xmlmime.xsd"}},
		{"xop-include.xsd", "http://www.w3.org/2004/08/xop/include", []string{"http://www.w3.org/2004/08/xop/include", "http://www.w3.org/2004/08/xop/include/xop-include.xsd"}},
		{"ws-addr.xsd", "http://www.w3.org/2005/08/addressing", []string{"http://www.w3.org/2005/08/addressing/ws-addr.xsd", "http://www.w3.org/2006/03/addressing/ws-addr.xsd", "http://www.w3.org/2005/08/addressing"}},
		{"soap12-envelope.xsd", "http://www.w3.org/2003/05/soap-envelope", []string{"http://www.w3.org/2003/05/soap-envelope"}},
		{"soap-encoding.xsd", NamespaceSOAPEnc, []string{NamespaceSOAPEnc}},
		{"soap12-encoding.xsd", NamespaceSOAP12Enc, []string{NamespaceSOAP12Enc}},
		{"wsdl.xsd", NamespaceWSDL, nil},
	}
}

// StandardCatalog returns a catalog of the standard schemas soapwire ships:
// xml.xsd, xmlmime, XOP include, WS-Addressing 1.0, the SOAP 1.2 envelope,
// the SOAP 1.1 and 1.2 encodings, and the WSDL namespace's arrayType. Each
// call returns a new catalog, which the caller may add to.
func StandardCatalog() *Catalog {
	c := NewCatalog()
	for _, s := range standardSchemas() {
		key := "soapwire:" + s.file
		c.docs[key] = catalogDoc{fsys: standardFS, name: "standard/" + s.file, key: key}
		for _, u := range s.urls {
			c.docs[u] = c.docs[key]
		}
		c.namespaces[s.namespace] = key
	}
	return c
}

// Add maps url to the document name in fsys.
func (c *Catalog) Add(url string, fsys fs.FS, name string) {
	key := "catalog:" + name
	for _, d := range c.docs {
		if d.name == name && d.fsys == fsys {
			key = d.key
		}
	}
	c.docs[url] = catalogDoc{fsys: fsys, name: name, key: key}
}

// AddNamespace says which URL (one added to the catalog) describes a
// namespace.
func (c *Catalog) AddNamespace(namespace, url string) {
	c.namespaces[namespace] = url
}

// ReadCatalog reads a catalog file of fsys: a JSON object whose "map" maps
// URLs to file names relative to the catalog file (the format of the
// catalog.json of soapwire's contract corpus), onto the standard catalog.
func ReadCatalog(fsys fs.FS, name string) (*Catalog, error) {
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, fmt.Errorf("xsd: catalog: %w", err)
	}
	var file struct {
		Map map[string]string `json:"map"`
	}
	if err := json.Unmarshal(b, &file); err != nil {
		return nil, fmt.Errorf("xsd: catalog %s: %w", name, err)
	}
	c := StandardCatalog()
	dir := path.Dir(name)
	for u, f := range file.Map {
		p := path.Join(dir, f)
		if !fs.ValidPath(p) {
			return nil, fmt.Errorf("xsd: catalog %s: %q is not a file beside it", name, f)
		}
		c.Add(u, fsys, p)
	}
	return c, nil
}

// lookup returns the catalog's document for a URL, trying it as written,
// then with the other of http and https, then with or without a final
// slash. key identifies the document (two URLs of one document give one
// key).
func (c *Catalog) lookup(url string) (key string, ok bool) {
	if c == nil {
		return "", false
	}
	var variants []string
	for _, u := range []string{url, swapScheme(url)} {
		variants = append(variants, u)
		if strings.HasSuffix(u, "/") {
			variants = append(variants, strings.TrimSuffix(u, "/"))
		} else {
			variants = append(variants, u+"/")
		}
	}
	for _, v := range variants {
		if d, ok := c.docs[v]; ok {
			return d.key, true
		}
	}
	return "", false
}

// byNamespace returns the URL of the document describing namespace.
func (c *Catalog) byNamespace(namespace string) (string, bool) {
	if c == nil {
		return "", false
	}
	if u, ok := c.namespaces[namespace]; ok {
		return u, true
	}
	if _, ok := c.lookup(namespace); ok {
		return namespace, true
	}
	return "", false
}

// open reads the catalog's document for a URL.
func (c *Catalog) open(url string) (io.ReadCloser, error) {
	for _, v := range []string{url, swapScheme(url), strings.TrimSuffix(url, "/"), url + "/", strings.TrimSuffix(swapScheme(url), "/"), swapScheme(url) + "/"} {
		if d, ok := c.docs[v]; ok {
			b, err := fs.ReadFile(d.fsys, d.name)
			if err != nil {
				return nil, err
			}
			return io.NopCloser(bytes.NewReader(b)), nil
		}
	}
	return nil, fmt.Errorf("%s is not in the catalog", url)
}

func swapScheme(u string) string {
	switch {
	case strings.HasPrefix(u, "http://"):
		return "https://" + u[len("http://"):]
	case strings.HasPrefix(u, "https://"):
		return "http://" + u[len("https://"):]
	}
	return u
}
