package nats

import (
	"fmt"

	"github.com/soapwire/soapwire/core"
)

var (
	_ core.AddressChecker = (*Publisher)(nil)
	_ core.AddressChecker = (*Transport)(nil)
)

// CheckAddress reports whether the Publisher can send to addr: a nats:
// address of one subject, no wildcard (ErrAddress otherwise). An address
// of another scheme is refused, whatever default subject the Publisher
// has: core.Serve asks it about a request's ReplyTo and FaultTo before the
// handler runs, and an answer must go where the request said or nowhere.
func (p *Publisher) CheckAddress(addr string) error { return checkAddress(addr) }

// CheckAddress reports whether the Transport can send to addr, as
// Publisher.CheckAddress does.
func (t *Transport) CheckAddress(addr string) error { return checkAddress(addr) }

func checkAddress(addr string) error {
	if !isNATS(addr) {
		return fmt.Errorf("%w %q: not a nats: address", ErrAddress, addr)
	}
	_, err := destination(addr)
	return err
}
