package document_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"
	"unicode/utf16"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/document"
)

const (
	bom  = "\xEF\xBB\xBF"
	decl = `<?xml version="1.0" encoding="UTF-8"?>`
)

// docForms are the ways a document can be given to Send: in memory, and
// streamed whole, one byte at a time, in halves and with its last read
// returning data and io.EOF together.
var docForms = map[string]func(string) any{
	"bytes":   func(s string) any { return []byte(s) },
	"string":  func(s string) any { return s },
	"reader":  func(s string) any { return strings.NewReader(s) },
	"1-byte":  func(s string) any { return iotest.OneByteReader(strings.NewReader(s)) },
	"half":    func(s string) any { return iotest.HalfReader(strings.NewReader(s)) },
	"dataerr": func(s string) any { return iotest.DataErrReader(strings.NewReader(s)) },
}

// utf16Doc encodes s as UTF-16 with a byte order mark.
func utf16Doc(s string, big bool) string {
	var b bytes.Buffer
	put := func(u uint16) {
		if big {
			b.Write([]byte{byte(u >> 8), byte(u)})
		} else {
			b.Write([]byte{byte(u), byte(u >> 8)})
		}
	}
	put(0xFEFF)
	for _, u := range utf16.Encode([]rune(s)) {
		put(u)
	}
	return b.String()
}

// ownBody is a received body as its sender wrote it: without the
// envelope's namespace declarations, which a body is written with
// (namespace-complete).
func ownBody(t *testing.T, m *core.Message) string {
	t.Helper()
	return strings.NewReplacer(
		` xmlns:soap="`+core.NamespaceV12+`"`, "",
		` xmlns:wsa="http://www.w3.org/2005/08/addressing"`, "",
	).Replace(bodyString(t, m))
}

// TestSendStripsProlog: a document with a byte order mark, an XML
// declaration, comments or leading whitespace arrives as its root element,
// in an envelope a strict reader (core's) accepts, however it is given.
func TestSendStripsProlog(t *testing.T) {
	for name, tc := range map[string]struct{ doc, want string }{
		"plain":                 {orderXML, orderXML},
		"bom":                   {bom + orderXML, orderXML},
		"declaration":           {decl + orderXML, orderXML},
		"declaration newline":   {decl + "\n" + orderXML + "\n", orderXML}, // trailing whitespace is not kept by the reader
		"bom declaration crlf":  {bom + decl + "\r\n" + orderXML, orderXML},
		"single quotes":         {`<?xml version='1.0' encoding='utf-8' standalone='yes'?>` + orderXML, orderXML},
		"spaced declaration":    {"<?xml\tversion = \"1.0\"\n?>" + orderXML, orderXML},
		"version only":          {`<?xml version="1.0"?>` + orderXML, orderXML},
		"ascii":                 {`<?xml version="1.0" encoding="US-ASCII"?>` + orderXML, orderXML},
		"standalone":            {`<?xml version="1.0" standalone="no"?>` + orderXML, orderXML},
		"comments":              {decl + "\n<!-- exported 2024-05-01 -->\n<!---->\n<!-- a - b -->" + orderXML, orderXML},
		"leading newline":       {"\n\n" + orderXML, orderXML},
		"whitespace then decl":  {"\n  " + decl + orderXML, orderXML},
		"comment with markup":   {"<!-- <?pi?> <!DOCTYPE x> -->" + orderXML, orderXML},
		"root is a prefix name": {"\n<po:Order xmlns:po=\"urn:example:po\"/>", `<po:Order xmlns:po="urn:example:po"/>`},
		"utf-16le":              {utf16Doc(`<?xml version="1.0" encoding="UTF-16"?>`+"\r\n"+`<po:Order xmlns:po="urn:example:po"><po:Item>bølt 🔩</po:Item></po:Order>`, false), `<po:Order xmlns:po="urn:example:po"><po:Item>bølt 🔩</po:Item></po:Order>`},
		"utf-16be":              {utf16Doc(`<?xml version="1.0" encoding="utf-16be"?><po:Order xmlns:po="urn:example:po"><po:Item>ボルト</po:Item></po:Order>`, true), `<po:Order xmlns:po="urn:example:po"><po:Item>ボルト</po:Item></po:Order>`},
		"utf-16 no declaration": {utf16Doc(`<a:a xmlns:a="urn:a">é</a:a>`, false), `<a:a xmlns:a="urn:a">é</a:a>`},
	} {
		for form, mk := range docForms {
			t.Run(name+"/"+form, func(t *testing.T) {
				rec := &recorder{}
				_, err := document.Send(testCtx(t), rec, "mailto:a@b.example", mk(tc.doc))
				require.NoError(t, err)
				require.Len(t, rec.messages(), 1, "sent and read back by core's strict reader")
				assert.Equal(t, tc.want, ownBody(t, rec.messages()[0]))

				var buf bytes.Buffer // NewMessage: the same, stripped as it is written
				_, err = document.NewMessage("mailto:a@b.example", mk(tc.doc)).WriteTo(&buf)
				require.NoError(t, err)
				m, err := core.ReadMessage(&buf, core.Limits{})
				require.NoError(t, err)
				assert.Equal(t, tc.want, ownBody(t, m))
			})
		}
	}
}

