package main

import (
	"fmt"
	"io"
	"strconv"
)

// document generates the posted envelope as it is read, exactly size bytes,
// never holding more than one record: a SOAP 1.1 envelope whose body is a
// d:Document with small d:record elements for about half the size, then one
// d:blob element holding a single text node (base64-like lines) for the
// rest.
type document struct {
	size, sent int64
	gen        int64 // bytes generated
	stage      int
	pending    []byte // generated, not yet read
	records    int    // d:record elements generated
	blobLeft   int64  // blob text still to generate
	blobLen    int64  // blob text in all
}

const (
	docHead = `<?xml version="1.0" encoding="utf-8"?>` + "\n" +
		`<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>` +
		`<d:Document xmlns:d="` + docNS + `">` + "\n"
	blobOpen  = `<d:blob encoding="base64">`
	blobClose = `</d:blob>`
	docTail   = `</d:Document></soap:Body></soap:Envelope>` + "\n"
	// minSize leaves room for the frame, a record and some blob.
	minSize = int64(len(docHead) + len(blobOpen) + len(blobClose) + len(docTail) + 256)
)

const (
	stageHead = iota
	stageRecords
	stageBlob
	stageTail
	stageDone
)

func newDocument(size int64) *document {
	if size < minSize {
		size = minSize
	}
	return &document{size: size}
}

// record is the n-th record: references, non-ASCII text and attributes, so
// every path of the tokenizer and the writer is taken.
func record(n int) []byte {
	return fmt.Appendf(nil, `<d:record n="%09d" kind="line">Record %d: fish &amp; chips, cr&#xE8;me br&#xFB;l&#xE9;e, 𝄞 &lt;ok&gt;</d:record>`+"\n", n, n)
}

// blobLine is one line of the blob's text: 76 base64 characters and a new
// line.
const blobLine = "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWZnaGlqa2xtbm9wcXJzdHV2d3h5ejAxMjM0\n"

func (d *document) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if len(d.pending) == 0 && !d.generate() {
			break
		}
		c := copy(p[n:], d.pending)
		d.pending = d.pending[c:]
		n += c
	}
	d.sent += int64(n)
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}

// generate puts the next piece in pending; false at the end.
func (d *document) generate() bool {
	ok := d.next()
	d.gen += int64(len(d.pending))
	return ok
}

func (d *document) next() bool {
	generated := d.gen
	switch d.stage {
	case stageHead:
		d.pending = append(d.pending[:0], docHead...)
		d.stage = stageRecords
	case stageRecords:
		r := record(d.records)
		if generated+int64(len(r)) <= d.size/2 || d.records == 0 {
			d.pending = r
			d.records++
			return true
		}
		d.blobLen = d.size - generated - int64(len(blobOpen)+len(blobClose)+len(docTail))
		d.blobLeft = d.blobLen
		d.pending = append(d.pending[:0], blobOpen...)
		d.stage = stageBlob
	case stageBlob:
		if d.blobLeft == 0 {
			d.pending = append(d.pending[:0], blobClose...)
			d.stage = stageTail
			return true
		}
		k := int64(64 << 10)
		k = min(k, d.blobLeft)
		buf := d.pending[:0]
		for int64(len(buf)) < k {
			buf = append(buf, blobLine[:min(int64(len(blobLine)), k-int64(len(buf)))]...)
		}
		d.pending = buf
		d.blobLeft -= k
	case stageTail:
		d.pending = append(d.pending[:0], docTail...)
		d.stage = stageDone
	default:
		return false
	}
	return true
}

// String describes the document's shape.
func (d *document) String() string {
	return strconv.Itoa(d.records) + " records and a " + strconv.FormatInt(d.blobLen, 10) + "-byte text node"
}
