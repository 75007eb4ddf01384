// Command attach1g posts one very large attachment (1 GiB by default) over
// HTTP as an MTOM package to a soapwire server whose handler copies the
// attachment to a file, reports the server's peak memory, and measures the
// same upload against a plain net/http handler that copies a multipart
// upload to a file, in the same run.
//
// Each server runs in a child process of its own (attach1g re-executes
// itself), so its peak resident set size is its own: VmHWM from
// /proc/PID/status, read once every round is done. The client generates the
// package as it sends it (never holding it): a SOAP 1.1 envelope in an
// application/xop+xml root part whose data element is an xop:Include, then
// the part. The soapwire server (bindings/http NewHandler) reads it with
// core.ReadPackage, which spools the part beyond 1 MiB to a temporary file;
// the handler decodes the body (core.Binary resolves the xop:Include to the
// part) and copies the part to the destination file. The baseline reads the
// same bytes with mime/multipart and copies the part to its file once. Both
// sync the file before answering (stored means on disk); the client syncs
// the file systems before each upload, untimed, so that no upload pays for
// the writeback of the one before. Rounds alternate which server goes
// first; the figures are medians.
//
// With -transport file the message goes through a file drop instead: the
// client drops it as one MIME file in each server's inbox (bindings/file),
// a soapfile.Poller under core.Serve with the same handler against a plain
// loop over the folder that copies the part with mime/multipart (file.go).
//
//	go run ./bench/attach1g                 # 1 GiB, 3 rounds, fails above 64 MiB peak RSS
//	go run ./bench/attach1g -size 256MiB -rounds 5 -max-rss 64MiB
//	go run ./bench/attach1g -transport file # the same through a local folder
package main

import (
	"context"
	"encoding/xml"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/soapwire/soapwire/bench/internal/child"
)

// serveEnv, set in a child's environment as KIND|FILE|SPOOLDIR, makes it a
// server (the environment also reaches a test binary, see main_test.go).
const serveEnv = "ATTACH1G_SERVE"

// docNS is the namespace of the request and reply.
const docNS = "urn:soapwire:attach1g"

func main() {
	size := flag.String("size", "1GiB", "attachment size: bytes, or with a KiB, MiB or GiB suffix")
	maxRSS := flag.String("max-rss", "64MiB", "fail when the soapwire server's peak RSS is above this")
	rounds := flag.Int("rounds", 3, "uploads to each server, alternating which goes first")
	transport := flag.String("transport", "http", "http: POSTed as an MTOM package; file: dropped as a MIME file in a local folder (bindings/file)")
	flag.Parse()
	if v := os.Getenv(serveEnv); v != "" {
		if err := serveFromEnv(v); err != nil {
			log.Fatal(err)
		}
		return
	}
	n, err1 := parseSize(*size)
	limit, err2 := parseSize(*maxRSS)
	if err := errors.Join(err1, err2); err != nil {
		log.Fatal(err)
	}
	if *rounds < 1 {
		log.Fatal("attach1g: -rounds must be at least 1")
	}
	run := run
	switch *transport {
	case "http":
	case "file":
		run = runFile
	default:
		log.Fatalf("attach1g: -transport %q: http or file", *transport)
	}
	res, err := run(context.Background(), n, *rounds, "")
	if err != nil {
		log.Fatal(err)
	}
	res.print(os.Stdout, limit)
	if res.PeakRSS["soapwire"] > limit {
		os.Exit(1)
	}
}

// serveFromEnv runs the server serveEnv's value describes.
func serveFromEnv(v string) error {
	f := strings.SplitN(v, "|", 4)
	switch len(f) {
	case 3:
		return serve(f[0], f[1], f[2])
	case 4:
		return serveFile(f[0], f[1], f[2], f[3])
	}
	return fmt.Errorf("attach1g: %s=%q is not KIND|FILE|SPOOLDIR or KIND|FILE|SPOOLDIR|ENDPOINT", serveEnv, v)
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
		return 0, fmt.Errorf("attach1g: bad size %q", s)
	}
	return n * mult, nil
}

// servers are the two servers, in the order of the first round.
var servers = []string{"soapwire", "plain"}

// result is what a run measured.
type result struct {
	Transport string                     // "" (http) or "file"
	Size      int64                      // attachment bytes per upload
	Posted    int64                      // package bytes per upload (file: the MIME file's)
	Times     map[string][]time.Duration // per server, per round: first byte sent to reply read (file: file renamed into the inbox to reply in the outbox)
	Writes    map[string][]time.Duration // file: per server, per round: the client writing the file
	PeakRSS   map[string]int64           // per server: VmHWM after every round
	Files     map[string]string          // per server: where the last part was stored (removed unless kept)
}

// median is the median time of a server.
func (r result) median(server string) time.Duration {
	t := slices.Clone(r.Times[server])
	slices.Sort(t)
	if len(t) == 0 {
		return 0
	}
	if len(t)%2 == 1 {
		return t[len(t)/2]
	}
	return (t[len(t)/2-1] + t[len(t)/2]) / 2
}

