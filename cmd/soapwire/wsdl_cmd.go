package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/soapwire/soapwire/core/wsdl"
	"github.com/soapwire/soapwire/core/xsd"
)

const wsdlSynopsis = `Usage: soapwire wsdl [flags] FILE|URL

Reads a WSDL 1.1 contract with every WSDL and schema document it imports
and prints its services, ports and addresses, every operation of every SOAP
port with its style, action, input and output (the element the Body holds,
its parameters, header parts), faults, the types they use expanded, and the
warnings: what the reader does not apply (WS-Policy, say). A contract that
cannot be read is an error listing every problem with its file and line
(exit code 1).

The standard schemas contracts import by URL (xml.xsd, xmlmime, XOP,
WS-Addressing, the SOAP envelope and encodings) come from the copies
soapwire ships; --catalog adds a catalog of local copies (a JSON file whose
"map" maps URLs to files beside it). A URL given as the argument is fetched,
and so are the imports on the same host (a WSDL and its ?xsd=N schemas);
other URLs are fetched only with --fetch.

Notation: "name?" may be absent, "name*" repeats, "name+" repeats at least
once, "name[2..5]" other bounds; "nillable" may be xsi:nil; "@name" is an
attribute; choice(a | b); an anonymous type is written in braces, that of a
global element a particle refers to ("name: element") under Elements.

Examples:
  soapwire wsdl service.wsdl
  soapwire wsdl https://example.org/soap/orders?wsdl
  soapwire wsdl --catalog schemas/catalog.json --fetch partner.wsdl
`

func runWSDL(ctx context.Context, c *cli, args []string) int {
	fs := flag.NewFlagSet("wsdl", flag.ContinueOnError)
	catalog := fs.String("catalog", "", "a catalog `FILE` (JSON) of local copies of documents imported by URL")
	fetch := fs.Bool("fetch", false, "fetch documents imported by URL from any host (not only the one of the URL given)")
	user := fs.String("http-user", envOr(envHTTPUser, ""), "HTTP Basic user for fetching from the URL's host (password from "+envHTTPPassword+")")
	timeout := fs.Duration("timeout", 30*time.Second, "give up fetching and reading after this long")
	pos, code, done := c.parseFlags(fs, wsdlSynopsis, args)
	if done {
		return code
	}
	switch {
	case len(pos) == 0:
		return c.usageError("wsdl", errors.New("a WSDL FILE or URL is required"))
	case len(pos) > 1:
		return c.usageError("wsdl", fmt.Errorf("unexpected argument %q", pos[1]))
	}
	if *timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *timeout)
		defer cancel()
	}
	opts := []xsd.Option{}
	if *catalog != "" {
		abs, err := filepath.Abs(*catalog)
		if err != nil {
			return c.fail("wsdl", err)
		}
		cat, err := xsd.ReadCatalog(os.DirFS(filepath.Dir(abs)), filepath.Base(abs))
		if err != nil {
			return c.usageError("wsdl", err)
		}
		opts = append(opts, xsd.WithCatalog(cat))
	}
	src := pos[0]
	loader := contractLoader(src, *fetch, httpSettings{user: *user, password: os.Getenv(envHTTPPassword)})
	ct, err := wsdl.Load(ctx, loader, src, opts...)
	if err != nil {
		return c.contractError("wsdl", redactURL(src), err)
	}
	if err := ct.Describe(c.stdout); err != nil {
		return c.fail("wsdl", err)
	}
	return exitOK
}

// contractError reports a contract that cannot be read: every problem on
// a line of its own.
func (c *cli) contractError(cmd, src string, err error) int {
	var xe *xsd.Error
	if !errors.As(err, &xe) {
		fmt.Fprintf(c.stderr, "soapwire %s: %s: %s\n", cmd, src, strings.TrimPrefix(err.Error(), "wsdl: "))
		return exitFailure
	}
	fmt.Fprintf(c.stderr, "soapwire %s: %s: the contract cannot be read (%d problems):\n", cmd, src, len(xe.Problems))
	for _, p := range xe.Problems {
		fmt.Fprintf(c.stderr, "  %s\n", p)
	}
	return exitFailure
}

// contractLoader opens local files, the URL given and, on its host, the
// documents it imports; other hosts only with fetchAll.
func contractLoader(src string, fetchAll bool, creds httpSettings) xsd.Loader {
	files := xsd.LoaderFunc(func(_ context.Context, location string) (io.ReadCloser, error) {
		if xsd.IsURL(location) {
			return nil, fmt.Errorf("fetching %s: %w", location, xsd.ErrNotAllowed)
		}
		return os.Open(location)
	})
	origin := ""
	if u, err := url.Parse(src); err == nil && xsd.IsURL(src) {
		origin = u.Scheme + "://" + u.Host
	}
	client := &http.Client{}
	fetcher := xsd.HTTPLoader(client)
	web := xsd.LoaderFunc(func(ctx context.Context, location string) (io.ReadCloser, error) {
		u, err := url.Parse(location)
		if err != nil || u.Scheme != "http" && u.Scheme != "https" {
			return nil, fmt.Errorf("opening %s: %w (only files and http(s) URLs are read)", location, xsd.ErrNotAllowed)
		}
		same := origin != "" && u.Scheme+"://"+u.Host == origin
		if !same && !fetchAll {
			return nil, fmt.Errorf("fetching %s: %w (not the host of the URL given: --fetch fetches it, or give a --catalog with a local copy)", redactURL(location), xsd.ErrNotAllowed)
		}
		if same && creds.user != "" {
			return basicAuthFetch(ctx, client, location, creds)
		}
		return fetcher.Open(ctx, location)
	})
	return xsd.Loaders(files, web)
}

// basicAuthFetch GETs location with HTTP Basic credentials.
func basicAuthFetch(ctx context.Context, client *http.Client, location string, creds httpSettings) (io.ReadCloser, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, location, nil)
	if err != nil {
		return nil, err
	}
	req.SetBasicAuth(creds.user, creds.password)
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, fmt.Errorf("fetching %s: %s", redactURL(location), resp.Status)
	}
	return resp.Body, nil
}
