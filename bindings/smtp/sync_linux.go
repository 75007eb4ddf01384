//go:build linux

package smtp

import (
	"os"
	"runtime"
	"syscall"
)

// syncData makes f's data durable: fdatasync(2), which leaves out
// metadata that reading the data back does not need (the times).
func syncData(f *os.File) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := rc.Control(func(fd uintptr) {
		for {
			serr = syscall.Fdatasync(int(fd))
			if serr != syscall.EINTR {
				return
			}
		}
	}); err != nil {
		return err
	}
	if serr != nil {
		return &os.PathError{Op: "fdatasync", Path: f.Name(), Err: serr}
	}
	return nil
}

// syncFS writes out all unsaved data of the file system f is on, and waits
// for it: syncfs(2). Since Linux 5.8 it reports write errors.
func syncFS(f *os.File) error {
	nr, ok := sysSyncfs()
	if !ok {
		return errNoSyncFS
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var errno syscall.Errno
	if err := rc.Control(func(fd uintptr) {
		for {
			_, _, errno = syscall.Syscall(nr, fd, 0, 0)
			if errno != syscall.EINTR {
				return
			}
		}
	}); err != nil {
		return err
	}
	switch errno {
	case 0:
		return nil
	case syscall.ENOSYS:
		return errNoSyncFS
	}
	return &os.PathError{Op: "syncfs", Path: f.Name(), Err: errno}
}

// syncEverything writes out all unsaved data of the file system f is on:
// syncfs(2), or sync(2) where the kernel lacks syncfs.
func syncEverything(f *os.File) error {
	err := syncFS(f)
	if err == errNoSyncFS {
		syscall.Sync()
		return nil
	}
	return err
}

// haveSyncFS reports whether syncFS may work here.
func haveSyncFS() bool {
	_, ok := sysSyncfs()
	return ok
}

// sysSyncfs returns syncfs(2)'s number (the syscall package leaves it
// out; these are golang.org/x/sys/unix's SYS_SYNCFS).
func sysSyncfs() (uintptr, bool) {
	switch runtime.GOARCH {
	case "amd64":
		return 306, true
	case "386":
		return 344, true
	case "arm":
		return 373, true
	case "arm64", "loong64", "riscv64":
		return 267, true
	case "ppc", "ppc64", "ppc64le":
		return 348, true
	case "s390x":
		return 338, true
	case "sparc64":
		return 335, true
	case "mips", "mipsle":
		return 4342, true
	case "mips64", "mips64le":
		return 5301, true
	}
	return 0, false
}
