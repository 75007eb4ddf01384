package sftp

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeFile is a file read with ReadAt as pkg/sftp's File reads one:
// request after request (each answer at most short bytes when short > 0)
// until the buffer is full or an answer is an error (io.EOF at the end).
// Like OpenSSH's sftp-server, it answers one connection's requests in
// order: a read at another offset than 0 waits until the first answer
// at 0 was given, and then (after) the file has grown or shrunk when
// after is set (a file that changes while it is read). It fails answers
// at or beyond failAt (-1: none), and a full read up to the end says
// io.EOF when fullEOF.
type fakeFile struct {
	spec
	mu       sync.Mutex
	reads    []int64 // the offsets of the reads asked
	answered chan struct{}
	once     sync.Once
}

type spec struct {
	data    []byte
	after   []byte
	failAt  int64
	fullEOF bool
	short   int
}

var errInjected = errors.New("injected read failure")

func newFake(s spec) *fakeFile {
	s.data = bytes.Clone(s.data)
	return &fakeFile{spec: s, answered: make(chan struct{})}
}

// answer is one READ: up to len(b) bytes at off.
func (f *fakeFile) answer(b []byte, off int64) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if off == 0 {
		defer f.once.Do(func() {
			if f.after != nil {
				f.data = f.after
			}
			close(f.answered)
		})
	}
	switch {
	case f.failAt >= 0 && off >= f.failAt:
		return 0, fmt.Errorf("read at %d: %w", off, errInjected)
	case off >= int64(len(f.data)):
		return 0, io.EOF
	}
	end := int64(len(f.data))
	if f.failAt >= 0 {
		end = min(end, f.failAt)
	}
	k := copy(b, f.data[off:end])
	if f.short > 0 {
		k = min(k, f.short)
	}
	return k, nil
}

func (f *fakeFile) ReadAt(b []byte, off int64) (int, error) {
	f.mu.Lock()
	f.reads = append(f.reads, off)
	f.mu.Unlock()
	if off != 0 {
		<-f.answered
	}
	n := 0
	for n < len(b) {
		k, err := f.answer(b[n:], off+int64(n))
		n += k
		if err != nil {
			return n, err
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fullEOF && off+int64(n) == int64(len(f.data)) {
		return n, io.EOF
	}
	return n, nil
}

// readAll reads r as the drop engine does: a first read with room for
// the listed size and 512 bytes, then 512-byte reads until an error; it
// returns the bytes and the error that ended them (io.EOF: the end).
func readAll(r io.Reader, listed int64) ([]byte, error) {
	var out []byte
	b := make([]byte, listed+512)
	for {
		n, err := r.Read(b)
		out = append(out, b[:n]...)
		if err != nil {
			return out, err
		}
		b = b[:512]
	}
}

// TestReadAheadAsReference: the read-ahead reader returns the same bytes
// and the same error as the plain reader (the reference: one ReadAt at a
// time), for a file of the listed size, one grown or shrunk since, empty,
// larger than the first read's room, answered in short pieces, whose full
// reads say io.EOF, and with a read failing at the start, inside, at the
// end and beyond it; its first read asks for the listed size and for what
// follows (two reads, at 0 and at the size), as one.
func TestReadAheadAsReference(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789abcdef"), 64) // 1 KiB
	grown := append(bytes.Clone(data), "more"...)
	for _, c := range []struct {
		name   string
		f      spec
		listed int64
	}{
		{"listed size", spec{data: data, failAt: -1}, 1024},
		{"grown since", spec{data: grown, failAt: -1}, 1024},
		{"grown past the room", spec{data: append(bytes.Clone(data), bytes.Repeat([]byte("m"), 2000)...), failAt: -1}, 1024},
		{"grown while read", spec{data: data, after: grown, failAt: -1}, 1024},
		{"shrunk since", spec{data: data[:700], failAt: -1}, 1024},
		{"shrunk while read", spec{data: data, after: data[:700], failAt: -1}, 1024},
		{"emptied", spec{data: nil, failAt: -1}, 1024},
		{"listed empty", spec{data: data, failAt: -1}, 0},
		{"listed 1 byte", spec{data: data[:1], failAt: -1}, 1},
		{"short answers", spec{data: data, short: 100, failAt: -1}, 1024},
		{"full read says EOF", spec{data: data, fullEOF: true, failAt: -1}, 1024},
		{"fails at the start", spec{data: data, failAt: 0}, 1024},
		{"fails inside", spec{data: data, failAt: 500}, 1024},
		{"fails at the end", spec{data: data, failAt: 1024}, 1024},
		{"fails beyond, grown", spec{data: grown, failAt: 1026}, 1024},
		{"fails inside, short answers", spec{data: data, failAt: 500, short: 100}, 1024},
	} {
		t.Run(c.name, func(t *testing.T) {
			ref := newFake(c.f)
			plain := &remoteReader{f: ref}
			plain.ExpectSize(c.listed)
			want, wantErr := readAll(plain, c.listed)

			f := newFake(c.f)
			ahead := &remoteReader{f: f, ahead: true}
			ahead.ExpectSize(c.listed)
			got, gotErr := readAll(ahead, c.listed)

			assert.Equal(t, want, got, "bytes")
			if wantErr == io.EOF {
				assert.Equal(t, io.EOF, gotErr)
			} else {
				assert.ErrorIs(t, gotErr, errInjected)
				assert.Equal(t, wantErr.Error(), gotErr.Error())
			}
			if c.listed > 0 && c.f.failAt != 0 {
				require.GreaterOrEqual(t, len(f.reads), 2)
				assert.ElementsMatch(t, []int64{0, c.listed}, f.reads[:2], "the first two reads")
			}
		})
	}
}

// TestReadAheadInFlightTogether: the read-ahead's two reads are in flight
// at once: the read at 0 is answered only once the read at the listed
// size has been asked (sent one after the other, the first would wait
// for good).
func TestReadAheadInFlightTogether(t *testing.T) {
	data := bytes.Repeat([]byte("x"), 1024)
	f := newFake(spec{data: data, failAt: -1})
	asked := make(chan struct{})
	r := &remoteReader{f: &gate{f: f, size: 1024, asked: asked}, ahead: true}
	r.ExpectSize(1024)
	done := make(chan struct{})
	var got []byte
	var err error
	go func() {
		defer close(done)
		got, err = readAll(r, 1024)
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("the read at 0 waited for good: the read at the end was not sent beside it")
	}
	assert.Equal(t, io.EOF, err)
	assert.Equal(t, data, got)
}

// gate holds the read at 0 until the read at size was asked.
type gate struct {
	f     *fakeFile
	size  int64
	asked chan struct{}
	once  sync.Once
}

func (g *gate) ReadAt(b []byte, off int64) (int, error) {
	switch off {
	case 0:
		<-g.asked
	case g.size:
		g.once.Do(func() { close(g.asked) })
	}
	return g.f.ReadAt(b, off)
}
