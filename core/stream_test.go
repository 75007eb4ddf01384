package core_test

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
)

// docReader generates a SOAP 1.2 envelope whose body is one d:doc element
// holding as many d:item lines as fit in about size bytes. It is produced on
// the fly: the document is never held in memory.
type docReader struct {
	head, tail []byte
	size       int64 // body bytes still to produce as items
	items      int   // items produced
	pending    []byte
	stage      int // 0 head, 1 items, 2 tail, 3 done
	scratch    []byte
}

const docItemText = "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor &amp; incididunt"

func newDocReader(size int64) *docReader {
	head := `<s:Envelope xmlns:s="` + core.NamespaceV12 + `"><s:Header>` +
		`<t:Trace xmlns:t="urn:example:trace" s:mustUnderstand="true">stream-test</t:Trace>` +
		`</s:Header><s:Body><d:doc xmlns:d="urn:example:doc">`
	tail := `</d:doc></s:Body></s:Envelope>`
	return &docReader{head: []byte(head), tail: []byte(tail), size: size}
}

func (r *docReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if len(r.pending) == 0 {
			switch r.stage {
			case 0:
				r.pending, r.stage = r.head, 1
			case 1:
				if r.size <= 0 {
					r.stage = 2
					continue
				}
				r.scratch = append(r.scratch[:0], `<d:item n="`...)
				r.scratch = strconv.AppendInt(r.scratch, int64(r.items), 10)
				r.scratch = append(r.scratch, `">`...)
				r.scratch = append(r.scratch, docItemText...)
				r.scratch = append(r.scratch, "</d:item>\n"...)
				r.items++
				r.size -= int64(len(r.scratch))
				r.pending = r.scratch
			case 2:
				r.pending, r.stage = r.tail, 3
			default:
				if n == 0 {
					return 0, io.EOF
				}
				return n, nil
			}
		}
		c := copy(p[n:], r.pending)
		r.pending = r.pending[c:]
		n += c
	}
	return n, nil
}

// heapSampler is the handler's destination: it counts what it is given and
// samples the Go heap every few MB.
type heapSampler struct {
	every, next int64
	n           int64
	lines       int
	peak        uint64
	samples     int
}

func (s *heapSampler) Write(p []byte) (int, error) {
	s.n += int64(len(p))
	s.lines += bytes.Count(p, []byte("\n"))
	if s.n >= s.next {
		s.next += s.every
		s.sample()
	}
	return len(p), nil
}

func (s *heapSampler) sample() {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	s.samples++
	s.peak = max(s.peak, ms.HeapInuse)
}

// TestStreamFlatMemory passes a large document body through ReadMessage, a
// Node and a handler that copies the body to a sink, and checks the heap
// stays flat: under 32 MB (a generous bound) for a 256 MB document
// (32 MB under the race detector, see race_on_test.go).
func TestStreamFlatMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("streams hundreds of MB")
	}
	const heapBound = 32 << 20
	src := newDocReader(streamInputBytes)
	sink := &heapSampler{every: 4 << 20, next: 4 << 20}
	runtime.GC()
	sink.sample()
	before := sink.peak

	start := time.Now()
	m, err := core.ReadMessage(src, core.Limits{MaxBytes: streamInputBytes + 1<<20})
	require.NoError(t, err)
	traced := false
	n := &core.Node{
		URI: "urn:example:stream",
		Headers: map[xml.Name]core.HeaderFunc{
			{Space: "urn:example:trace", Local: "Trace"}: func(ctx context.Context, m *core.Message, b *core.HeaderBlock) (context.Context, error) {
				traced = true
				return ctx, nil
			},
		},
		Handler: core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
			_, err := m.Body().WriteTo(sink)
			return nil, err
		}),
	}
	reply, err := n.ServeSOAP(t.Context(), m)
	elapsed := time.Since(start)
	require.NoError(t, err)
	assert.Nil(t, reply)
	assert.True(t, traced)
	sink.sample()

	assert.Equal(t, src.items, sink.lines, "every item reached the handler's sink")
	assert.Greater(t, sink.n, int64(streamInputBytes)-1024)
	assert.GreaterOrEqual(t, sink.samples, int(streamInputBytes/sink.every))
	mbps := float64(sink.n) / (1 << 20) / elapsed.Seconds()
	t.Logf("streamed %d MB (%d items) in %v: %.1f MB/s; heap in use: %.1f MB before, peak %.1f MB over %d samples (race detector: %v)",
		sink.n>>20, src.items, elapsed.Round(time.Millisecond), mbps, float64(before)/(1<<20), float64(sink.peak)/(1<<20), sink.samples, raceEnabled)
	assert.Less(t, sink.peak, uint64(heapBound), fmt.Sprintf("peak heap in use %d MB", sink.peak>>20))
}
