package xmltok_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core/internal/xmltok"
)

// pieceInputs are documents whose every construct crosses a small buffer's
// edge somewhere.
var pieceInputs = append([]string{
	"<a>" + strings.Repeat("x&amp;y\r\n]] ]>é€𝄞&#x1F600;", 50) + "</a>",
	"<a>" + strings.Repeat("<![CDATA[ ]]]\r\n€ ]]>", 50) + "</a>",
	`<p:a xmlns:p="urn:p"` + strings.Repeat(` p:x`+fmt.Sprint(0)+`="v&amp;&#10;	w"`, 1) + strings.Repeat(` b`+"x"+`="`+strings.Repeat("é", 40)+`"`, 1) + `>` +
		strings.Repeat(`<p:b c="1"><!-- comment `+strings.Repeat("-x", 30)+` --></p:b  >`, 20) + `</p:a>`,
	"\xEF\xBB\xBF<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<a>" + strings.Repeat("t", 1000) + "</a>\n<!-- end -->\n",
	enc16(`<?xml version="1.0" encoding="UTF-16"?><a b="é">`+strings.Repeat("€𝄞x", 300)+`</a>`, false),
	enc16(`<a>`+strings.Repeat("€𝄞x", 300)+`</a>`, true),
}, diffSeeds...)

func TestReaderPieces(t *testing.T) {
	for i, in := range pieceInputs {
		want, wantErr := ourTokens([]byte(in), 0)
		for _, chunk := range []int{1, 2, 3, 5, 8, 13, 64} {
			got, err := ourTokens([]byte(in), chunk)
			if wantErr == nil {
				assert.Equal(t, want, got, "input %d in pieces of %d", i, chunk)
				assert.NoError(t, err, "input %d in pieces of %d", i, chunk)
			} else {
				assert.EqualError(t, err, wantErr.Error(), "input %d in pieces of %d", i, chunk)
			}
		}
		s := xmltok.NewReader(iotest.OneByteReader(strings.NewReader(in)), xmltok.Limits{})
		got, err := renderReader(s)
		want1, wantErr1 := render(in, xmltok.Limits{})
		if assert.Equal(t, wantErr1 == nil, err == nil, "input %d one byte at a time: %v", i, err) && err == nil {
			assert.Equal(t, want1, got, "input %d one byte at a time", i)
		}
	}
}

// textReader streams <a>, n bytes of text, </a> without holding them.
type textReader struct {
	n, sent int64
	head    string
	tail    string
}

func (r *textReader) Read(p []byte) (int, error) {
	total := int64(len(r.head)) + r.n + int64(len(r.tail))
	if r.sent >= total {
		return 0, io.EOF
	}
	k := 0
	for k < len(p) && r.sent < total {
		switch {
		case r.sent < int64(len(r.head)):
			p[k] = r.head[r.sent]
		case r.sent < int64(len(r.head))+r.n:
			p[k] = "abc&amp;\n"[(r.sent-int64(len(r.head)))%9]
		default:
			p[k] = r.tail[r.sent-int64(len(r.head))-r.n]
		}
		k++
		r.sent++
	}
	return k, nil
}

func TestReaderStreamsHugeText(t *testing.T) {
	n := int64(64 << 20)
	if testing.Short() || raceEnabled {
		n = 8 << 20
	}
	n -= n % 9
	s := xmltok.NewReader(&textReader{n: n, head: "<a>", tail: "</a>"}, xmltok.Limits{MaxTokenBytes: 1 << 10})
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	var text int64
	pieces, maxBuf := 0, 0
	for {
		tok, err := s.Next()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		if tok.Kind == xmltok.CharData {
			text += int64(len(tok.Text))
			pieces++
		}
		maxBuf = max(maxBuf, xmltok.BufferLen(s))
	}
	runtime.ReadMemStats(&after)
	assert.Equal(t, n/9*5, text, "every character, references decoded")
	assert.Greater(t, pieces, 100, "the text came in pieces")
	assert.LessOrEqual(t, maxBuf, 8<<10, "the buffer did not grow")
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(1<<20), "memory does not grow with the text")
}

