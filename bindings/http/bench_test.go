package http_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	soaphttp "github.com/soapwire/soapwire/bindings/http"
	"github.com/soapwire/soapwire/core"
)

// benchEnvelope is a 1 KiB SOAP 1.1 echoString request.
var benchEnvelope = func() []byte {
	env := envelope(core.V11, "", `<t:echoString xmlns:t="`+testNS+`"><message>|</message></t:echoString>`)
	return []byte(strings.Replace(env, "|", strings.Repeat("x", 1024-len(env)+1), 1))
}()

// BenchmarkServer compares NewHandler with an echo core.Handler against a
// plain net/http handler that reads the body and writes a fixed 1 KiB reply:
// same client, 32 requests in flight on keep-alive connections. It reports
// requests per second and the process CPU time (client and server) per
// request.
func BenchmarkServer(b *testing.B) {
	streamEcho := core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		name := m.Body().Name()
		return m.Reply(core.StreamBody(name, func(w io.Writer) error {
			_, err := m.Body().WriteTo(w)
			return err
		})), nil
	})
	fixed := benchEnvelope
	plain := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.Copy(io.Discard, r.Body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/xml; charset=utf-8")
		w.Write(fixed)
	})
	b.Run("soapwire", func(b *testing.B) { benchServer(b, soaphttp.NewHandler(streamEcho)) })
	b.Run("net-http", func(b *testing.B) { benchServer(b, plain) })
}

func benchServer(b *testing.B, h http.Handler) {
	srv := httptest.NewServer(h)
	b.Cleanup(srv.Close)
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 64
	b.Cleanup(tr.CloseIdleConnections)
	client := &http.Client{Transport: tr}
	call := func() error {
		req, err := http.NewRequest(http.MethodPost, srv.URL, bytes.NewReader(benchEnvelope))
		if err != nil {
			return err
		}
		req.Header.Set("Content-Type", "text/xml; charset=utf-8")
		req.Header.Set("SOAPAction", `"urn:echo"`)
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		n, err := io.Copy(io.Discard, resp.Body)
		if err != nil {
			return err
		}
		if resp.StatusCode != http.StatusOK || n < 1000 {
			b.Errorf("status %d, %d bytes", resp.StatusCode, n)
		}
		return nil
	}
	if err := call(); err != nil { // warm up
		b.Fatal(err)
	}
	procs := runtime.GOMAXPROCS(0)
	b.SetParallelism((32 + procs - 1) / procs)
	b.SetBytes(int64(len(benchEnvelope)))
	cpu0 := cpuTime()
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := call(); err != nil {
				b.Error(err)
				return
			}
		}
	})
	elapsed := time.Since(start)
	b.StopTimer()
	cpu := cpuTime() - cpu0
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "req/s")
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/req")
}

// cpuTime is the process's user and system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
