package file

import (
	"fmt"

	"github.com/soapwire/soapwire/core"
)

var _ core.AddressChecker = (*Sender)(nil)

// CheckAddress reports whether the Sender can send to addr: a file://
// folder below its root (ErrAddress, ErrOutsideRoot otherwise), as Send
// takes it. core.Serve asks it about a request's ReplyTo and FaultTo before
// the handler runs.
func (s *Sender) CheckAddress(addr string) error {
	if _, err := s.dir(addr); err != nil {
		return fmt.Errorf("file: %w", err)
	}
	return nil
}
