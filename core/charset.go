package core

import (
	"bufio"
	"io"
	"strings"
)

// CharsetReader returns r as the envelope reader should read it when the
// transport labels its bytes with charset (a Content-Type's charset
// parameter). The reader takes UTF-8 and UTF-16 that begins with a byte
// order mark; a label lets UTF-16 without one be read too (RFC 7303 §3:
// the label decides): for "utf-16le" and "utf-16be" the byte order mark
// of that order is put in front, and for "utf-16" the order is the one the
// first character shows (an envelope begins with '<' or white space: XML
// 1.0 Appendix F), big-endian when it shows none (RFC 2781 §4.3). Input
// that already begins with a byte order mark, or that is plainly not UTF-16
// (it begins with "<?" or "<" in one byte), is returned as it is, and so is
// r for any other label: a contradiction between the label and the bytes
// is then the reader's to refuse.
func CharsetReader(charset string, r io.Reader) io.Reader {
	cs := strings.ToLower(strings.TrimSpace(charset))
	if cs != "utf-16" && cs != "utf-16le" && cs != "utf-16be" {
		return r
	}
	br := bufio.NewReaderSize(r, 16)
	head, _ := br.Peek(2)
	if len(head) < 2 {
		return br
	}
	switch {
	case head[0] == 0xFF && head[1] == 0xFE, head[0] == 0xFE && head[1] == 0xFF:
		return br // it has its byte order mark
	case head[0] != 0 && head[1] != 0:
		return br // not UTF-16 at all (UTF-8 or ASCII text): the reader judges it
	}
	le := cs == "utf-16le" || cs == "utf-16" && head[1] == 0
	if le {
		return io.MultiReader(strings.NewReader("\xFF\xFE"), br)
	}
	return io.MultiReader(strings.NewReader("\xFE\xFF"), br)
}
