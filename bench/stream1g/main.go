// Command stream1g posts one very large SOAP document (1 GiB by default)
// over HTTP to a soapwire server whose handler copies the body into a file,
// and reports the server's peak memory: the body is streamed, so the peak
// resident set stays flat however large the document is.
//
// The server (bindings/http NewHandler on a loopback port, around a
// core.Handler that writes m.Body() to a file through a bufio.Writer) runs
// in a child process of its own (stream1g re-executes itself), so its peak
// resident set size is its own: VmHWM from /proc/PID/status, read once the
// reply is in. The client generates the document as it sends it (never
// holding it): a SOAP 1.1 envelope whose body is one element holding small
// records for half the size, then one text node (base64-like) for the
// other half.
//
//	go run ./bench/stream1g                 # 1 GiB, fails above 64 MiB peak RSS
//	go run ./bench/stream1g -size 256MiB -max-rss 64MiB -keep /tmp/body.xml
package main

import (
	"bufio"
	"context"
	"encoding/xml"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/soapwire/soapwire/bench/internal/child"
	soaphttp "github.com/soapwire/soapwire/bindings/http"
	"github.com/soapwire/soapwire/core"
)

// serveEnv, set in a child's environment, makes it the server, storing
// bodies in the file it names (as -serve does; the environment also reaches
// a test binary, see main_test.go).
const serveEnv = "STREAM1G_SERVE"

// docNS is the namespace of the generated document.
const docNS = "urn:soapwire:stream1g"

func main() {
	serveTo := flag.String("serve", "", "internal: serve, storing each body in this file, and print the address")
	size := flag.String("size", "1GiB", "document size: bytes, or with a KiB, MiB or GiB suffix")
	maxRSS := flag.String("max-rss", "64MiB", "fail when the server's peak RSS is above this")
	keep := flag.String("keep", "", "keep the stored body in this file (default: a temporary file, removed)")
	flag.Parse()
	if f := os.Getenv(serveEnv); f != "" {
		*serveTo = f
	}
	if *serveTo != "" {
		if err := serve(*serveTo); err != nil {
			log.Fatal(err)
		}
		return
	}
	n, err1 := parseSize(*size)
	limit, err2 := parseSize(*maxRSS)
	if err := errors.Join(err1, err2); err != nil {
		log.Fatal(err)
	}
	res, err := run(context.Background(), n, *keep)
	if err != nil {
		log.Fatal(err)
	}
	res.print(os.Stdout, limit)
	if res.ServerPeakRSS > limit {
		os.Exit(1)
	}
}

