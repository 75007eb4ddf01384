package sftp

import (
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"

	"github.com/soapwire/soapwire/bindings/internal/drop"
)

// Scheme is the URL scheme of the binding's addresses.
const Scheme = "sftp"

// Address is an sftp:// address: a folder on a server, for an account.
type Address struct {
	User string // "" when the address names none (the Client's)
	Host string // host:port, port always present (22 when the URL has none)
	Dir  string // absolute, clean folder path
}

// String returns the address as an sftp:// URL.
func (a Address) String() string {
	u := &url.URL{Scheme: Scheme, Host: a.Host, Path: a.Dir}
	if a.User != "" {
		u.User = url.User(a.User)
	}
	return u.String()
}

// ParseAddress reads sftp://[user@]host[:port]/folder. A password, a query
// or a fragment is refused (credentials come from the Client, never from
// an address a peer may have written), and so is a path with "..", a
// backslash or a control character. The port defaults to 22.
func ParseAddress(s string) (Address, error) {
	u, err := url.Parse(s)
	if err != nil {
		return Address{}, fmt.Errorf("%w: %q: %v", ErrAddress, s, err)
	}
	switch {
	case !strings.EqualFold(u.Scheme, Scheme):
		return Address{}, fmt.Errorf("%w: %q: scheme is not sftp", ErrAddress, s)
	case u.Opaque != "":
		return Address{}, fmt.Errorf("%w: %q: not sftp://host/folder", ErrAddress, s)
	case u.User != nil && func() bool { _, set := u.User.Password(); return set }():
		return Address{}, fmt.Errorf("%w: %q: a password does not belong in the address (configure the Client)", ErrAddress, s)
	case u.RawQuery != "" || u.ForceQuery || u.Fragment != "":
		return Address{}, fmt.Errorf("%w: %q: query or fragment", ErrAddress, s)
	case u.Host == "" || u.Hostname() == "":
		return Address{}, fmt.Errorf("%w: %q: no host", ErrAddress, s)
	}
	var user string
	if u.User != nil {
		user = u.User.Username()
		if user == "" || strings.ContainsFunc(user, func(r rune) bool { return r < 0x20 || r == 0x7f || r == '/' }) {
			return Address{}, fmt.Errorf("%w: %q: bad user", ErrAddress, s)
		}
	}
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if port == "" {
		port = "22"
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return Address{}, fmt.Errorf("%w: %q: bad port", ErrAddress, s)
	}
	if !drop.ValidHost(host) {
		return Address{}, fmt.Errorf("%w: %q: bad host", ErrAddress, s)
	}
	dir, err := drop.CleanDir(u.Path)
	if err != nil {
		return Address{}, fmt.Errorf("%w: %q: %v", ErrAddress, s, err)
	}
	return Address{User: user, Host: net.JoinHostPort(host, port), Dir: dir}, nil
}
