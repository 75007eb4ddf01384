package smtp

import (
	"fmt"
	"strings"

	mailfmt "github.com/soapwire/soapwire/bindings/internal/mail"
	"github.com/soapwire/soapwire/core"
)

var _ core.AddressChecker = (*Sender)(nil)

// CheckAddress reports whether the Sender can send to addr: one mailto:
// address, as Send takes it (ErrAddress, ErrHeaderInjection otherwise).
// core.Serve asks it about a request's ReplyTo and FaultTo before the
// handler runs, so an http: ReplyTo on a service that answers by mail is
// refused before anything happens.
func (s *Sender) CheckAddress(addr string) error {
	if len(addr) < len("mailto:") || !strings.EqualFold(addr[:len("mailto:")], "mailto:") {
		return fmt.Errorf("smtp: %q is not a mailto: address: %w", addr, ErrAddress)
	}
	_, err := mailfmt.ParseMailto(addr)
	return err
}