func TestReaderGrowsForBigTags(t *testing.T) {
	val := strings.Repeat("v", 100<<10)
	in := `<a b="` + val + `"><!--` + val + `--></a>`
	s := xmltok.NewReader(strings.NewReader(in), xmltok.Limits{MaxTokenBytes: 101 << 10})
	tok, err := s.Next()
	require.NoError(t, err)
	assert.Equal(t, val, string(tok.Attr[0].Value))
	assert.Greater(t, xmltok.BufferLen(s), 100<<10)
	tok, err = s.Next()
	require.NoError(t, err)
	assert.Equal(t, val, string(tok.Text))
	_, err = renderReader(s)
	require.NoError(t, err)

	_, err = render(in, xmltok.Limits{MaxTokenBytes: 100 << 10})
	assert.ErrorIs(t, err, xmltok.ErrLimit)
	assert.ErrorContains(t, err, "a start tag is longer than 102400 bytes")
	_, err = render(`<a>&#`+strings.Repeat("0", 20000)+`65;</a>`, xmltok.Limits{MaxTokenBytes: 10000})
	assert.ErrorContains(t, err, "a reference is longer than 10000 bytes", "leading zeros are bounded too")
	got, err := render(`<a>&#`+strings.Repeat("0", 20000)+`65;</a>`, xmltok.Limits{MaxTokenBytes: 30000})
	require.NoError(t, err)
	assert.Contains(t, got, `T"A"`)
}

func TestReaderReadErrors(t *testing.T) {
	boom := errors.New("connection reset")
	s := xmltok.NewReader(io.MultiReader(strings.NewReader("<a><b>text"), iotest.ErrReader(boom)), xmltok.Limits{})
	_, err := renderReader(s)
	assert.ErrorIs(t, err, boom)
	assert.ErrorContains(t, err, "reading the input: connection reset")
	var se *xmltok.SyntaxError
	require.ErrorAs(t, err, &se)
	_, err2 := s.Next()
	assert.Equal(t, err, err2, "errors are sticky")

	s = xmltok.NewReader(iotest.TimeoutReader(strings.NewReader("<a>"+strings.Repeat("x", 20<<10)+"</a>")), xmltok.Limits{})
	_, err = renderReader(s)
	assert.ErrorIs(t, err, iotest.ErrTimeout)

	s = xmltok.NewReader(zeroReader{}, xmltok.Limits{})
	_, err = s.Next()
	assert.ErrorIs(t, err, io.ErrNoProgress)
}

type zeroReader struct{}

func (zeroReader) Read([]byte) (int, error) { return 0, nil }

func TestReaderManyAttributes(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<a xmlns:p="urn:p" xmlns:q="urn:p"`)
	for i := range 40 {
		fmt.Fprintf(&b, ` p:x%d="%d"`, i, i)
	}
	ok := b.String() + `/>`
	_, err := render(ok, xmltok.Limits{})
	require.NoError(t, err)
	for dup, want := range map[string]string{
		` p:x7="again"`: "duplicate attribute p:x7",
		` q:x7="again"`: "duplicate attribute q:x7 on <a> (the same namespace as p:x7)",
		` xmlns:q="x"`:  "duplicate namespace declaration xmlns:q",
	} {
		_, err := render(b.String()+dup+`/>`, xmltok.Limits{})
		assert.ErrorContains(t, err, want)
	}
}

func TestReaderRelease(t *testing.T) {
	docs := []string{`<a xmlns="urn:a"><b c="1">x</b></a>`, `<p:z xmlns:p="urn:p"/>`, `<a>` + strings.Repeat("y", 20<<10) + `</a>`, `<a><b></a>`}
	var want []string
	for _, d := range docs {
		got, err := render(d, xmltok.Limits{})
		want = append(want, fmt.Sprint(got, err))
	}
	for round := range 3 {
		for i, d := range docs {
			s := xmltok.NewReader(bytes.NewReader([]byte(d)), xmltok.Limits{})
			got, err := renderReader(s)
			assert.Equal(t, want[i], fmt.Sprint(got, err), "round %d, document %d read by a recycled reader", round, i)
			s.Release()
		}
	}
	s := xmltok.NewReaderSize(strings.NewReader(`<a/>`), xmltok.Limits{}, 16)
	_, err := renderReader(s)
	require.NoError(t, err)
	s.Release() // not from the pool: nothing happens
	assert.Equal(t, 16, xmltok.BufferLen(s))
}