func (r result) print(w io.Writer, limit int64) {
	mib := func(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
	rate := func(d time.Duration) float64 { return float64(r.Size) / d.Seconds() / 1e6 }
	baseline := "plain net/http"
	if r.Transport == "file" {
		baseline = "plain folder loop"
		fmt.Fprintf(w, "an MTOM message, a MIME file of %d bytes (a %s part), dropped %d times in each server's inbox (bindings/file)\n", r.Posted, mib(r.Size), len(r.Times["soapwire"]))
	} else {
		fmt.Fprintf(w, "an MTOM package of %d bytes (a %s part) posted %d times to each server\n", r.Posted, mib(r.Size), len(r.Times["soapwire"]))
	}
	var ratios []float64
	for i := range r.Times["soapwire"] {
		s, p := r.Times["soapwire"][i], r.Times["plain"][i]
		ratios = append(ratios, p.Seconds()/s.Seconds())
		fmt.Fprintf(w, "round %d: soapwire %v (%.0f MB/s), %s %v (%.0f MB/s): %.2fx", i+1,
			s.Round(time.Millisecond), rate(s), baseline, p.Round(time.Millisecond), rate(p), ratios[i])
		if r.Transport == "file" {
			fmt.Fprintf(w, " (the client wrote the files in %v and %v)", r.Writes["soapwire"][i].Round(time.Millisecond), r.Writes["plain"][i].Round(time.Millisecond))
		}
		fmt.Fprintln(w)
	}
	slices.Sort(ratios)
	s, p := r.median("soapwire"), r.median("plain")
	fmt.Fprintf(w, "median: soapwire %v (%.0f MB/s), %s %v (%.0f MB/s): soapwire at %.2fx the baseline's throughput (median of the rounds' ratios %.2fx)\n",
		s.Round(time.Millisecond), rate(s), baseline, p.Round(time.Millisecond), rate(p), p.Seconds()/s.Seconds(), ratios[len(ratios)/2])
	verdict := "ok"
	if r.PeakRSS["soapwire"] > limit {
		verdict = "OVER THE LIMIT"
	}
	fmt.Fprintf(w, "soapwire server peak RSS (VmHWM): %s, limit %s: %s\n", mib(r.PeakRSS["soapwire"]), mib(limit), verdict)
	fmt.Fprintf(w, "%s server peak RSS (VmHWM): %s\n", baseline, mib(r.PeakRSS["plain"]))
}

// run starts both servers, posts a package with a part of size bytes to
// each, rounds times, and measures. keep, when set, is a folder where each
// server's stored part stays (soapwire.bin, plain.bin).
func run(ctx context.Context, size int64, rounds int, keep string) (result, error) {
	res := result{Size: size, Posted: newPackage(size).Len(), Times: map[string][]time.Duration{},
		PeakRSS: map[string]int64{}, Files: map[string]string{}}
	dir := keep
	tmp, err := os.MkdirTemp("", "attach1g-")
	if err != nil {
		return res, err
	}
	defer os.RemoveAll(tmp)
	if dir == "" {
		dir = tmp
	}
	spool := filepath.Join(tmp, "spool")
	if err := os.Mkdir(spool, 0o700); err != nil {
		return res, err
	}
	children := map[string]*child.Process{}
	for _, s := range servers {
		res.Files[s] = filepath.Join(dir, s+".bin")
		c, err := child.Start(serveEnv, s+"|"+res.Files[s]+"|"+spool)
		if err != nil {
			return res, err
		}
		defer c.Stop()
		children[s] = c
	}
	for i := 0; i < rounds; i++ {
		order := servers
		if i%2 == 1 {
			order = []string{servers[1], servers[0]}
		}
		for _, s := range order {
			// each upload starts with no dirty pages of the one before
			// waiting to be written back (untimed)
			syscall.Sync()
			d, err := post(ctx, children[s].Addr, size)
			if err != nil {
				return res, fmt.Errorf("attach1g: %s server: %w", s, err)
			}
			res.Times[s] = append(res.Times[s], d)
		}
	}
	for _, s := range servers {
		if res.PeakRSS[s], err = memStat(children[s].Pid(), "VmHWM"); err != nil {
			return res, err
		}
	}
	return res, nil
}

// post sends one package with a part of size bytes and checks the reply
// counts them all.
func post(ctx context.Context, addr string, size int64) (time.Duration, error) {
	p := newPackage(size)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+addr+"/", p)
	if err != nil {
		return 0, err
	}
	req.ContentLength = p.Len()
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("SOAPAction", `"`+docNS+`#store"`)
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, fmt.Errorf("post: %w", err)
	}
	defer resp.Body.Close()
	reply, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	elapsed := time.Since(start)
	if err != nil {
		return 0, fmt.Errorf("reading the reply: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("the server answered %s: %s", resp.Status, reply)
	}
	var stored struct {
		Bytes int64 `xml:"bytes"`
	}
	if i := strings.Index(string(reply), "<a:stored"); i >= 0 {
		reply = reply[i:]
		if j := strings.Index(string(reply), "</a:stored>"); j >= 0 {
			reply = reply[:j+len("</a:stored>")]
		}
	}
	if err := xml.Unmarshal(reply, &stored); err != nil {
		return 0, fmt.Errorf("the reply %q: %w", reply, err)
	}
	if stored.Bytes != size {
		return 0, fmt.Errorf("the server stored %d bytes of %d", stored.Bytes, size)
	}
	return elapsed, nil
}

// memStat reads a size field ("VmHWM", "VmRSS") of /proc/PID/status, in
// bytes.
func memStat(pid int, field string) (int64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, fmt.Errorf("attach1g: %w", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("attach1g: %s: %q", field, line)
			}
			return kb << 10, nil
		}
	}
	return 0, fmt.Errorf("attach1g: no %s in /proc/%d/status", field, pid)
}
