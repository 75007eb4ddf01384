package file

import (
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/soapwire/soapwire/bindings/internal/drop"
)

// Scheme is the URL scheme of the binding's addresses.
const Scheme = "file"

// Address is a file:// address: a local folder. Messages sent to it are
// stored in that folder.
type Address struct {
	Dir string // absolute, clean folder path
}

// String returns the address as a file:// URL (file:///folder).
func (a Address) String() string {
	return (&url.URL{Scheme: Scheme, Path: a.Dir, OmitHost: false}).String()
}

// ParseAddress reads file:///folder (or file://localhost/folder). A host
// other than localhost, credentials, a query or a fragment are refused, and
// so is a path with "..", a backslash or a control character.
func ParseAddress(s string) (Address, error) {
	u, err := url.Parse(s)
	if err != nil {
		return Address{}, fmt.Errorf("%w: %q: %v", ErrAddress, s, err)
	}
	switch {
	case !strings.EqualFold(u.Scheme, Scheme):
		return Address{}, fmt.Errorf("%w: %q: scheme is not file", ErrAddress, s)
	case u.Opaque != "":
		return Address{}, fmt.Errorf("%w: %q: not file:///folder", ErrAddress, s)
	case u.User != nil:
		return Address{}, fmt.Errorf("%w: %q: credentials in a file address", ErrAddress, s)
	case u.RawQuery != "" || u.ForceQuery || u.Fragment != "":
		return Address{}, fmt.Errorf("%w: %q: query or fragment", ErrAddress, s)
	case u.Host != "" && !strings.EqualFold(u.Host, "localhost"):
		return Address{}, fmt.Errorf("%w: %q: a file address names a local folder (no host but localhost)", ErrAddress, s)
	case !strings.HasPrefix(u.Path, "/"):
		return Address{}, fmt.Errorf("%w: %q: not an absolute folder", ErrAddress, s)
	}
	dir, err := drop.CleanDir(u.Path)
	if err != nil {
		return Address{}, fmt.Errorf("%w: %q: %v", ErrAddress, s, err)
	}
	return Address{Dir: dir}, nil
}

// URL returns the file:// address of a local folder.
func URL(dir string) string {
	d, err := drop.CleanDir(filepath.ToSlash(dir))
	if err != nil {
		d = "/"
	}
	return Address{Dir: d}.String()
}
