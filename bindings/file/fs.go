package file

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
	"sync"

	"github.com/soapwire/soapwire/bindings/internal/drop"
)

// FileMode is the mode of the files the binding writes (before the umask):
// the owner reads and writes, the group reads (a partner's process in the
// same group), others nothing.
const FileMode = 0o640

// DirMode is the mode of the folders MakeLayout creates (before the umask).
const DirMode = 0o750

// localFS is the drop engine's file system on a local folder, base, through
// an os.Root: every path is below base, and a symbolic link that leads out
// of it is refused. Engine paths are slash paths with base as "/".
type localFS struct {
	base string

	mu   sync.Mutex
	root *os.Root
}

var _ drop.FS = (*localFS)(nil)

// open returns the os.Root of base, creating base when create is set.
func (f *localFS) open(create bool) (*os.Root, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.root != nil {
		return f.root, nil
	}
	if create {
		if err := os.MkdirAll(f.base, DirMode); err != nil {
			return nil, err
		}
	}
	r, err := os.OpenRoot(f.base)
	if err != nil {
		return nil, err
	}
	f.root = r
	return r, nil
}

func (f *localFS) close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.root == nil {
		return nil
	}
	err := f.root.Close()
	f.root = nil
	return err
}

// rel turns an engine path into a name below the root.
func rel(p string) string {
	r := strings.TrimPrefix(p, "/")
	if r == "" {
		return "."
	}
	return r
}

func (f *localFS) List(ctx context.Context, dir string) ([]drop.Entry, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	r, err := f.open(false)
	if err != nil {
		return nil, err
	}
	d, err := r.Open(rel(dir))
	if err != nil {
		return nil, err
	}
	defer d.Close()
	ents, err := d.ReadDir(-1)
	if err != nil {
		return nil, err
	}
	out := make([]drop.Entry, 0, len(ents))
	for _, e := range ents {
		info, err := e.Info()
		if errors.Is(err, fs.ErrNotExist) {
			continue // renamed away since the listing
		}
		if err != nil {
			out = append(out, drop.Entry{Name: e.Name(), Kind: drop.Other, Problem: err.Error()})
			continue
		}
		out = append(out, entry(e.Name(), info))
	}
	return out, nil
}

func entry(name string, info fs.FileInfo) drop.Entry {
	de := drop.Entry{Name: name, Size: info.Size(), ModTime: info.ModTime()}
	switch {
	case info.Mode().IsRegular():
		de.Kind = drop.File
	case info.IsDir():
		de.Kind = drop.Dir
	default:
		de.Kind = drop.Other
	}
	return de
}

func (f *localFS) Stat(ctx context.Context, p string) (drop.Entry, error) {
	if err := ctx.Err(); err != nil {
		return drop.Entry{}, err
	}
	r, err := f.open(false)
	if err != nil {
		return drop.Entry{}, err
	}
	info, err := r.Lstat(rel(p))
	if err != nil {
		return drop.Entry{}, err
	}
	return entry(path.Base(p), info), nil
}

// Rename renames within the root: atomic on a local file system, so of
// several processes renaming one file exactly one succeeds. A rename that
// publishes a file written under a temporary (dot) name is made durable:
// its folder is synced before Rename returns.
func (f *localFS) Rename(ctx context.Context, from, to string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	r, err := f.open(false)
	if err != nil {
		return err
	}
	if err := r.Rename(rel(from), rel(to)); err != nil {
		return err
	}
	if strings.HasPrefix(path.Base(from), ".") {
		return syncDir(r, path.Dir(to))
	}
	return nil
}

// syncDir makes the entries of a folder durable (fsync on the folder).
func syncDir(r *os.Root, dir string) error {
	d, err := r.Open(rel(dir))
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

func (f *localFS) Open(ctx context.Context, p string) (io.ReadCloser, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	r, err := f.open(false)
	if err != nil {
		return nil, err
	}
	return r.Open(rel(p))
}

// Write creates p (O_EXCL: never over another file), copies r into it and
// syncs it before it returns.
func (f *localFS) Write(ctx context.Context, p string, src io.Reader) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	r, err := f.open(false)
	if err != nil {
		return err
	}
	file, err := r.OpenFile(rel(p), os.O_WRONLY|os.O_CREATE|os.O_EXCL, FileMode)
	if err != nil {
		return err
	}
	_, err = io.Copy(file, src) // a message is written with its WriteTo
	if err == nil {
		err = file.Sync()
	}
	if cerr := file.Close(); err == nil {
		err = cerr
	}
	return err
}

func (f *localFS) Remove(ctx context.Context, p string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	r, err := f.open(false)
	if err != nil {
		return err
	}
	return r.Remove(rel(p))
}

// Mkdir creates a folder below the root (and the root itself when it is
// missing).
func (f *localFS) Mkdir(ctx context.Context, p string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	r, err := f.open(true)
	if err != nil {
		return err
	}
	if rel(p) == "." {
		return nil
	}
	err = r.Mkdir(rel(p), DirMode)
	if errors.Is(err, fs.ErrExist) {
		info, serr := r.Stat(rel(p))
		if serr == nil && info.IsDir() {
			return nil
		}
	}
	return err
}
