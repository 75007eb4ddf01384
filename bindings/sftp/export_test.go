package sftp

import "context"

// Hooks for the black-box tests.

// SetStall makes the server's reads of files named for which wait returns
// a channel wait until it is closed (a server gone silent mid-transfer).
func (s *Server) SetStall(wait func(name string) <-chan struct{}) { s.h.stall = wait }

// SetReadTrace tells read the offset of each of the server's file reads
// (SFTP READs), with the file's name.
func (s *Server) SetReadTrace(read func(name string, off int64)) { s.h.read = read }

// NewPollerPlain is NewPoller sending one request at a time, each after
// the previous one's answer (no read-ahead, no claim and open at once, the
// CLOSE awaited: the reference).
func NewPollerPlain(c *Client, root string, opts ...PollerOption) (*Poller, error) {
	return newPoller(&sftpFS{c: c, plain: true}, root, opts)
}

// NewSenderPlain is NewSender awaiting the CLOSE's answer before the
// rename (the reference).
func NewSenderPlain(c *Client, opts ...SenderOption) *Sender {
	s := NewSender(c, opts...)
	s.plain = true
	return s
}

// NewPollerWithoutPosixRename is NewPoller on a Client that acts as if the
// server had no posix-rename@openssh.com extension.
func NewPollerWithoutPosixRename(c *Client, root string, opts ...PollerOption) (*Poller, error) {
	return newPoller(&sftpFS{c: c, noPosix: true}, root, opts)
}

// NewSenderWithoutPosixRename is NewSender acting likewise.
func NewSenderWithoutPosixRename(c *Client, opts ...SenderOption) *Sender {
	s := NewSender(c, opts...)
	s.noPosix = true
	return s
}

// Warm logs n connections of c in at once (a pool's size at most) and
// leaves them idle in its pool.
func Warm(ctx context.Context, c *Client, n int) error {
	conns := make([]*conn, 0, n)
	defer func() {
		for _, cn := range conns {
			c.put(cn)
		}
	}()
	for range n {
		cn, err := c.get(ctx)
		if err != nil {
			return err
		}
		conns = append(conns, cn)
	}
	return nil
}
