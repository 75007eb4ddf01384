package interop

import (
	"bytes"
	"context"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// peerTimeout bounds one run of a peer client, and a peer server's start.
const peerTimeout = 2 * time.Minute

// run runs a peer client with stdin and returns what it printed; a failure
// (not a fault or error the peer reports in its output) fails t with the
// peer's standard error.
func run(t testing.TB, dir string, stdin []byte, argv ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), peerTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\nstderr:\n%s\nstdout:\n%s", strings.Join(argv, " "), err, stderr.String(), stdout.String())
	}
	return stdout.Bytes()
}

// runValues runs a peer client and reads the values it printed, one Values
// per call.
func runValues(t testing.TB, calls int, dir string, stdin []byte, argv ...string) []Values {
	t.Helper()
	out := run(t, dir, stdin, argv...)
	vals, err := ParseValues(out)
	if err != nil {
		t.Fatalf("%s printed what the harness cannot read: %v\n%s", argv[0], err, out)
	}
	if len(vals) != calls {
		t.Fatalf("%s printed the values of %d calls, not %d:\n%s", argv[0], len(vals), calls, out)
	}
	return vals
}

// lockedBuffer collects a server's standard error.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// firstLine is a server's standard output: it hands on the first line
// (or, at the end of the output, the part of it read) and drops the rest.
type firstLine struct {
	buf  []byte
	line chan string // receives one value
	sent bool
}

func (f *firstLine) Write(p []byte) (int, error) {
	if f.sent {
		return len(p), nil
	}
	f.buf = append(f.buf, p...)
	if i := bytes.IndexByte(f.buf, '\n'); i >= 0 {
		f.line <- string(f.buf[:i])
		f.sent, f.buf = true, nil
	}
	return len(p), nil
}

// startServer runs a peer server program that prints "listening PORT..."
// once it serves, and returns the ports. The program stops when the test
// ends: its standard input closes, then it is killed if it has not exited
// within 5 seconds. What it wrote to standard error is logged when the test
// failed.
func startServer(t testing.TB, dir string, argv ...string) []string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	first := &firstLine{line: make(chan string, 1)}
	cmd.Stdout = first
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatalf("%s: %v", argv[0], err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		stdin.Close()
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			cancel()
			<-exited
		}
		cancel()
		if t.Failed() {
			t.Logf("%s wrote to standard error:\n%s", strings.Join(argv, " "), stderr.String())
		}
	})
	select {
	case line := <-first.line:
		fields := strings.Fields(line)
		if len(fields) < 2 || fields[0] != "listening" {
			t.Fatalf("%s did not start (it printed %q); standard error:\n%s", strings.Join(argv, " "), line, stderr.String())
		}
		return fields[1:]
	case <-exited:
		t.Fatalf("%s exited before it listened; standard error:\n%s", strings.Join(argv, " "), stderr.String())
		return nil
	case <-time.After(peerTimeout):
		t.Fatalf("%s did not listen within %s; standard error:\n%s", strings.Join(argv, " "), peerTimeout, stderr.String())
		return nil
	}
}
