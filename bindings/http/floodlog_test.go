package http_test

import (
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soaphttp "github.com/soapwire/soapwire/bindings/http"
	"github.com/soapwire/soapwire/core"
)

// linesOf returns the log lines with msg in logs, and the refusals they
// stand for (a line without a count stands for one).
func linesOf(logs, msg string) (n, total int) {
	for line := range strings.SplitSeq(strings.TrimSpace(logs), "\n") {
		if !strings.Contains(line, `msg="`+msg+`"`) {
			continue
		}
		n++
		c := 1
		if _, v, ok := strings.Cut(line, " count="); ok {
			c, _ = strconv.Atoi(strings.Fields(v)[0])
		}
		total += c
	}
	return n, total
}

// floodKinds are refused requests of three kinds, as a flood sends them.
var floodKinds = []struct {
	msg, method, ct, body string
	status                int
}{
	{"soap: unsupported media type", "POST", "", envelope(core.V11, "", echoBody), 415},
	{"soap: method not allowed", "PUT", "text/xml", "", 405},
	{"soap: request refused", "POST", "application/soap+xml", envelope(core.V12, "", "<a:b/>"), 400},
}

// flood sends per requests of each floodKinds kind to url, 8 at a time.
func flood(t *testing.T, url string, per int) {
	t.Helper()
	tr := &http.Transport{MaxIdleConnsPerHost: 8}
	t.Cleanup(tr.CloseIdleConnections)
	client := &http.Client{Transport: tr}
	work := make(chan int)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for i := range work {
				k := floodKinds[i%len(floodKinds)]
				req, err := http.NewRequest(k.method, url, strings.NewReader(k.body))
				if !assert.NoError(t, err) {
					continue
				}
				if k.ct != "" {
					req.Header.Set("Content-Type", k.ct)
				}
				resp, err := client.Do(req)
				if !assert.NoError(t, err) {
					continue
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				assert.Equal(t, k.status, resp.StatusCode, k.msg)
			}
		})
	}
	for i := range per * len(floodKinds) {
		work <- i
	}
	close(work)
	wg.Wait()
}

// TestHandlerRefusalFloodLogs: a flood of refused requests is not a log
// line each: with the defaults, 3 x 1000 refusals in a burst are at most
// two lines of each kind (one at once, one for the rest when
// DefaultLogInterval is up), and the service still answers; with a short
// interval, every refusal is counted in a line.
func TestHandlerRefusalFloodLogs(t *testing.T) {
	const per = 1000
	t.Run("defaults", func(t *testing.T) {
		var logs syncBuffer
		srv := serve(t, echo, soaphttp.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
		start := time.Now()
		flood(t, srv.URL, per)
		took := time.Since(start)
		got := logs.take()
		for _, k := range floodKinds {
			n, _ := linesOf(got, k.msg)
			assert.GreaterOrEqual(t, n, 1, "%s: the first is logged at once", k.msg)
			assert.LessOrEqual(t, n, 2+int(took/soaphttp.DefaultLogInterval), "%s: %d lines for %d refusals in %v", k.msg, n, per, took)
		}
		tr := soaphttp.NewTransport(srv.URL)
		defer tr.CloseIdleConnections()
		reply, err := tr.RoundTrip(t.Context(), core.NewMessage(core.V11, core.RawBody([]byte(echoBody))))
		require.NoError(t, err, "served after the flood")
		require.NoError(t, reply.Body().Discard())
	})
	t.Run("every refusal counted", func(t *testing.T) {
		var logs syncBuffer
		const interval = 50 * time.Millisecond
		srv := serve(t, echo, soaphttp.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))), soaphttp.WithLogInterval(interval))
		start := time.Now()
		flood(t, srv.URL, per)
		var got strings.Builder
		require.Eventually(t, func() bool {
			got.WriteString(logs.take())
			for _, k := range floodKinds {
				if _, total := linesOf(got.String(), k.msg); total != per {
					return false
				}
			}
			return true
		}, 30*time.Second, 10*time.Millisecond, "every refusal is in a line's count")
		took := time.Since(start)
		for _, k := range floodKinds {
			n, _ := linesOf(got.String(), k.msg)
			assert.LessOrEqual(t, n, 2+int(took/interval), "%s: at most one line per interval", k.msg)
		}
	})
}
