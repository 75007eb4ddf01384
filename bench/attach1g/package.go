package main

import (
	"fmt"
	"io"
)

// The posted package: an MTOM (XOP) package, SOAP 1.1, whose envelope
// names one part by xop:Include, and that part, generated as it is read.
const (
	boundary = "attach1g-boundary-7c1f3a"
	rootID   = "root@attach1g"
	partID   = "blob@attach1g"
	// contentType is the package's Content-Type header.
	contentType = `multipart/related; type="application/xop+xml"; boundary="` + boundary +
		`"; start="<` + rootID + `>"; start-info="text/xml"`
	pkgHead = "--" + boundary + "\r\n" +
		"Content-Type: application/xop+xml; charset=UTF-8; type=\"text/xml\"\r\n" +
		"Content-Transfer-Encoding: binary\r\n" +
		"Content-ID: <" + rootID + ">\r\n\r\n" +
		`<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>` +
		`<a:store xmlns:a="` + docNS + `"><a:name>scan.tiff</a:name>` +
		`<a:data xmlns:xmime="http://www.w3.org/2005/05/xmlmime" xmime:contentType="image/tiff">` +
		`<xop:Include xmlns:xop="http://www.w3.org/2004/08/xop/include" href="cid:` + partID + `"/>` +
		`</a:data></a:store></soap:Body></soap:Envelope>` + "\r\n" +
		"--" + boundary + "\r\n" +
		"Content-Type: image/tiff\r\n" +
		"Content-Transfer-Encoding: binary\r\n" +
		"Content-ID: <" + partID + ">\r\n\r\n"
	pkgTail = "\r\n--" + boundary + "--\r\n"
)

// blockSize is the period of the part's bytes.
const blockSize = 1 << 20

// block is the part's bytes, repeated: every byte value, in an order that
// shows a shifted or cut copy, never the boundary.
func block() []byte {
	b := make([]byte, blockSize)
	for i := range b {
		b[i] = byte(i*7 + i/251)
	}
	return b
}

// pkg generates the package as it is read: the root part, then a part of
// size bytes, then the closing delimiter.
type pkg struct {
	head, tail []byte
	part       []byte // block()
	size, off  int64  // the part's size; what was read of the whole
}

func newPackage(size int64) *pkg {
	return &pkg{head: []byte(pkgHead), tail: []byte(pkgTail), part: block(), size: size}
}

// Len is the package's length in bytes.
func (p *pkg) Len() int64 { return int64(len(p.head)) + p.size + int64(len(p.tail)) }

func (p *pkg) Read(b []byte) (int, error) {
	h, s := int64(len(p.head)), p.size
	switch {
	case p.off < h:
		n := copy(b, p.head[p.off:])
		p.off += int64(n)
		return n, nil
	case p.off < h+s:
		in := p.off - h // offset in the part
		end := min(s-in, int64(len(b)))
		n := 0
		for int64(n) < end {
			n += copy(b[n:end], p.part[(in+int64(n))%blockSize:])
		}
		p.off += int64(n)
		return n, nil
	case p.off < p.Len():
		n := copy(b, p.tail[p.off-h-s:])
		p.off += int64(n)
		return n, nil
	}
	return 0, io.EOF
}

// check reads r, a stored part, and reports whether it holds size bytes of
// the part's pattern.
func check(r io.Reader, size int64) error {
	want := block()
	got := make([]byte, blockSize)
	var off int64
	for {
		n, err := io.ReadFull(r, got)
		for i := 0; i < n; i++ {
			if got[i] != want[(off+int64(i))%blockSize] {
				return fmt.Errorf("attach1g: the stored part differs at byte %d", off+int64(i))
			}
		}
		off += int64(n)
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			return err
		}
	}
	if off != size {
		return fmt.Errorf("attach1g: the stored part holds %d bytes, not %d", off, size)
	}
	return nil
}
