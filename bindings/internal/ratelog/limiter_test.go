package ratelog_test

import (
	"bytes"
	"context"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/bindings/internal/ratelog"
)

// lines is a log whose lines a test reads.
type lines struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lines) logger() *slog.Logger { return slog.New(slog.NewTextHandler(l, nil)) }

// of returns the lines with msg, and the refusals they stand for (a line
// without a count stands for one).
func (l *lines) of(msg string) (n, total int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for line := range strings.SplitSeq(strings.TrimSpace(l.b.String()), "\n") {
		if !strings.Contains(line, " msg="+strconv.Quote(msg)+" ") && !strings.Contains(line, " msg="+msg+" ") &&
			!strings.HasSuffix(line, " msg="+msg) {
			continue
		}
		n++
		c := 1
		if _, v, ok := strings.Cut(line, " "+ratelog.CountKey+"="); ok {
			c, _ = strconv.Atoi(strings.Fields(v)[0])
		}
		total += c
	}
	return n, total
}

// TestBurst: a burst of any size within the interval is one line at once
// and, when the interval is up (here: Flush), one line with the count of
// the rest, carrying the last one's attributes.
func TestBurst(t *testing.T) {
	var out lines
	log := out.logger()
	l := ratelog.New(time.Hour)
	for i := range 10000 {
		l.Log(t.Context(), log, slog.LevelInfo, "soap: request refused", slog.Int("i", i))
	}
	n, total := out.of("soap: request refused")
	assert.Equal(t, 1, n, "one line during the burst:\n%s", out.b.String())
	assert.Equal(t, 1, total)
	l.Flush()
	n, total = out.of("soap: request refused")
	assert.Equal(t, 2, n)
	assert.Equal(t, 10000, total, "every line is in one")
	assert.Contains(t, out.b.String(), "i=9999 count=9999", "the held line shows the last one")
	for i := range 10 {
		l.Log(t.Context(), log, slog.LevelInfo, "soap: request refused", slog.Int("i", 10000+i))
	}
	n, _ = out.of("soap: request refused")
	assert.Equal(t, 2, n, "held back after a Flush too")
	l.Flush()
	l.Flush()
	n, total = out.of("soap: request refused")
	assert.Equal(t, 3, n)
	assert.Equal(t, 10010, total)
}

// TestFlood: lines that keep coming are written at most once per
// interval, the held ones when the interval is up without a Close; kinds
// are counted apart.
func TestFlood(t *testing.T) {
	var out lines
	log := out.logger()
	const interval = 20 * time.Millisecond
	l := ratelog.New(interval)
	t.Cleanup(l.Flush)
	start := time.Now()
	const per = 2000
	var wg sync.WaitGroup
	for _, msg := range []string{"a", "b"} {
		wg.Go(func() {
			for i := range per {
				l.Log(t.Context(), log, slog.LevelWarn, msg, slog.Int("i", i))
			}
		})
	}
	wg.Wait()
	took := time.Since(start)
	require.Eventually(t, func() bool {
		_, a := out.of("a")
		_, b := out.of("b")
		return a == per && b == per
	}, 10*time.Second, time.Millisecond, "every line is in one when the interval is up")
	bound := 2 + int(took/interval)
	for _, msg := range []string{"a", "b"} {
		n, _ := out.of(msg)
		assert.LessOrEqual(t, n, bound, "%s: %d lines for %d in %v", msg, n, per, took)
	}
}

// TestNegativeInterval writes every line; a level the logger leaves out
// is not counted.
func TestNegativeInterval(t *testing.T) {
	var out lines
	l := ratelog.New(-1)
	for range 5 {
		l.Log(t.Context(), out.logger(), slog.LevelInfo, "x")
	}
	n, _ := out.of("x")
	assert.Equal(t, 5, n)

	var quiet lines
	ql := slog.New(slog.NewTextHandler(&quiet, &slog.HandlerOptions{Level: slog.LevelWarn}))
	l = ratelog.New(time.Hour)
	l.Log(context.Background(), ql, slog.LevelInfo, "y")
	l.Flush()
	assert.Empty(t, quiet.b.String())
}