// TestSendRefusesProlog: a prolog a Body cannot carry, and that is not
// simply dropped, is refused before anything is sent or tracked, with a
// *PrologError that says what and where, however the document is given.
func TestSendRefusesProlog(t *testing.T) {
	for name, tc := range map[string]struct {
		doc    string
		offset int64
		reason string
	}{
		"doctype":                 {decl + "\n<!DOCTYPE po:Order SYSTEM \"po.dtd\">" + orderXML, 39, "DOCTYPE"},
		"doctype entity":          {`<!DOCTYPE x [<!ENTITY a "b">]><x>&a;</x>`, 0, "DOCTYPE"},
		"stylesheet":              {bom + decl + `<?xml-stylesheet href="po.xsl"?>` + orderXML, 41, "processing instruction <?xml-stylesheet"},
		"pi after comment":        {"<!-- c --><?php echo 1 ?>" + orderXML, 10, "processing instruction <?php"},
		"reserved target":         {`<?XML version="1.0"?>` + orderXML, 0, "reserved"},
		"latin-1":                 {`<?xml version="1.0" encoding="ISO-8859-1"?>` + orderXML, 0, `encoding "ISO-8859-1" is not supported`},
		"windows-1252":            {bom + `<?xml version="1.0" encoding="windows-1252"?>` + orderXML, 3, `encoding "windows-1252" is not supported`},
		"utf-16 without bom":      {`<?xml version="1.0" encoding="UTF-16"?>` + orderXML, 0, "no UTF-16 byte order mark"},
		"utf-8 with utf-16 bom":   {utf16Doc(`<?xml version="1.0" encoding="UTF-8"?><a/>`, false), 2, "UTF-16LE byte order mark"},
		"utf-16be mislabelled":    {utf16Doc(`<?xml version="1.0" encoding="UTF-16LE"?><a/>`, true), 2, "UTF-16BE byte order mark"},
		"version 1.1":             {`<?xml version="1.1"?>` + orderXML, 0, "XML version \"1.1\" is not supported"},
		"no version":              {`<?xml encoding="UTF-8"?>` + orderXML, 0, "no version"},
		"empty declaration":       {`<?xml?>` + orderXML, 0, "no version"},
		"unknown attribute":       {`<?xml version="1.0" lang="en"?>` + orderXML, 0, "unexpected attribute"},
		"attributes out of order": {`<?xml version="1.0" standalone="yes" encoding="UTF-8"?>` + orderXML, 0, "unexpected attribute"},
		"attributes run together": {`<?xml version="1.0"encoding="UTF-8"?>` + orderXML, 0, "no space between attributes"},
		"unquoted":                {`<?xml version=1.0?>` + orderXML, 0, "unquoted"},
		"bad standalone":          {`<?xml version="1.0" standalone="maybe"?>` + orderXML, 0, "standalone"},
		"declaration not first":   {"<!-- c -->" + decl + orderXML, 10, "not at the start"},
		"two declarations":        {decl + decl + orderXML, 38, "not at the start"},
		"text before root":        {"order:\n" + orderXML, 0, "text before the root element"},
		"second bom":              {bom + bom + orderXML, 3, "text before the root element"},
		"nul (utf-16, no bom)":    {"\x00<\x00a\x00/\x00>", 0, "NUL byte"},
		"cdata":                   {"<![CDATA[x]]>" + orderXML, 0, "CDATA"},
		"end tag":                 {"</x>" + orderXML, 0, "malformed markup"},
		"double dash":             {"<!-- a -- b -->" + orderXML, 7, `"--" inside a comment`},
		"comment ends --->":       {"<!-- a --->" + orderXML, 7, `"--" inside a comment`},
		"unterminated comment":    {"<!-- " + orderXML, 0, "unterminated comment"},
		"unterminated decl":       {`<?xml version="1.0"`, 0, "ends in the XML declaration"},
		"declaration only":        {bom + decl + "\n", 42, "no root element"},
		"comment only":            {"<!-- nothing -->", 16, "no root element"},
		"lone <":                  {"\n<", 1, "ends in markup"},
		"long comment":            {"<!--" + strings.Repeat("x", document.MaxProlog) + "-->" + orderXML, document.MaxProlog, "longer than 64 KiB"},
		"long whitespace":         {bom + strings.Repeat("\n", document.MaxProlog+1) + orderXML, 3 + document.MaxProlog, "longer than 64 KiB"},
		"long pi target":          {"<?" + strings.Repeat("p", 100) + "?>" + orderXML, 0, "processing instruction <?pppp"},
	} {
		for form, mk := range docForms {
			t.Run(name+"/"+form, func(t *testing.T) {
				rec := &recorder{}
				s := document.NewMemoryStore()
				ctx := testCtx(t)
				rc, err := document.Send(ctx, rec, "mailto:a@b.example", mk(tc.doc),
					document.WithConversation("c-1"), document.WithReplyTo("mailto:me@here.example"), document.WithTracking(s, time.Time{}))
				require.ErrorIs(t, err, document.ErrProlog)
				assert.Nil(t, rc)
				var pe *document.PrologError
				require.ErrorAs(t, err, &pe)
				assert.Equal(t, tc.offset, pe.Offset, err.Error())
				assert.Contains(t, pe.Reason, tc.reason)
				assert.True(t, strings.HasPrefix(err.Error(), "document: prolog refused at byte "), err.Error())
				assert.Empty(t, rec.messages(), "nothing sent")
				_, err = s.Get(ctx, "c-1")
				require.ErrorIs(t, err, document.ErrNotFound, "nothing tracked")

				// NewMessage: the same refusal, when the message is written
				_, err = document.NewMessage("mailto:a@b.example", mk(tc.doc)).WriteTo(io.Discard)
				require.ErrorAs(t, err, &pe)
				assert.Equal(t, tc.offset, pe.Offset)
				require.ErrorIs(t, document.NewMessage("mailto:a@b.example", mk(tc.doc)).Body().Decode(new(order)), document.ErrProlog)
			})
		}
	}
}

