package imap

import (
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
)

// tlsMode is how a connection is secured.
type tlsMode int

const (
	tlsImplicit tlsMode = iota // imaps://: TLS from the first byte
	tlsStartTLS                // imap://: STARTTLS required (WithPlaintext: or none)
)

// Default ports.
const (
	PortIMAP  = 143
	PortIMAPS = 993
)

// DefaultFolder is the folder an address without a path names.
const DefaultFolder = "INBOX"

// endpoint is a parsed imap:// or imaps:// address.
type endpoint struct {
	raw    string
	mode   tlsMode
	host   string
	port   int
	user   string
	folder string
}

func (e endpoint) addr() string { return net.JoinHostPort(e.host, strconv.Itoa(e.port)) }

// sameAccount reports whether f names the same server and account as e.
func (e endpoint) sameAccount(f endpoint) bool {
	return strings.EqualFold(e.host, f.host) && e.port == f.port && e.mode == f.mode && (f.user == "" || f.user == e.user)
}

// parseAddress reads "imap://user@host:port/Folder" or "imaps://…"; the
// folder is the path (percent-decoded; "INBOX" when empty). A password in
// the address, a query, a fragment, a wildcard or control character in the
// folder is ErrAddress.
func parseAddress(s string) (endpoint, error) {
	bad := func(why string) (endpoint, error) {
		return endpoint{}, fmt.Errorf("imap: address %q: %s: %w", s, why, ErrAddress)
	}
	u, err := url.Parse(s)
	if err != nil {
		return bad(err.Error())
	}
	e := endpoint{raw: s}
	switch strings.ToLower(u.Scheme) {
	case "imaps":
		e.mode, e.port = tlsImplicit, PortIMAPS
	case "imap":
		e.mode, e.port = tlsStartTLS, PortIMAP
	default:
		return bad("the scheme is not imap or imaps")
	}
	if u.Opaque != "" || u.Host == "" {
		return bad("no host")
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return bad("a query or fragment")
	}
	if u.User != nil {
		if _, set := u.User.Password(); set {
			return bad("a password in the address (use WithCredentials)")
		}
		e.user = u.User.Username()
	}
	e.host = u.Hostname()
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n <= 0 || n > 65535 {
			return bad("a bad port")
		}
		e.port = n
	}
	e.folder = strings.TrimPrefix(u.Path, "/")
	if e.folder == "" {
		e.folder = DefaultFolder
	}
	if err := checkFolder(e.folder); err != nil {
		return bad(err.Error())
	}
	return e, nil
}

// checkFolder refuses folder names an IMAP command could not carry as
// meant: control characters and LIST wildcards.
func checkFolder(name string) error {
	if name == "" {
		return fmt.Errorf("an empty folder name")
	}
	for _, c := range name {
		if c < ' ' || c == 0x7f || c == '*' || c == '%' {
			return fmt.Errorf("folder %q holds a control character or wildcard", name)
		}
	}
	return nil
}

// String is the address with folder f.
func (e endpoint) withFolder(f string) string {
	scheme := "imap"
	if e.mode == tlsImplicit {
		scheme = "imaps"
	}
	u := url.URL{Scheme: scheme, Host: e.addr(), Path: "/" + f}
	if e.user != "" {
		u.User = url.User(e.user)
	}
	if (e.mode == tlsImplicit && e.port == PortIMAPS) || (e.mode != tlsImplicit && e.port == PortIMAP) {
		u.Host = e.host
		if strings.Contains(e.host, ":") {
			u.Host = "[" + e.host + "]"
		}
	}
	return u.String()
}

// Address is a parsed imap:// or imaps:// address.
type Address struct {
	TLS    bool   // imaps://: TLS from the first byte; imap:// is STARTTLS (or, WithPlaintext, none)
	Host   string // the server's host
	Port   int    // its port (PortIMAPS or PortIMAP when the address gives none)
	User   string // the user, "" when the address names none
	Folder string // the folder, DefaultFolder when the address names none
}

// ParseAddress reads an imap:// or imaps:// address as NewReceiver and
// NewAppender do; a password in it, a query or fragment, or a control
// character or LIST wildcard in the folder is ErrAddress.
func ParseAddress(addr string) (Address, error) {
	e, err := parseAddress(addr)
	if err != nil {
		return Address{}, err
	}
	return Address{TLS: e.mode == tlsImplicit, Host: e.host, Port: e.port, User: e.user, Folder: e.folder}, nil
}
