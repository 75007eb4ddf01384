package unixsock

import (
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"syscall"
)

// Scheme is the scheme of this binding's addresses.
const Scheme = "unix"

// maxPath is the longest socket path accepted: sun_path holds 108 bytes on
// Linux and 104 on the BSDs and macOS, a terminating NUL included.
const maxPath = 103

// Address returns the address of the socket at path: "unix:" + path.
func Address(path string) string { return Scheme + ":" + path }

// ParseAddress returns the socket path of a "unix:" address.
func ParseAddress(addr string) (string, error) {
	path, ok := strings.CutPrefix(addr, Scheme+":")
	switch {
	case !ok:
		return "", fmt.Errorf("%w: %q is not a %s: address", ErrAddress, addr, Scheme)
	case path == "":
		return "", fmt.Errorf("%w: %q has no path", ErrAddress, addr)
	case strings.ContainsRune(path, 0):
		return "", fmt.Errorf("%w: %q has a NUL byte", ErrAddress, addr)
	case len(path) > maxPath:
		return "", fmt.Errorf("%w: socket path of %d bytes (at most %d): %s", ErrAddress, len(path), maxPath, path)
	}
	return path, nil
}

// Listen listens on the socket at a "unix:" address, for Server.Serve or
// Inbox.Serve. A socket file left behind by a process that died is removed
// first; a socket someone still listens on is an error. Closing the
// listener removes the socket file.
func Listen(addr string) (net.Listener, error) {
	path, err := ParseAddress(addr)
	if err != nil {
		return nil, err
	}
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&os.ModeSocket != 0 {
		c, err := net.Dial("unix", path)
		switch {
		case err == nil:
			c.Close()
			return nil, fmt.Errorf("unixsock: listen %s: someone is listening there already", path)
		case errors.Is(err, syscall.ECONNREFUSED):
			if err := os.Remove(path); err != nil {
				return nil, fmt.Errorf("unixsock: remove stale socket: %w", err)
			}
		}
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("unixsock: listen: %w", err)
	}
	return ln, nil
}
