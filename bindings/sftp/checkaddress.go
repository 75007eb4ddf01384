package sftp

import (
	"fmt"

	"github.com/soapwire/soapwire/core"
)

var _ core.AddressChecker = (*Sender)(nil)

// CheckAddress reports whether the Sender can send to addr: an sftp://
// folder on its Client's server and account (ErrAddress, ErrForeignServer
// otherwise), as Send takes it. core.Serve asks it about a request's
// ReplyTo and FaultTo before the handler runs.
func (s *Sender) CheckAddress(addr string) error {
	if _, err := s.c.Dir(addr); err != nil {
		return fmt.Errorf("sftp: %w", err)
	}
	return nil
}
