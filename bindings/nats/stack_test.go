package nats

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/nats-io/nats.go"

	"github.com/soapwire/soapwire/core"
)

// stackLimit is the stack a request's handling must fit in: a goroutine's
// stack of 4 KiB. A worker or a caller whose stack the collector has shrunk
// to 4 KiB while it waited then does not copy it to a larger one for the
// next message (see docs/benchmarks.md, NATS).
const stackLimit = 4096

// stackChildEnv names the part of TestHandlingFitsStack a child process
// runs.
const stackChildEnv = "SOAPWIRE_STACK_CHILD"

// TestHandlingFitsStack runs, in a child process whose goroutines may not
// grow their stacks beyond stackLimit (debug.SetMaxStack: beyond it the
// runtime ends the process), what a Subscription's worker and a
// Transport's caller do with a 1 KiB request and its echoed reply on a
// goroutine of their own: read the request with its headers, stream its
// body into the reply, write the reply as a NATS message, and read that
// reply back to its end. A control child, whose goroutine takes one frame
// larger than the limit, must be ended by the runtime: so the limit holds.
func TestHandlingFitsStack(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes every frame larger")
	}
	switch os.Getenv(stackChildEnv) {
	case "handle":
		stackChild(t, handleOnce)
		return
	case "control":
		stackChild(t, func() error {
			var pad [stackLimit]byte
			return deep(pad[:])
		})
		return
	}
	run := func(mode string) (string, error) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHandlingFitsStack$", "-test.count=1")
		cmd.Env = append(os.Environ(), stackChildEnv+"="+mode)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := run("handle")
	if err != nil {
		t.Fatalf("handling a request and its reply needs more than %d bytes of stack: %v\n%s", stackLimit, err, overflow(out))
	}
	out, err = run("control")
	if err == nil || !strings.Contains(out, "stack exceeds") {
		t.Fatalf("the control child was not stopped by the stack limit (err %v):\n%s", err, overflow(out))
	}
}

// stackChild runs f on a goroutine of its own under the stack limit.
func stackChild(t *testing.T, f func() error) {
	errc := make(chan error, 1)
	old := debug.SetMaxStack(stackLimit)
	go func() { errc <- f() }()
	err := <-errc
	debug.SetMaxStack(old)
	if err != nil {
		t.Fatal(err)
	}
}

//go:noinline
func deep(b []byte) error {
	if len(b) > 0 && b[0] != 0 {
		return io.ErrUnexpectedEOF
	}
	return nil
}

// handleOnce does what a worker and a caller do with one request (see
// TestHandlingFitsStack).
func handleOnce() error {
	req := core.NewMessage(core.V11, core.RawBody([]byte(`<t:echo xmlns:t="urn:test">`+strings.Repeat("x", 900)+`</t:echo>`)))
	req.Action = "urn:test:echo"
	in, err := Encode(req, "stack.test", 0)
	if err != nil {
		return err
	}
	// The worker: the request read, its body streamed into the reply.
	m, f := decode(in.Data, in.Header, core.Limits{}, true)
	if f != nil {
		return f
	}
	reply := m.Reply(core.StreamBody(m.Body().Name(), func(w io.Writer) error {
		_, err := m.Body().WriteTo(w)
		return err
	}))
	o := &outgoing{hdr: make(nats.Header, 4)}
	out, err := encode(o, reply, "_INBOX.stack", "", 0)
	if err != nil {
		return err
	}
	// The caller: the reply read to its end.
	tr := &Transport{}
	r, err := tr.reply("stack.test", &nats.Msg{Data: bytes.Clone(out.Data), Header: out.Header})
	if err != nil {
		return err
	}
	if err := r.Body().Discard(); err != nil {
		return err
	}
	return nil
}

// overflow returns what the runtime said about the goroutine that went
// over the limit: the first lines of its report, which end with that
// goroutine's stack.
func overflow(s string) string {
	if i := strings.Index(s, "runtime: goroutine stack exceeds"); i >= 0 {
		s = s[i:]
	}
	if len(s) > 3000 {
		s = s[:3000]
	}
	return s
}
