//go:build !unix

package smtp

import "os"

// tryLock always succeeds where flock(2) is missing: there, run one Receiver
// per Maildir.
func tryLock(*os.File) (bool, error) { return true, nil }

// syncDir does nothing where directories cannot be opened for fsync.
func syncDir(string) error { return nil }

// rename is os.Rename.
func rename(oldpath, newpath string) error { return os.Rename(oldpath, newpath) }

// openFile is os.OpenFile.
func openFile(name string, flag int, perm os.FileMode) (*os.File, error) {
	return os.OpenFile(name, flag, perm)
}
