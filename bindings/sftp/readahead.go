package sftp

import (
	"io"
)

// remoteReader reads a remote file from its start with ReadAt (pkg/sftp's
// File; a fake in tests), keeping its own offset.
//
// Its first read may be a read-ahead: the engine says what size the
// listing gave (drop.SizeExpecter) and gives the first read room beyond
// it; a plain read of that room asks for it and, once the file's bytes
// came, asks again at their end to find the end of the file: two round
// trips one after the other. readAhead sends both at once. The plain
// reader (ahead false) is the reference it is tested against.
type remoteReader struct {
	f      io.ReaderAt
	ahead  bool  // read ahead when a size is expected
	expect int64 // the listed size, until the first read
	off    int64
}

func (r *remoteReader) ExpectSize(n int64) {
	if r.ahead && r.off == 0 {
		r.expect = n
	}
}

func (r *remoteReader) Read(b []byte) (int, error) {
	var n int
	var err error
	if r.expect > 0 && r.off == 0 && int64(len(b)) > r.expect {
		n, err = readAhead(r.f, b, int(r.expect))
	} else {
		n, err = r.f.ReadAt(b, r.off)
	}
	r.expect = 0
	r.off += int64(n)
	return n, err
}

// readAhead reads b from the start of f as f.ReadAt(b, 0) does (bytes and
// error), where size < len(b) is the size the file is expected to have:
// the read of b[:size] and the read of b[size:] at offset size (which
// finds the end, or what the file gained) are sent at once. When the first
// comes back short or failed, its answer is the answer (the file shrank,
// or the read failed) and the second's is dropped, as the plain read would
// not have made it.
func readAhead(f io.ReaderAt, b []byte, size int) (int, error) {
	var n2 int
	var err2 error
	done := make(chan struct{})
	go func() {
		defer close(done)
		n2, err2 = f.ReadAt(b[size:], int64(size))
	}()
	n, err := f.ReadAt(b[:size], 0)
	<-done
	if n < size || (err != nil && err != io.EOF) {
		return n, err
	}
	return n + n2, err2
}
