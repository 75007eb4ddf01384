package unixsock

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/soapwire/soapwire/core"
)

// delivery is one message out of an Inbox; its file stays open until it is
// settled.
type delivery struct {
	in   *Inbox
	it   *item
	m    *core.Message
	file *os.File

	mu      sync.Mutex
	settled byte // 0, 'a' (acked) or 'n' (nacked)
}

var _ core.Delivery = (*delivery)(nil)

func (d *delivery) Message() *core.Message { return d.m }

// settle records the first settlement: first is true for it; a repeat is
// a no-op, the other settlement core.ErrSettled.
func (d *delivery) settle(how byte) (first bool, err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	switch d.settled {
	case 0:
		d.settled = how
		_ = d.file.Close()
		return true, nil
	case how:
		return false, nil
	}
	return false, core.ErrSettled
}

// Ack deletes the stored message.
func (d *delivery) Ack(context.Context) error {
	first, err := d.settle('a')
	if !first {
		return err
	}
	if err := os.Remove(filepath.Join(d.in.dir, dirQueue, d.it.name)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("unixsock: ack %s: %w", d.it.name, err)
	}
	return nil
}

// Nack redelivers the message, or parks it with cause after its last
// attempt.
func (d *delivery) Nack(_ context.Context, cause error) error {
	first, err := d.settle('n')
	if !first {
		return err
	}
	return d.in.retry(d.it, d.m.Version(), cause)
}
