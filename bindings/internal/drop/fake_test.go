package drop_test

import (
	"bytes"
	"context"
	"io"
	"io/fs"
	"path"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/bindings/internal/drop"
	"github.com/soapwire/soapwire/core"
)

// fakeFS is an in-memory drop.FS whose operations can be made to fail,
// stall or lie, one hook each.
type fakeFS struct {
	mu    sync.Mutex
	files map[string]*fakeFile
	dirs  map[string]bool
	ops   map[string]int // "rename /ep/inbox/x.xml" → how many times

	// hooks, each called without mu held; a nil hook does the real thing
	renameHook func(from, to string) error                       // an error fails the rename
	openHook   func(ctx context.Context, p string) io.ReadCloser // a reader replaces the file's
	listExtra  func(dir string) []drop.Entry                     // entries added to a listing
}

type fakeFile struct {
	data  []byte
	mtime time.Time
}

func newFakeFS() *fakeFS {
	return &fakeFS{files: map[string]*fakeFile{}, dirs: map[string]bool{"/": true}, ops: map[string]int{}}
}

func (f *fakeFS) count(op, p string) {
	f.mu.Lock()
	f.ops[op+" "+p]++
	f.mu.Unlock()
}

// opCount returns how many times op ran on p.
func (f *fakeFS) opCount(op, p string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.ops[op+" "+p]
}

func (f *fakeFS) List(_ context.Context, dir string) ([]drop.Entry, error) {
	f.mu.Lock()
	if !f.dirs[dir] {
		f.mu.Unlock()
		return nil, fs.ErrNotExist
	}
	var out []drop.Entry
	for p, file := range f.files {
		if path.Dir(p) == dir {
			out = append(out, drop.Entry{Name: path.Base(p), Kind: drop.File, Size: int64(len(file.data)), ModTime: file.mtime})
		}
	}
	for d := range f.dirs {
		if d != "/" && path.Dir(d) == dir {
			out = append(out, drop.Entry{Name: path.Base(d), Kind: drop.Dir})
		}
	}
	extra := f.listExtra
	f.mu.Unlock()
	if extra != nil {
		out = append(out, extra(dir)...)
	}
	return out, nil
}

func (f *fakeFS) Stat(_ context.Context, p string) (drop.Entry, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if file, ok := f.files[p]; ok {
		return drop.Entry{Name: path.Base(p), Kind: drop.File, Size: int64(len(file.data)), ModTime: file.mtime}, nil
	}
	if f.dirs[p] {
		return drop.Entry{Name: path.Base(p), Kind: drop.Dir}, nil
	}
	return drop.Entry{}, fs.ErrNotExist
}

func (f *fakeFS) Rename(_ context.Context, from, to string) error {
	f.count("rename", from)
	if h := f.renameHook; h != nil {
		if err := h(from, to); err != nil {
			return err
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	file, ok := f.files[from]
	if !ok {
		return fs.ErrNotExist
	}
	if !f.dirs[path.Dir(to)] {
		return fs.ErrNotExist
	}
	delete(f.files, from)
	f.files[to] = file // the same file: a writer holding it goes on writing into it
	return nil
}

func (f *fakeFS) Open(ctx context.Context, p string) (io.ReadCloser, error) {
	f.count("open", p)
	if h := f.openHook; h != nil {
		if r := h(ctx, p); r != nil {
			return r, nil
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	file, ok := f.files[p]
	if !ok {
		return nil, fs.ErrNotExist
	}
	return io.NopCloser(bytes.NewReader(bytes.Clone(file.data))), nil
}

func (f *fakeFS) Write(_ context.Context, p string, r io.Reader) error {
	var b bytes.Buffer
	if _, err := io.Copy(&b, r); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.dirs[path.Dir(p)] {
		return fs.ErrNotExist
	}
	f.files[p] = &fakeFile{data: b.Bytes(), mtime: time.Now()}
	return nil
}

func (f *fakeFS) Remove(_ context.Context, p string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.files[p]; !ok {
		return fs.ErrNotExist
	}
	delete(f.files, p)
	return nil
}

func (f *fakeFS) Mkdir(_ context.Context, p string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.dirs[p] = true
	return nil
}

// put writes a file as a finished upload would leave it.
func (f *fakeFS) put(p string, data []byte) *fakeFile {
	f.mu.Lock()
	defer f.mu.Unlock()
	file := &fakeFile{data: bytes.Clone(data), mtime: time.Now()}
	f.files[p] = file
	return file
}

// append adds data to a file wherever it now is (a writer's open handle).
func (f *fakeFS) append(file *fakeFile, data []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	file.data = append(file.data, data...)
	file.mtime = time.Now()
}

// names lists the file names in dir, sorted.
func (f *fakeFS) names(dir string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for p := range f.files {
		if path.Dir(p) == dir {
			out = append(out, path.Base(p))
		}
	}
	sort.Strings(out)
	return out
}

// data returns a file's bytes.
func (f *fakeFS) data(p string) []byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	if file, ok := f.files[p]; ok {
		return bytes.Clone(file.data)
	}
	return nil
}

// setTime moves a file's modification time.
func (f *fakeFS) setTime(p string, t time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.files[p].mtime = t
}

// logBuffer collects log lines.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func (l *logBuffer) count(s string) int { return strings.Count(l.String(), s) }

// envelope returns the bytes of a SOAP 1.2 message with the given id.
func envelope(t testing.TB, id, text string) []byte {
	t.Helper()
	m := core.NewMessage(core.V12, core.RawBody([]byte(`<t:Ping xmlns:t="urn:t">`+text+`</t:Ping>`)))
	m.ID, m.Action = id, "urn:t/Ping"
	var b bytes.Buffer
	_, err := m.WriteTo(&b)
	require.NoError(t, err)
	return b.Bytes()
}

func tctx(t testing.TB) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return c
}