// TestSendRefusesBadUTF16: invalid UTF-16 is ErrEncoding: before anything is
// sent when it is in the prolog or the document is in memory; as the error of
// writing the message when a stream goes bad after its root element.
func TestSendRefusesBadUTF16(t *testing.T) {
	good := utf16Doc(`<a:a xmlns:a="urn:a">x</a:a>`, false)
	loneLow := good[:2] + "\x00\xDC" + good[2:]                      // before the root
	lateHigh := good[:len(good)-2] + "\x00\xD8" + good[len(good)-2:] // a high surrogate, then '>'
	odd := good + "\x00"
	for name, tc := range map[string]struct {
		doc    string
		early  bool // refused before the root element even when streamed
		reason string
	}{
		"lone low surrogate":  {loneLow, true, "lone low surrogate at byte 2"},
		"lone high surrogate": {lateHigh, false, "lone high surrogate"},
		"odd length":          {odd, false, "middle of a UTF-16 character"},
	} {
		for form, mk := range docForms {
			t.Run(name+"/"+form, func(t *testing.T) {
				rec := &recorder{}
				_, err := document.Send(testCtx(t), rec, "mailto:a@b.example", mk(tc.doc))
				require.ErrorIs(t, err, document.ErrEncoding)
				assert.ErrorContains(t, err, tc.reason)
				assert.Empty(t, rec.messages(), "nothing arrived")

				_, err = document.NewBody(mk(tc.doc))
				_, inMemory := mk("").(io.Reader)
				if tc.early || !inMemory {
					require.ErrorIs(t, err, document.ErrEncoding, "NewBody refuses it")
				} else {
					require.NoError(t, err, "a stream is refused only when it goes bad")
				}
			})
		}
	}
}

// TestSendEmptyDocument: a document of nothing (or whitespace and a byte
// order mark) is an empty Body.
func TestSendEmptyDocument(t *testing.T) {
	for _, doc := range []string{"", " \r\n\t", bom, bom + "\n", utf16Doc("", true), utf16Doc("\n", false)} {
		for form, mk := range docForms {
			t.Run(form, func(t *testing.T) {
				rec := &recorder{}
				_, err := document.Send(testCtx(t), rec, "mailto:a@b.example", mk(doc))
				require.NoError(t, err, "%q", doc)
				require.Len(t, rec.messages(), 1)
				assert.True(t, rec.messages()[0].Body().IsEmpty(), "%q", doc)
			})
		}
	}
}

