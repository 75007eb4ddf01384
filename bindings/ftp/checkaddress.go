package ftp

import (
	"fmt"

	"github.com/soapwire/soapwire/core"
)

var _ core.AddressChecker = (*Sender)(nil)

// CheckAddress reports whether the Sender can send to addr: an ftp://
// folder on its Client's server (ErrAddress, ErrForeignServer otherwise),
// as Send takes it. core.Serve asks it about a request's ReplyTo and
// FaultTo before the handler runs.
func (s *Sender) CheckAddress(addr string) error {
	if _, err := s.c.Dir(addr); err != nil {
		return fmt.Errorf("ftp: %w", err)
	}
	return nil
}
