package imap

import (
	"fmt"

	"github.com/soapwire/soapwire/core"
)

var _ core.AddressChecker = (*Appender)(nil)

// CheckAddress reports whether the Appender can send to addr: an imap://
// or imaps:// folder of its own server and account (ErrAddress
// otherwise), as Send takes it. core.Serve asks it about a request's
// ReplyTo and FaultTo before the handler runs.
func (a *Appender) CheckAddress(addr string) error {
	to, err := parseAddress(addr)
	if err != nil {
		return err
	}
	if !a.e.sameAccount(to) {
		return fmt.Errorf("imap: %q is not on the Appender's account %s: %w", addr, a.e.withFolder(""), ErrAddress)
	}
	return nil
}
