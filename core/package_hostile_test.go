package core_test

import (
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/coretest"
)

// Hostile packages: each refused with a Sender fault naming the bound or
// the flaw, the heap flat while the input is read. The inputs are made on
// the fly (hostileReader), never held in memory.

// hostileReader yields head, then unit count times (forever when count
// is negative), then tail, sampling the heap every MiB it hands out.
type hostileReader struct {
	parts   []string // what is left to hand out: head, units, tail
	unit    string
	tail    string
	count   int
	n, next int64
	peak    uint64
}

func newHostile(head, unit string, count int, tail string) *hostileReader {
	return &hostileReader{parts: []string{head}, unit: unit, count: count, next: 1 << 20, tail: tail}
}

func (r *hostileReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if len(r.parts) == 0 {
			switch {
			case r.count != 0:
				r.parts = append(r.parts, r.unit)
				if r.count > 0 {
					r.count--
				}
			case r.tail != "":
				r.parts, r.tail = append(r.parts, r.tail), ""
			default:
				if n == 0 {
					return 0, io.EOF
				}
				return n, nil
			}
		}
		c := copy(p[n:], r.parts[0])
		if r.parts[0] = r.parts[0][c:]; r.parts[0] == "" {
			r.parts = r.parts[1:]
		}
		n += c
	}
	r.n += int64(n)
	if r.n >= r.next {
		r.next += 1 << 20
		r.sample()
	}
	return n, nil
}

func (r *hostileReader) sample() {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	r.peak = max(r.peak, ms.HeapInuse)
}

// hostileHeapBound is how much the heap in use may grow while a hostile
// package is read (a generous bound: the inputs are tens of MB).
const hostileHeapBound = 12 << 20

// hostile reads src as a package of type ct with lim and checks that it is
// refused with a Sender fault holding target, with the heap flat.
func hostile(t *testing.T, src *hostileReader, ct string, lim core.Limits, target error) *core.Fault {
	t.Helper()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	before := ms.HeapInuse
	m, err := core.ReadPackage(src, ct, lim)
	if m != nil {
		m.Close()
	}
	src.sample()
	f := pkFault(t, err, target)
	grown := int64(src.peak) - int64(before)
	t.Logf("read %d MB: %s; heap grew by %.1f MB at most", src.n>>20, f.Reason, float64(grown)/(1<<20))
	assert.Less(t, grown, int64(hostileHeapBound), "the heap grew by %d MB", grown>>20)
	return f
}

const hostileRoot = "--B\r\nContent-Type: text/xml\r\n\r\n<s:Envelope xmlns:s=\"" + core.NamespaceV11 +
	"\"><s:Body><p:x xmlns:p=\"urn:p\"/></s:Body></s:Envelope>\r\n"

func TestHostileNoBoundary(t *testing.T) {
	hostile(t, newHostile(hostileRoot, "x", 1<<20, "--B--\r\n"), `multipart/related; type="text/xml"`, core.Limits{}, core.ErrMalformed)
	hostile(t, newHostile(hostileRoot, "x", 1<<20, "--B--\r\n"), `multipart/related; boundary=""`, core.Limits{}, core.ErrMalformed)
}

func TestHostileBoundaryNeverThere(t *testing.T) {
	// a boundary the body never holds: all of it is preamble, bounded like
	// a part's header
	hostile(t, newHostile("", strings.Repeat("y", 1023)+"\n", 32<<10, ""), `multipart/related; boundary=B`, core.Limits{}, core.ErrLimit)
}

func TestHostileNeverClosed(t *testing.T) {
	dir := t.TempDir()
	// cut off: the input ends inside a part
	hostile(t, newHostile(hostileRoot+"--B\r\n\r\n", "z", 1<<20, ""), `multipart/related; boundary=B`, core.Limits{SpoolDir: dir}, core.ErrMalformed)
	// endless: a part that never ends is stopped at MaxPartBytes
	hostile(t, newHostile(hostileRoot+"--B\r\n\r\n", strings.Repeat("z", 4096), -1, ""), `multipart/related; boundary=B`, core.Limits{SpoolDir: dir}, core.ErrTooLarge)
	// endless parts: stopped at MaxParts
	hostile(t, newHostile(hostileRoot, "--B\r\n\r\nz\r\n", -1, ""), `multipart/related; boundary=B`, core.Limits{SpoolDir: dir}, core.ErrLimit)
	// endless, parts and count unbounded: stopped at MaxPackageBytes
	hostile(t, newHostile(hostileRoot, "--B\r\n\r\n"+strings.Repeat("z", 1<<20)+"\r\n", -1, ""), `multipart/related; boundary=B`,
		core.Limits{SpoolDir: dir, MaxParts: -1, MaxPackageBytes: 40 << 20}, core.ErrTooLarge)
	pkDirEmpty(t, dir)
}