// parseSize reads "1073741824", "512MiB", "1GiB" or "64KiB".
func parseSize(s string) (int64, error) {
	mult := int64(1)
	for suffix, m := range map[string]int64{"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30} {
		if strings.HasSuffix(s, suffix) {
			s, mult = strings.TrimSuffix(s, suffix), m
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("stream1g: bad size %q", s)
	}
	return n * mult, nil
}

// result is what a run measured.
type result struct {
	Size          int64         // bytes posted
	Stored        int64         // body bytes the server wrote to the file
	Elapsed       time.Duration // from the first byte sent to the reply read
	ServerPeakRSS int64         // the server process's VmHWM
	ServerRSS     int64         // its VmRSS once done
	ClientPeakRSS int64         // this process's VmHWM
	File          string        // where the body was stored (removed unless kept)
	Records       int           // d:record elements in the document
	BlobLen       int64         // bytes in its d:blob text node
}

func (r result) print(w io.Writer, limit int64) {
	mib := func(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
	verdict := "ok"
	if r.ServerPeakRSS > limit {
		verdict = "OVER THE LIMIT"
	}
	fmt.Fprintf(w, "posted %d bytes (%s) in %v: %.0f MB/s\n", r.Size, mib(r.Size), r.Elapsed.Round(time.Millisecond),
		float64(r.Size)/r.Elapsed.Seconds()/1e6)
	fmt.Fprintf(w, "the body: %d records, then one %d-byte text node; the server stored %d bytes of it\n", r.Records, r.BlobLen, r.Stored)
	fmt.Fprintf(w, "server peak RSS (VmHWM): %s, limit %s: %s\n", mib(r.ServerPeakRSS), mib(limit), verdict)
	fmt.Fprintf(w, "server RSS at the end: %s; client peak RSS: %s\n", mib(r.ServerRSS), mib(r.ClientPeakRSS))
}

// run starts a server child, posts a document of size bytes to it and
// measures. keep, if set, is where the stored body stays.
func run(ctx context.Context, size int64, keep string) (result, error) {
	res := result{Size: size, File: keep}
	if keep == "" {
		dir, err := os.MkdirTemp("", "stream1g-")
		if err != nil {
			return res, err
		}
		defer os.RemoveAll(dir)
		res.File = filepath.Join(dir, "body.xml")
	}
	c, err := child.Start(serveEnv, res.File)
	if err != nil {
		return res, err
	}
	defer c.Stop()

	doc := newDocument(size)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+c.Addr+"/", doc)
	if err != nil {
		return res, err
	}
	req.ContentLength = size
	req.Header.Set("Content-Type", core.MediaTypeV11+"; charset=utf-8")
	req.Header.Set("SOAPAction", `"`+docNS+`#store"`)
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return res, fmt.Errorf("stream1g: post: %w", err)
	}
	defer resp.Body.Close()
	reply, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	res.Elapsed = time.Since(start)
	if err != nil {
		return res, fmt.Errorf("stream1g: reading the reply: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return res, fmt.Errorf("stream1g: the server answered %s: %s", resp.Status, reply)
	}
	var stored struct {
		Bytes int64 `xml:"Body>Stored>bytes"`
	}
	if err := xml.Unmarshal(reply, &stored); err != nil {
		return res, fmt.Errorf("stream1g: the reply %q: %w", reply, err)
	}
	res.Stored = stored.Bytes
	res.Records, res.BlobLen = doc.records, doc.blobLen
	if res.ServerPeakRSS, err = memStat(c.Pid(), "VmHWM"); err != nil {
		return res, err
	}
	if res.ServerRSS, err = memStat(c.Pid(), "VmRSS"); err != nil {
		return res, err
	}
	res.ClientPeakRSS, err = memStat(os.Getpid(), "VmHWM")
	return res, err
}

// memStat reads a size field ("VmHWM", "VmRSS") of /proc/PID/status, in
// bytes.
func memStat(pid int, field string) (int64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, fmt.Errorf("stream1g: %w", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("stream1g: %s: %q", field, line)
			}
			return kb << 10, nil
		}
	}
	return 0, fmt.Errorf("stream1g: no %s in /proc/%d/status", field, pid)
}

// store is the server's handler: it copies the request body into the file
// and answers how many bytes it wrote.
func store(path string) core.Handler {
	return core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		f, err := os.Create(path)
		if err != nil {
			return nil, err
		}
		w := bufio.NewWriterSize(f, 64<<10)
		n, err := m.Body().WriteTo(w)
		err = errors.Join(err, w.Flush(), f.Close())
		if err != nil {
			return nil, err
		}
		return m.Reply(core.RawBody([]byte(fmt.Sprintf(`<r:Stored xmlns:r="%s"><bytes>%d</bytes></r:Stored>`, docNS, n)))), nil
	})
}

// serve runs the server on a loopback port, prints its address and serves
// until stdin closes.
func serve(path string) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	h := soaphttp.NewHandler(store(path), soaphttp.WithLimits(core.Limits{MaxBytes: -1}))
	srv := soaphttp.NewServer(ln.Addr().String(), h)
	srv.ReadTimeout, srv.WriteTimeout = 0, 0 // a gigabyte takes a while on a busy machine
	return child.Serve(srv, ln)
}
