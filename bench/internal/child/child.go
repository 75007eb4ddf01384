package child

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
)

// Process is a server running in a child process.
type Process struct {
	Addr  string // the address it serves on (host:port)
	cmd   *exec.Cmd
	stdin io.Closer
}

// Start runs this executable again with env=value in its environment and
// waits for the address the child prints (Serve prints it).
func Start(env, value string) (*Process, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	return StartExe(exe, env, value)
}

// StartExe is Start with another executable: another build of the same
// program, to measure two builds side by side.
func StartExe(exe, env, value string) (*Process, error) {
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), env+"="+value)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		stdin.Close()
		cmd.Wait()
		return nil, fmt.Errorf("child %s=%s: %w", env, value, err)
	}
	return &Process{Addr: strings.TrimSpace(line), cmd: cmd, stdin: stdin}, nil
}

// Pid is the child's process id (for its /proc files).
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Stop closes the child's stdin, which ends Serve, and waits for it.
func (p *Process) Stop() {
	p.stdin.Close()
	p.cmd.Wait()
}

// Serve is the child's side: it prints ln's address on stdout and serves
// srv on ln until stdin closes.
func Serve(srv *http.Server, ln net.Listener) error {
	go func() {
		io.Copy(io.Discard, os.Stdin)
		srv.Close()
	}()
	fmt.Println(ln.Addr().String())
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
