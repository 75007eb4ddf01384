package nats_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soapnats "github.com/soapwire/soapwire/bindings/nats"
	"github.com/soapwire/soapwire/core"
)

// floodEnv names the server a TestFloodChild process serves on.
const floodEnv = "SOAPWIRE_NATS_FLOOD_URL"

// floodRequests is how many requests TestFloodBounded publishes.
const floodRequests = 600_000

// floodRSSBound is what a flood may add to the serving process's resident
// memory with the default pending limits (docs/security.md).
const floodRSSBound = 64 << 20

// TestFloodChild is the serving process of TestFloodBounded: it serves a
// streaming echo with the default options on svc.flood until its standard
// input closes, then closes the Subscription and prints what it served,
// what was dropped and its peak resident memory.
func TestFloodChild(t *testing.T) {
	url := os.Getenv(floodEnv)
	if url == "" {
		t.Skip("the serving process of TestFloodBounded")
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	// nats.go's default error handler prints a line each time a
	// subscription falls behind; the Subscription counts and logs those
	// (docs/bindings/nats.md).
	nc, err := nats.Connect(url, nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
		if !errors.Is(err, nats.ErrSlowConsumer) {
			log.Error("nats", "err", err)
		}
	}))
	require.NoError(t, err)
	defer nc.Close()
	var served atomic.Int64
	h := core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		served.Add(1)
		return streamEcho(ctx, m)
	})
	sub, err := soapnats.Subscribe(context.Background(), nc, "svc.flood", h, soapnats.WithLogger(log))
	require.NoError(t, err)
	fmt.Println("ready")
	_, _ = io.Copy(io.Discard, os.Stdin)
	require.NoError(t, sub.Close())
	fmt.Printf("served=%d dropped=%d reconnects=%d\n", served.Load(), sub.Dropped(), nc.Stats().Reconnects)
}

// TestFloodBounded: a flood of requests (600,000, as fast as this process
// can publish them) at a service served with the default options, in a
// process of its own, costs it a bounded amount of memory (its peak
// resident memory, VmHWM, at most floodRSSBound above what it held before)
// and a few log lines, not one a dropped request; every request is either
// served or counted as dropped; requests made during the flood are
// answered or time out (nothing else); and once the flood is absorbed the
// service answers every request.
func TestFloodBounded(t *testing.T) {
	if raceEnabled {
		t.Skip("a flood measures a process's memory and speed, which the race detector changes (run without -race)")
	}
	s := startServer(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestFloodChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), floodEnv+"="+s.URL())
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	waitLine(t, lines, "ready")

	call := benchCall(soapnats.NewTransport(connect(t, s), "svc.flood"))
	var sent atomic.Int64 // requests to svc.flood
	for range 200 {       // warm up: the baseline is a process that has served
		sent.Add(1)
		require.NoError(t, call(testCtx(t)))
	}
	before := procStatus(t, cmd.Process.Pid, "VmRSS")

	// The flood, from a connection of its own, with the headers soapwire
	// writes and a reply subject nothing listens on.
	in, _ := wireMsgs(t)
	flood := &nats.Msg{Subject: "svc.flood", Reply: "flood.nowhere", Header: in.Header, Data: in.Data}
	fc := connect(t, s)
	var during struct {
		sync.Mutex
		answered, unanswered int
		other                []error
	}
	stop := make(chan struct{})
	var legit sync.WaitGroup
	legit.Add(1)
	go func() { // requests made during the flood
		defer legit.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			sent.Add(1)
			err := call(ctx)
			cancel()
			during.Lock()
			switch {
			case err == nil:
				during.answered++
			case errors.Is(err, context.DeadlineExceeded), errors.Is(err, soapnats.ErrNoResponders):
				during.unanswered++
			default:
				during.other = append(during.other, err)
			}
			during.Unlock()
		}
	}()
	start := time.Now()
	for range floodRequests {
		require.NoError(t, fc.PublishMsg(flood))
	}
	sent.Add(floodRequests)
	require.NoError(t, fc.FlushTimeout(time.Minute))
	published := time.Since(start)
	close(stop)
	legit.Wait()

	// Once the flood is absorbed, the service answers.
	absorbed := false
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		sent.Add(1)
		err := call(ctx)
		cancel()
		if err == nil {
			absorbed = true
			break
		}
		if !errors.Is(err, soapnats.ErrNoResponders) { // the server cut the child off as a slow reader: it reconnects
			require.ErrorIs(t, err, context.DeadlineExceeded)
		}
	}
	require.True(t, absorbed, "the service answers within 30 s of the flood's end")
	for range 100 {
		sent.Add(1)
		require.NoError(t, call(testCtx(t)), "a request after the flood")
	}
	peak := procStatus(t, cmd.Process.Pid, "VmHWM")

	require.NoError(t, stdin.Close())
	result := waitLine(t, lines, "served=")
	require.NoError(t, cmd.Wait())
	elapsed := time.Since(start)
	var served, dropped, reconnects int64
	_, err = fmt.Sscanf(result, "served=%d dropped=%d reconnects=%d", &served, &dropped, &reconnects)
	require.NoError(t, err, result)

	log := stderr.String()
	counts := regexp.MustCompile(`requests dropped.* dropped=(\d+)`).FindAllStringSubmatch(log, -1)
	var logged int64
	for _, m := range counts {
		n, err := strconv.ParseInt(m[1], 10, 64)
		require.NoError(t, err)
		logged += n
	}
	t.Logf("%d requests published in %s (%.0f/s); served %d, dropped %d in %d log lines; resident memory %d MiB before, peak %d MiB; during the flood %d answered, %d not",
		floodRequests, published.Round(time.Millisecond), float64(floodRequests)/published.Seconds(), served, dropped, len(counts),
		before>>20, peak>>20, during.answered, during.unanswered)

	assert.LessOrEqual(t, peak-before, int64(floodRSSBound), "the flood's cost in resident memory")
	assert.Positive(t, dropped, "the flood overflowed the pending buffer")
	if reconnects == 0 {
		assert.Equal(t, sent.Load(), served+dropped, "every request served or counted as dropped")
	} else {
		// The server cut the child's connection (it read too slowly: the
		// server's own slow-consumer limit), dropping what it held for it.
		t.Logf("the child reconnected %d times", reconnects)
		assert.LessOrEqual(t, served+dropped, sent.Load())
	}
	assert.Equal(t, dropped, logged, "every drop is in a log line:\n%s", log)
	assert.LessOrEqual(t, len(counts), 2+int(elapsed/(10*time.Second)), "at most one line about drops per ten seconds, and one on Close:\n%s", log)
	assert.LessOrEqual(t, strings.Count(log, "\n"), len(counts)+2, "no other log lines:\n%s", log)
	assert.Empty(t, during.other, "a request during the flood is answered or times out")
}

// waitLine returns the first line from lines that starts with prefix.
func waitLine(t *testing.T, lines <-chan string, prefix string) string {
	t.Helper()
	timeout := time.After(time.Minute)
	for {
		select {
		case l, ok := <-lines:
			require.True(t, ok, "the child process ended before printing %q", prefix)
			if strings.HasPrefix(l, prefix) {
				return l
			}
		case <-timeout:
			t.Fatalf("the child process did not print %q", prefix)
		}
	}
}

// procStatus returns a memory figure (VmRSS, VmHWM) of process pid, in
// bytes, from /proc (the test skips where there is none).
func procStatus(t *testing.T, pid int, field string) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			require.NoError(t, err, line)
			return kb << 10
		}
	}
	t.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}
