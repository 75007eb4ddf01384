package http

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/soapwire/soapwire/core"
)

var _ core.AddressChecker = (*Transport)(nil)

// CheckAddress reports whether the Transport can send to addr: an http://
// or https:// URL with a host (an error otherwise). An address of another
// scheme is refused, whatever URL the Transport was made with: core.Serve
// asks it about a request's ReplyTo and FaultTo before the handler runs,
// and an answer must go where the request said or nowhere.
func (t *Transport) CheckAddress(addr string) error {
	u, err := url.Parse(addr)
	if err != nil {
		return fmt.Errorf("http: %q is not a URL: %w", addr, err)
	}
	if s := strings.ToLower(u.Scheme); s != "http" && s != "https" || u.Host == "" {
		return fmt.Errorf("http: %q is not an http(s) URL with a host", addr)
	}
	return nil
}
