package sftp

import (
	"io"
	"os"
	"path"
	"strings"

	"github.com/pkg/sftp"
)

// handlers serve SFTP requests from one folder through an os.Root: every
// path stays below it, symbolic links that lead out are refused, and
// links cannot be made.
type handlers struct {
	root *os.Root

	stall func(name string) <-chan struct{} // tests: a read of name waits for the channel
	read  func(name string, off int64)      // tests: told each read
	trace func(method, path, target string, err error)
	// tests: asked before each posix-rename; an error refuses it
	refuseRename func(from string) error
	// tests: asked before each open for reading; an error refuses it
	refuseOpen func(p string) error
	// tests: asked when an upload's file is closed (its bytes written and
	// the file closed); an error fails the CLOSE
	failClose func(p string) error
	// tests: asked before each removal; an error refuses it
	refuseRemove func(p string) error
}

func newHandlers(dir string) (*handlers, error) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return &handlers{root: r}, nil
}

// rel turns a request's (absolute, clean) path into a name below the root.
func rel(p string) string {
	r := strings.TrimPrefix(path.Clean("/"+p), "/")
	if r == "" {
		return "."
	}
	return r
}

func (h *handlers) Fileread(r *sftp.Request) (io.ReaderAt, error) {
	if h.refuseOpen != nil {
		if err := h.refuseOpen(r.Filepath); err != nil {
			return nil, err
		}
	}
	f, err := h.root.Open(rel(r.Filepath))
	if err != nil || (h.stall == nil && h.read == nil) {
		return f, err
	}
	w := watchedFile{File: f, name: path.Base(r.Filepath), read: h.read}
	if h.stall != nil {
		w.wait = h.stall(w.name)
	}
	return w, nil
}

// watchedFile is a file whose reads tests see, or wait (a server gone
// silent mid-transfer).
type watchedFile struct {
	*os.File
	name string
	wait <-chan struct{}
	read func(name string, off int64)
}

func (w watchedFile) ReadAt(p []byte, off int64) (int, error) {
	if w.read != nil {
		w.read(w.name, off)
	}
	if w.wait != nil {
		<-w.wait
	}
	return w.File.ReadAt(p, off)
}

func (h *handlers) Filewrite(r *sftp.Request) (io.WriterAt, error) {
	f := r.Pflags()
	flags := os.O_WRONLY
	if f.Read {
		flags = os.O_RDWR
	}
	if f.Creat {
		flags |= os.O_CREATE
	}
	if f.Trunc {
		flags |= os.O_TRUNC
	}
	if f.Excl {
		flags |= os.O_EXCL
	}
	file, err := h.root.OpenFile(rel(r.Filepath), flags, 0o640)
	if err != nil || h.failClose == nil {
		return file, err
	}
	return closeHooked{File: file, fail: func() error { return h.failClose(r.Filepath) }}, nil
}

// closeHooked is an upload's file whose closing asks a test hook.
type closeHooked struct {
	*os.File
	fail func() error
}

func (c closeHooked) Close() error {
	if err := c.File.Close(); err != nil {
		return err
	}
	return c.fail()
}

func (h *handlers) Filecmd(r *sftp.Request) (err error) {
	p := rel(r.Filepath)
	if h.trace != nil {
		defer func() { h.trace(r.Method, r.Filepath, r.Target, err) }()
	}
	switch r.Method {
	case "Rename":
		// SFTP's rename never replaces: link, then unlink, as OpenSSH does,
		// so that of several renames of one file exactly one succeeds.
		to := rel(r.Target)
		if err := h.root.Link(p, to); err != nil {
			return err
		}
		if err := h.root.Remove(p); err != nil {
			h.root.Remove(to)
			return err
		}
		return nil
	case "Remove", "Rmdir":
		if h.refuseRemove != nil {
			if err := h.refuseRemove(r.Filepath); err != nil {
				return err
			}
		}
		return h.root.Remove(p)
	case "Mkdir":
		return h.root.Mkdir(p, 0o750)
	case "Setstat":
		if r.AttrFlags().Acmodtime {
			a := r.Attributes()
			return h.root.Chtimes(p, a.AccessTime(), a.ModTime())
		}
		return nil
	}
	return sftp.ErrSSHFxOpUnsupported // links
}

// PosixRename is rename(2): atomic, replacing.
func (h *handlers) PosixRename(r *sftp.Request) (err error) {
	if h.trace != nil {
		defer func() { h.trace(r.Method, r.Filepath, r.Target, err) }()
	}
	if h.refuseRename != nil {
		if err := h.refuseRename(r.Filepath); err != nil {
			return err
		}
	}
	return h.root.Rename(rel(r.Filepath), rel(r.Target))
}

type listerAt []os.FileInfo

func (l listerAt) ListAt(out []os.FileInfo, off int64) (int, error) {
	if off >= int64(len(l)) {
		return 0, io.EOF
	}
	n := copy(out, l[off:])
	if n < len(out) {
		return n, io.EOF
	}
	return n, nil
}

func (h *handlers) Filelist(r *sftp.Request) (sftp.ListerAt, error) {
	p := rel(r.Filepath)
	switch r.Method {
	case "List":
		d, err := h.root.Open(p)
		if err != nil {
			return nil, err
		}
		defer d.Close()
		ents, err := d.ReadDir(-1)
		if err != nil {
			return nil, err
		}
		out := make(listerAt, 0, len(ents))
		for _, e := range ents {
			if info, err := e.Info(); err == nil {
				out = append(out, info)
			}
		}
		return out, nil
	case "Stat":
		info, err := h.root.Stat(p)
		if err != nil {
			return nil, err
		}
		return listerAt{info}, nil
	}
	return nil, sftp.ErrSSHFxOpUnsupported // readlink
}

func (h *handlers) Lstat(r *sftp.Request) (sftp.ListerAt, error) {
	info, err := h.root.Lstat(rel(r.Filepath))
	if err != nil {
		return nil, err
	}
	return listerAt{info}, nil
}

func (h *handlers) RealPath(p string) (string, error) { return path.Clean("/" + p), nil }