func TestHostileTenThousandParts(t *testing.T) {
	f := hostile(t, newHostile(hostileRoot, "--B\r\nContent-Type: text/plain\r\n\r\npart\r\n", 10000, "--B--\r\n"), `multipart/related; boundary=B`, core.Limits{}, core.ErrLimit)
	assert.Contains(t, f.Reason, "100 parts")
	// allowed, they are read (each is small)
	m, err := core.ReadPackage(newHostile(hostileRoot, "--B\r\nContent-Type: text/plain\r\n\r\npart\r\n", 10000, "--B--\r\n"), `multipart/related; boundary=B`, core.Limits{MaxParts: 10001})
	require.NoError(t, err)
	assert.Len(t, m.Attachments, 10000)
}

func TestHostilePartHeader(t *testing.T) {
	// one header field of 10 MB
	hostile(t, newHostile(hostileRoot+"--B\r\nX-Big: ", "h", 10<<20, "\r\n\r\nbody\r\n--B--\r\n"), `multipart/related; boundary=B`, core.Limits{}, core.ErrLimit)
	// a million short header fields
	hostile(t, newHostile(hostileRoot+"--B\r\n", "X-A: 1\r\n", 1<<20, "\r\nbody\r\n--B--\r\n"), `multipart/related; boundary=B`, core.Limits{}, core.ErrLimit)
	// just over the bound
	hdr := "X-Pad: " + strings.Repeat("h", 8<<10) + "\r\n"
	hostile(t, newHostile(hostileRoot+"--B\r\n"+hdr+"\r\nbody\r\n--B--\r\n", "", 0, ""), `multipart/related; boundary=B`, core.Limits{}, core.ErrLimit)
}

func TestHostilePartTooLarge(t *testing.T) {
	dir := t.TempDir()
	f := hostile(t, newHostile(hostileRoot+"--B\r\nContent-ID: <big@x>\r\n\r\n", strings.Repeat("q", 4096), 16<<10, "\r\n--B--\r\n"),
		`multipart/related; boundary=B`, core.Limits{SpoolDir: dir}, core.ErrTooLarge) // 64 MB against 16 MB
	assert.Contains(t, f.Reason, "part 2")
	pkDirEmpty(t, dir)
	// the root is bounded by MaxBytes too
	hostile(t, newHostile("--B\r\nContent-Type: text/xml\r\n\r\n<s:Envelope xmlns:s=\""+core.NamespaceV11+"\"><s:Body><p:x xmlns:p=\"urn:p\">",
		strings.Repeat("q", 4096), 8<<10, "</p:x></s:Body></s:Envelope>\r\n--B--\r\n"), `multipart/related; boundary=B`,
		core.Limits{SpoolDir: dir, MaxBytes: 4 << 20, MaxPartBytes: -1}, core.ErrTooLarge)
	pkDirEmpty(t, dir)
}

// nestedPackage returns a multipart/related body nested depth deep: each level's
// one part is the next level.
func nestedPackage(depth int) (string, string) {
	inner := "leaf"
	ct := "text/plain"
	for i := range depth {
		b := fmt.Sprintf("N%d", i)
		inner = "--" + b + "\r\nContent-Type: " + ct + "\r\n\r\n" + inner + "\r\n--" + b + "--\r\n"
		ct = fmt.Sprintf("multipart/related; boundary=%s", b)
	}
	return inner, ct
}

func TestHostileNested(t *testing.T) {
	body, ct := nestedPackage(1000)
	pkg := hostileRoot + "--B\r\nContent-Type: " + ct + "\r\nContent-ID: <nest@x>\r\n\r\n" + body + "\r\n--B--\r\n"
	// two parts are all the package has: the nested ones are bytes of the
	// second, not parts (a recursive reader would count 1,001 more)
	m, err := core.ReadPackage(strings.NewReader(pkg), `multipart/related; boundary=B`, core.Limits{MaxParts: 2})
	require.NoError(t, err)
	defer m.Close()
	require.Len(t, m.Attachments, 1)
	a := m.Attachment("nest@x")
	assert.Equal(t, ct, a.Type)
	assert.Equal(t, body, string(coretest.PartBytes(t, a)), "the nested package comes back as the bytes it was")
}