// TestSendReadsOnlyTheProlog: Send reads a streamed document up to its root
// element before it sends (a bounded look, not the whole stream), even when
// the prolog is long; the rest streams while the envelope is written.
func TestSendReadsOnlyTheProlog(t *testing.T) {
	var doc strings.Builder
	doc.WriteString(bom + decl + "\n<!--" + strings.Repeat(" comment ", 6000) + "-->\n")
	prolog := doc.Len()
	doc.WriteString(`<d:Data xmlns:d="urn:example:data">`)
	for doc.Len() < 4<<20 {
		doc.WriteString(`<d:Row>0123456789abcdefghijklmnopqrstuvwxyz</d:Row>`)
	}
	doc.WriteString(`</d:Data>`)

	src := &countingReader{r: strings.NewReader(doc.String())}
	var atSend int
	out := core.SendFunc(func(ctx context.Context, m *core.Message) error {
		atSend = src.n
		_, err := m.WriteTo(io.Discard)
		return err
	})
	_, err := document.Send(testCtx(t), out, "mailto:a@b.example", src)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, atSend, prolog, "the prolog was read before sending")
	assert.LessOrEqual(t, atSend, prolog+8<<10, "no more than a buffer beyond it")
	assert.Equal(t, doc.Len(), src.n, "the rest streamed while the envelope was written")
}

// TestSendPrologReadError: the reader failing while the prolog is read is
// that error (not a refusal of the document), before anything is sent.
func TestSendPrologReadError(t *testing.T) {
	boom := errors.New("disk on fire")
	for name, r := range map[string]io.Reader{
		"at once":           iotest.ErrReader(boom),
		"in a comment":      io.MultiReader(strings.NewReader(decl+"<!-- "), iotest.ErrReader(boom)),
		"in the utf-16 bom": io.MultiReader(strings.NewReader("\xFF"), iotest.ErrReader(boom)),
		"after utf-16 bom":  io.MultiReader(strings.NewReader("\xFF\xFE<\x00"), iotest.ErrReader(boom)),
	} {
		t.Run(name, func(t *testing.T) {
			rec := &recorder{}
			_, err := document.Send(testCtx(t), rec, "mailto:a@b.example", r)
			require.ErrorIs(t, err, boom)
			assert.NotErrorIs(t, err, document.ErrProlog)
			assert.ErrorContains(t, err, "document: reading the document")
			assert.Empty(t, rec.messages())
		})
	}
}

// TestNewBody: NewBody refuses a bad prolog at once, and what it returns can
// be sent by NewMessage, a Correlator or Incoming.Reply.
func TestNewBody(t *testing.T) {
	src := &countingReader{r: strings.NewReader(decl + "\n" + orderXML)}
	b, err := document.NewBody(src)
	require.NoError(t, err)
	assert.Equal(t, len(decl)+1+len(orderXML), src.n, "a short document is read whole by the look for its root")
	var got order
	require.NoError(t, document.NewMessage("pipe:x", b).Body().Decode(&got))
	assert.Equal(t, "bolt", got.Item)

	src = &countingReader{r: strings.NewReader("<!DOCTYPE x>" + orderXML)}
	_, err = document.NewBody(src)
	require.ErrorIs(t, err, document.ErrProlog)

	for _, doc := range []any{nil, order{Item: "x"}, core.RawBody([]byte(orderXML))} {
		b, err := document.NewBody(doc)
		require.NoError(t, err)
		assert.Equal(t, doc == nil, b.IsEmpty())
	}
	b, err = document.NewBody(bom + orderXML)
	require.NoError(t, err)
	assert.Equal(t, "Order", b.Name().Local, "a raw body knows its root")

	lazy := &countingReader{r: strings.NewReader("<?pi?>" + orderXML)}
	m := document.NewMessage("pipe:x", lazy)
	assert.Zero(t, lazy.n, "NewMessage reads nothing")
	p := newPipe(t)
	require.ErrorIs(t, p.Send(testCtx(t), m), document.ErrProlog)
	assert.Zero(t, p.Len(), "the Pipe got nothing")
}

// endless is a reader of whitespace, or of one comment, that never ends.
type endless struct {
	head, pad string
	n         int
}

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		if e.n < len(e.head) {
			p[i] = e.head[e.n]
		} else {
			p[i] = e.pad[(e.n-len(e.head))%len(e.pad)]
		}
		e.n++
	}
	return len(p), nil
}

// TestSendPrologBounded: an endless prolog is refused after MaxProlog bytes
// (and a buffer), not read for ever.
func TestSendPrologBounded(t *testing.T) {
	for head, pad := range map[string]string{"": " ", bom + decl: "\n", "<!--": "x", `<?xml version="1.0" `: " ", "\xFF\xFE": " \x00"} {
		src := &endless{head: head, pad: pad}
		rec := &recorder{}
		_, err := document.Send(testCtx(t), rec, "mailto:a@b.example", src)
		var pe *document.PrologError
		require.ErrorAs(t, err, &pe, "%q", head)
		assert.Contains(t, pe.Reason, "longer than 64 KiB")
		limit := document.MaxProlog
		if pad == " \x00" {
			limit *= 2 // counted in UTF-8: a space is 2 bytes of UTF-16
		}
		assert.LessOrEqual(t, src.n, limit+len(head)+3*4096, "%q: read %d", head, src.n)
		assert.Empty(t, rec.messages())
	}
}
