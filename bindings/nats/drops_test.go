package nats

import (
	"bytes"
	"errors"
	"log/slog"
	"regexp"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe for concurrent use.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

var dropLine = regexp.MustCompile(`requests dropped.* dropped=(\d+) total=(\d+)`)

// dropLines returns the dropped= counts of the log's lines about drops.
func dropLines(t *testing.T, log string) []int {
	t.Helper()
	var out []int
	for _, m := range dropLine.FindAllStringSubmatch(log, -1) {
		n, err := strconv.Atoi(m[1])
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, n)
	}
	return out
}

// TestDropsLoggedPerInterval: the first drop is logged at once; drops
// after it within the interval make one line when the interval is up, with
// their number; Close logs what is left, and nothing is logged after it.
// Every drop is in exactly one line.
func TestDropsLoggedPerInterval(t *testing.T) {
	var n atomic.Int64
	var gone atomic.Bool
	buf := &syncBuffer{}
	d := &drops{
		log:      slog.New(slog.NewTextHandler(buf, nil)),
		subject:  "svc.x",
		interval: 200 * time.Millisecond,
		count: func() (int, error) {
			if gone.Load() {
				return -1, errors.New("closed")
			}
			return int(n.Load()), nil
		},
	}
	d.check()
	if got := dropLines(t, buf.String()); len(got) != 0 {
		t.Fatalf("no drops, lines %v", got)
	}
	n.Store(3)
	d.check()
	if got := dropLines(t, buf.String()); len(got) != 1 || got[0] != 3 {
		t.Fatalf("the first drops are logged at once: lines %v", got)
	}
	for range 1000 { // a flood: many checks, many drops, within the interval
		n.Add(5)
		d.check()
	}
	if got := dropLines(t, buf.String()); len(got) != 1 {
		t.Fatalf("drops within the interval are held back: lines %v", got)
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(dropLines(t, buf.String())) < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got := dropLines(t, buf.String()); len(got) != 2 || got[1] != 5000 {
		t.Fatalf("once the interval is up, one line with the drops held back: lines %v", got)
	}
	n.Add(7)
	d.check() // held back again (or, on a slow machine, logged when the interval is up)
	if d.total() != 5010 {
		t.Fatalf("total %d, want 5010", d.total())
	}
	gone.Store(true)
	d.close(5012, nil) // nats.go's last count, read before the subscription ended
	atClose := buf.String()
	d.close(5012, nil)
	d.check()
	time.Sleep(300 * time.Millisecond) // past the interval: no timer writes
	if buf.String() != atClose {
		t.Fatalf("a line after Close:\n%s", buf.String())
	}
	got := dropLines(t, buf.String())
	if len(got) < 3 || len(got) > 4 {
		t.Fatalf("Close logs the drops left: lines %v", got)
	}
	sum := 0
	for _, c := range got {
		sum += c
	}
	if sum != 5012 {
		t.Errorf("the lines count %d drops, want 5012:\n%s", sum, buf.String())
	}
}
