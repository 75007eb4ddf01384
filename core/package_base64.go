package core

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io"
)

// A part sent with Content-Transfer-Encoding base64 (mail) is read as RFC
// 2045 §6.8 asks: its lines may be broken anywhere and its white space is
// not data. White space (space, tab, CR, LF, vertical tab, form feed) is
// ignored wherever it stands, a line of 76 characters or one line of
// megabytes alike. Any other character outside the base64 alphabet (A-Z,
// a-z, 0-9, +, /, and = as padding) is refused, not ignored: §6.8 allows
// ignoring it but calls it "probably indicative of transmission error", and
// a binary part decoded without the bytes such a character stood for would
// be handed over damaged. Data after the padding and a last quantum cut
// short are refused too (by encoding/base64).

// errPartBase64 is the error of a part whose base64 is broken.
var errPartBase64 = errors.New("broken base64")

// base64Part decodes a base64 part's body.
func base64Part(r io.Reader) io.Reader {
	f := &base64Filter{r: r}
	return &base64Errors{r: base64.NewDecoder(base64.StdEncoding, f), f: f}
}

// base64Filter drops white space from base64 text and stops at a character
// outside the alphabet.
type base64Filter struct {
	r   io.Reader
	off int64 // bytes read so far
	err error
}

// base64Class says what c is to a base64 body: 1 for the alphabet,
// padding included, 2 for white space, 0 for anything else.
func base64Class(c byte) uint8 {
	switch {
	case 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '+', c == '/', c == '=':
		return 1
	case c == ' ', c == '\t', c == '\r', c == '\n', c == '\v', c == '\f':
		return 2
	}
	return 0
}

func (f *base64Filter) Read(p []byte) (int, error) {
	for {
		if f.err != nil {
			return 0, f.err
		}
		n, err := f.r.Read(p)
		k := 0
		for i := 0; i < n; i++ {
			switch c := p[i]; base64Class(c) {
			case 1:
				p[k] = c
				k++
			case 0:
				f.err = fmt.Errorf("%w: the character %q at byte %d is outside the base64 alphabet", errPartBase64, c, f.off+int64(i))
				return k, nil // the bytes before it first; the error on the next Read
			}
		}
		f.off += int64(n)
		if err != nil {
			f.err = err
		}
		if k > 0 || err != nil {
			return k, err
		}
	}
}

// base64Errors marks encoding/base64's errors as errPartBase64: corrupt
// input, and a part that ends (its body read to its end) in the middle of
// a quantum.
type base64Errors struct {
	r io.Reader
	f *base64Filter
}

func (b *base64Errors) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	var ce base64.CorruptInputError
	switch {
	case errors.As(err, &ce):
		err = fmt.Errorf("%w: %v", errPartBase64, err)
	case err == io.ErrUnexpectedEOF && b.f.err == io.EOF:
		err = fmt.Errorf("%w: it ends in the middle of a 4-character group (padding missing?)", errPartBase64)
	}
	return n, err
}
