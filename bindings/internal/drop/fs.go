package drop

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"time"
)

// FS is what the engine needs of a file system: a remote server's (FTP,
// SFTP) or the local one's. Paths are absolute, slash-separated and clean;
// every name in them passed the engine's name rules.
//
// Errors: an operation on a path that does not exist returns an error for
// which errors.Is(err, fs.ErrNotExist) holds (on a server that cannot tell
// "missing" from "refused", as FTP's 550, it may say missing); an operation
// the server refuses for a reason of its own (permissions, a busy file)
// returns fs.ErrPermission in the chain. Any other error is the transport's
// (a broken connection, a timeout), and a closed client is core.ErrClosed
// in the chain. Every operation returns when ctx ends.
type FS interface {
	// List returns the entries of a folder. An entry the listing holds but
	// that cannot be read (a line too long, an unknown format) comes back
	// with its Problem set, so the engine can say so and go on.
	List(ctx context.Context, dir string) ([]Entry, error)
	// Stat returns the entry at p (Size; ModTime when the server gives it).
	Stat(ctx context.Context, p string) (Entry, error)
	// Rename moves from to to atomically on the server: of several callers
	// renaming one file, exactly one succeeds and the others get
	// fs.ErrNotExist. to is a name nobody else writes (the engine makes it
	// unique), so whether an existing to is replaced does not matter.
	Rename(ctx context.Context, from, to string) error
	// Open starts reading the file at p. ctx bounds the whole read, until
	// Close.
	Open(ctx context.Context, p string) (io.ReadCloser, error)
	// Write stores what r holds as the file p, creating or replacing it,
	// and returns once the file is durable as far as the file system can
	// say (the local one fsyncs it). On failure a partial file may be left
	// at p: the caller removes it.
	Write(ctx context.Context, p string, r io.Reader) error
	// Remove deletes the file at p.
	Remove(ctx context.Context, p string) error
	// Mkdir creates the folder p; a folder already there is no error.
	Mkdir(ctx context.Context, p string) error
}

// SizeExpecter is an optional interface of the reader FS.Open returns:
// before the first read, the engine tells it the size the listing gave (a
// hint: the file may have changed since). The first read then has room
// for more than that size, and the reader may ask for the file and for
// what follows it at once (SFTP: one round trip instead of two); what it
// returns must be what reading from the start would return.
type SizeExpecter interface {
	ExpectSize(n int64)
}

// Publisher is an optional interface of an FS: Publish does what Write(tmp,
// r) and then Rename(tmp, final) do, and may send the rename before the
// upload's end was confirmed, where the server answers in order (SFTP:
// one round trip less). Its error says which step failed
// (UploadError, RenameError); when it fails, nothing is left under final
// that the server confirmed as written whole (Publish removes it again if
// the rename went ahead of a failed end), and a partial file may be left
// at tmp: the caller removes it.
type Publisher interface {
	Publish(ctx context.Context, tmp, final string, r io.Reader) error
}

// RenameOpener is an optional interface of an FS: RenameOpen does what
// Rename(ctx, from, to) and then, when it succeeded, Open(openCtx, to) do,
// and may send the open before the rename's answer came, where the server
// answers in order (SFTP: one round trip less). renameErr is the rename's
// error (then rc is nil and openErr nil), openErr the open's. The rename
// is bounded by ctx only; openCtx bounds the read, until Close.
type RenameOpener interface {
	RenameOpen(ctx, openCtx context.Context, from, to string) (rc io.ReadCloser, renameErr, openErr error)
}

// UploadError and RenameError are the errors of Store's two steps, also
// returned by Publisher.Publish.
func UploadError(err error) error { return fmt.Errorf("upload: %w", err) }

// RenameError: see UploadError.
func RenameError(tmp string, err error) error {
	return fmt.Errorf("rename %s: %w", path.Base(tmp), err)
}

// Entry is a file or folder in a listing.
type Entry struct {
	Name    string
	Kind    Kind
	Size    int64
	ModTime time.Time // zero when the server does not say
	// Problem, when set, says why the entry could not be read; Name may
	// then be empty or cut.
	Problem string
}

// Kind is what an entry is.
type Kind uint8

const (
	File  Kind = iota // a regular file
	Dir               // a folder
	Other             // a link, a device, anything else
)

func (k Kind) String() string {
	switch k {
	case File:
		return "file"
	case Dir:
		return "folder"
	}
	return "not a regular file"
}

// Errors of the engine, shared by every file-drop binding.
var (
	// ErrLeaseLost: a claimed file was no longer in the work folder when the
	// delivery was settled, because its lease ran out and another Poller
	// returned it to the inbox. The message will be (or was) processed
	// again.
	ErrLeaseLost = errors.New("file drop: claim lost (lease expired)")
	// ErrTooLarge: a file is larger than Limits.MaxBytes.
	ErrTooLarge = errors.New("file drop: file too large")
	// ErrUnsafeName: a file name cannot be used as a single path element.
	ErrUnsafeName = errors.New("file drop: unsafe file name")
	// ErrStalled: a transfer went silent for longer than its stall limit.
	ErrStalled = errors.New("file drop: transfer stalled")
)

func notExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
func refused(err error) bool  { return errors.Is(err, fs.ErrPermission) }
