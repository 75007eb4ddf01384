package xsd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"path"
	"strings"
)

// Loader opens the documents a contract is made of, by location: what the
// caller names first, then what the documents import, resolved against the
// location of the document that imports them (see ResolveLocation). A
// Loader that does not open a kind of location returns an error wrapping
// ErrNotAllowed.
type Loader interface {
	Open(ctx context.Context, location string) (io.ReadCloser, error)
}

// LoaderFunc adapts a function to a Loader.
type LoaderFunc func(ctx context.Context, location string) (io.ReadCloser, error)

func (f LoaderFunc) Open(ctx context.Context, location string) (io.ReadCloser, error) {
	return f(ctx, location)
}

// FSLoader opens files of fsys: locations are slash-separated paths inside
// it ("wsdl/service.wsdl"); a URL is ErrNotAllowed.
func FSLoader(fsys fs.FS) Loader {
	return LoaderFunc(func(_ context.Context, location string) (io.ReadCloser, error) {
		if IsURL(location) {
			return nil, fmt.Errorf("fetching %s: %w (a URL not in the catalog, and no HTTP loader)", location, ErrNotAllowed)
		}
		if !fs.ValidPath(location) {
			return nil, fmt.Errorf("opening %s: not a path inside the loader's files (absolute, or climbing above their root)", location)
		}
		return fsys.Open(location)
	})
}

// MapLoader holds documents in memory by location.
type MapLoader map[string][]byte

func (m MapLoader) Open(_ context.Context, location string) (io.ReadCloser, error) {
	b, ok := m[location]
	if !ok {
		if IsURL(location) {
			return nil, fmt.Errorf("fetching %s: %w (a URL not in the catalog, and no HTTP loader)", location, ErrNotAllowed)
		}
		return nil, &fs.PathError{Op: "open", Path: location, Err: fs.ErrNotExist}
	}
	return io.NopCloser(bytes.NewReader(b)), nil
}

// HTTPLoader fetches http and https URLs with client (http.DefaultClient
// when nil; give one with a timeout). An answer other than 200 is an error;
// other locations are ErrNotAllowed. Combine it with a file loader with
// Loaders; the load's limits bound what is read.
func HTTPLoader(client *http.Client) Loader {
	if client == nil {
		client = http.DefaultClient
	}
	return LoaderFunc(func(ctx context.Context, location string) (io.ReadCloser, error) {
		u, err := url.Parse(location)
		if err != nil || u.Scheme != "http" && u.Scheme != "https" {
			return nil, fmt.Errorf("opening %s: %w (not an http or https URL)", location, ErrNotAllowed)
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, location, nil)
		if err != nil {
			return nil, err
		}
		req.Header.Set("Accept", "application/wsdl+xml, application/xml, text/xml, */*;q=0.5")
		resp, err := client.Do(req)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode != http.StatusOK {
			resp.Body.Close()
			return nil, fmt.Errorf("fetching %s: %s", location, resp.Status)
		}
		return resp.Body, nil
	})
}

// Loaders tries each loader in turn, passing a location on while they
// answer ErrNotAllowed.
func Loaders(ls ...Loader) Loader {
	return LoaderFunc(func(ctx context.Context, location string) (io.ReadCloser, error) {
		err := fmt.Errorf("opening %s: %w (no loader)", location, ErrNotAllowed)
		for _, l := range ls {
			var rc io.ReadCloser
			rc, err = l.Open(ctx, location)
			if err == nil || !errors.Is(err, ErrNotAllowed) {
				return rc, err
			}
		}
		return nil, err
	})
}

// IsURL reports whether a location is an absolute URL (it has a scheme of
// two letters or more: a Windows drive letter is not one).
func IsURL(location string) bool {
	i := strings.IndexByte(location, ':')
	if i < 2 {
		return false
	}
	for j, c := range location[:i] {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || j > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return false
		}
	}
	return true
}

// ResolveLocation resolves ref (a schemaLocation or a wsdl:import location)
// against base, the location of the document it is written in: an absolute
// URL stays as it is; against a URL, ref is resolved as a URL reference;
// against a path, as a path relative to the base's folder (backslashes read
// as slashes, %-escapes decoded, a query or fragment dropped). Whether a
// path may climb above some root ("../x.xsd") is the Loader's to say.
func ResolveLocation(base, ref string) (string, error) {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return "", errors.New("an empty location")
	}
	if IsURL(ref) {
		return ref, nil
	}
	if IsURL(base) {
		b, err := url.Parse(base)
		if err != nil {
			return "", fmt.Errorf("the location %q: %w", base, err)
		}
		r, err := url.Parse(strings.ReplaceAll(ref, `\`, "/"))
		if err != nil {
			return "", fmt.Errorf("the location %q: %w", ref, err)
		}
		return b.ResolveReference(r).String(), nil
	}
	ref = strings.ReplaceAll(ref, `\`, "/")
	if u, err := url.PathUnescape(ref); err == nil {
		ref = u
	}
	if i := strings.IndexAny(ref, "?#"); i >= 0 {
		ref = ref[:i]
	}
	var p string
	if strings.HasPrefix(ref, "/") {
		p = path.Clean(ref)
	} else {
		p = path.Join(path.Dir(base), ref)
	}
	return p, nil
}
