package smtp

import (
	"fmt"

	"github.com/soapwire/soapwire/core"
)

var _ core.AddressChecker = (*Sender)(nil)

// CheckAddress reports whether the Sender can send to addr: one mailto:
// address, as Send takes it (ErrAddress, ErrHeaderInjection otherwise).
// core.Serve asks it about a request's ReplyTo and FaultTo before the
// handler runs, so an http: ReplyTo on a service that answers by mail is
// refused before anything happens.
func (s *Sender) CheckAddress(addr string) error {
	if !hasPrefixFold(addr, "mailto:") {
		return fmt.Errorf("smtp: %q is not a mailto: address: %w", addr, ErrAddress)
	}
	_, err := parseMailto(addr)
	return err
}
