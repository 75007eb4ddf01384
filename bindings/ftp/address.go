package ftp

import (
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"

	"github.com/soapwire/soapwire/bindings/internal/drop"
)

// Scheme is the URL scheme of the binding's addresses.
const Scheme = "ftp"

// Address is an ftp:// address: a folder on a server. Messages sent to it
// are stored in that folder.
type Address struct {
	Host string // host:port, port always present (21 when the URL has none)
	Dir  string // absolute, clean folder path ("/" for the root)
}

// String returns the address as an ftp:// URL.
func (a Address) String() string {
	return (&url.URL{Scheme: Scheme, Host: a.Host, Path: a.Dir}).String()
}

// ParseAddress reads ftp://host[:port]/folder. Credentials, a query or a
// fragment in the URL are refused (credentials come from the Client, never
// from an address a peer may have written); so is a path with "..", a
// backslash or a control character. The port defaults to 21.
func ParseAddress(s string) (Address, error) {
	u, err := url.Parse(s)
	if err != nil {
		return Address{}, fmt.Errorf("%w: %q: %v", ErrAddress, s, err)
	}
	switch {
	case !strings.EqualFold(u.Scheme, Scheme):
		return Address{}, fmt.Errorf("%w: %q: scheme is not ftp", ErrAddress, s)
	case u.Opaque != "":
		return Address{}, fmt.Errorf("%w: %q: not ftp://host/folder", ErrAddress, s)
	case u.User != nil:
		return Address{}, fmt.Errorf("%w: %q: credentials do not belong in the address (configure the Client)", ErrAddress, s)
	case u.RawQuery != "" || u.ForceQuery || u.Fragment != "":
		return Address{}, fmt.Errorf("%w: %q: query or fragment", ErrAddress, s)
	case u.Host == "" || u.Hostname() == "":
		return Address{}, fmt.Errorf("%w: %q: no host", ErrAddress, s)
	}
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if port == "" {
		port = "21"
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return Address{}, fmt.Errorf("%w: %q: bad port", ErrAddress, s)
	}
	if !drop.ValidHost(host) {
		return Address{}, fmt.Errorf("%w: %q: bad host", ErrAddress, s)
	}
	dir, err := cleanDir(u.Path)
	if err != nil {
		return Address{}, fmt.Errorf("%w: %q: %v", ErrAddress, s, err)
	}
	return Address{Host: net.JoinHostPort(host, port), Dir: dir}, nil
}

// cleanDir checks a folder path and makes it absolute and clean.
func cleanDir(p string) (string, error) { return drop.CleanDir(p) }
