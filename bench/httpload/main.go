// Command httpload measures soapwire's HTTP server (bindings/http.NewHandler)
// beside a plain net/http handler, under the same load from the same client.
//
// Each server runs in a child process of its own (httpload re-executes
// itself with -serve), so the CPU each spends is read from its own
// /proc/PID/stat; the client runs here. The load: a keep-alive net/http
// client with -inflight requests in flight (32 by default), each POSTing
// the same 1 KiB SOAP 1.1 echoString envelope and reading the whole reply.
//
//   - soapwire: NewHandler around a core.Handler that decodes the echoString
//     request (core.ReadMessage, strict namespace-aware reading, limits) and
//     answers an echoStringResponse carrying the message (about 1 KiB),
//     built by hand: the message escaped with core.AppendEscaped into a
//     byte slice given to core.RawBody (xml.EscapeText into a bytes.Buffer
//     cost about 3 µs more per request);
//
//   - net/http: a handler that reads the body and writes a fixed 1 KiB
//     SOAP reply.
//
//   - soapwire-value: the same request decoded the same way, answered as
//     the quickstart does, with core.ValueBody of an echoStringResponse
//     struct (no hand-written escaping);
//
//   - soapwire-stream: the same without decoding into a struct: the reply
//     streams the request's body element back as it is read.
//
//   - soapwire-gen: the server soapwire gen generated from the echo
//     contract (bench/gencodec/echo.wsdl, package bench/internal/echows)
//     around an implementation of its interface: the request read and
//     checked by the generated codec, the reply written by it.
//
//   - soapwire-rpc: a core/rpc Service with the echoString operation
//     registered from a Go func (code-first).
//
// -servers chooses which run (net-http, the baseline, always does); the
// report gives each one's requests per second and server CPU per request
// against net/http's, as medians of per-round ratios.
//
// Rounds run every server in turn, in an order that rotates and reverses
// from round to round, so a change in the machine's load hits all alike;
// the figures are medians over rounds, and each ratio the median of the
// per-round ratios to net/http.
//
// With -vs, the soapwire servers of another build of httpload (another
// commit of the module, built with go build) run in the same rounds beside
// this build's, and the report gives each one's per-round ratio to this
// build's: two versions of a change measured side by side.
//
//	go run ./bench/httpload -rounds 10 -duration 3s
//	go run ./bench/httpload -servers soapwire-gen,soapwire-rpc,soapwire -rounds 10 -duration 3s
//	go run ./bench/httpload -rounds 12 -duration 2s -vs /tmp/httpload-other
package main

import (
	"bytes"
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
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/soapwire/soapwire/bench/internal/child"
	"github.com/soapwire/soapwire/bench/internal/echows"
	soaphttp "github.com/soapwire/soapwire/bindings/http"
	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/rpc"
	"github.com/soapwire/soapwire/internal/benchstat"
)

const echoNS = "urn:soapwire:bench"

// serveEnv, set in a child's environment, names the server it runs (as
// -serve does; the environment also reaches a test binary, see main_test.go).
const serveEnv = "HTTPLOAD_SERVE"

// profileEnv, set in a child's environment, is a folder where the child
// writes the CPU profile of its whole run, <kind>.pprof (-cpuprofile).
const profileEnv = "HTTPLOAD_CPUPROFILE"

func main() {
	serveKind := flag.String("serve", "", "internal: serve this kind (one of -servers' names) and print the address")
	servers := flag.String("servers", strings.Join(allKinds, ","), "the servers to run, comma-separated (net-http, the baseline, runs in any case)")
	rounds := flag.Int("rounds", 10, "rounds per server, alternating")
	duration := flag.Duration("duration", 3*time.Second, "length of each round")
	warmup := flag.Duration("warmup", time.Second, "load before the first measured round of each server")
	inflight := flag.Int("inflight", 32, "requests in flight")
	profile := flag.String("cpuprofile", "", "write each server's CPU profile (warm-up included) to `dir`/<server>.pprof")
	vs := flag.String("vs", "", "also run the soapwire servers of the httpload `binary` of another build, side by side")
	flag.Parse()
	if *profile != "" {
		os.Setenv(profileEnv, *profile)
	}
	if k := os.Getenv(serveEnv); k != "" {
		*serveKind = k
	}
	if *serveKind != "" {
		if err := serve(*serveKind); err != nil {
			log.Fatal(err)
		}
		return
	}
	kinds, err := chooseKinds(*servers)
	if err != nil {
		log.Fatal(err)
	}
	if err := run(os.Stdout, kinds, *rounds, *duration, *warmup, *inflight, *vs); err != nil {
		log.Fatal(err)
	}
}

// allKinds are the servers httpload knows, net-http (the baseline) last.
var allKinds = []string{"soapwire", "soapwire-value", "soapwire-stream", "soapwire-gen", "soapwire-rpc", "net-http"}

// chooseKinds returns the servers a -servers list names, in allKinds'
// order, net-http last.
func chooseKinds(list string) ([]string, error) {
	want := map[string]bool{"net-http": true}
	for _, k := range strings.Split(list, ",") {
		k = strings.TrimSpace(k)
		if k == "" {
			continue
		}
		if !slices.Contains(allKinds, k) {
			return nil, fmt.Errorf("-servers: unknown server %q (known: %s)", k, strings.Join(allKinds, ", "))
		}
		want[k] = true
	}
	var kinds []string
	for _, k := range allKinds {
		if want[k] {
			kinds = append(kinds, k)
		}
	}
	return kinds, nil
}

// request is the 1 KiB SOAP 1.1 echoString envelope every client sends.
func request() []byte {
	env := `<?xml version="1.0" encoding="utf-8"?>` +
		`<soap:Envelope xmlns:soap="` + core.NamespaceV11 + `"><soap:Body>` +
		`<e:echoString xmlns:e="` + echoNS + `"><message>|</message></e:echoString>` +
		`</soap:Body></soap:Envelope>`
	return []byte(strings.Replace(env, "|", strings.Repeat("x", 1024-len(env)+1), 1))
}

// fixedReply is what the plain handler writes: a 1 KiB SOAP reply, the size
// of soapwire's answer.
func fixedReply() []byte {
	env := `<?xml version="1.0" encoding="UTF-8"?>` +
		`<soap:Envelope xmlns:soap="` + core.NamespaceV11 + `"><soap:Body>` +
		`<e:echoStringResponse xmlns:e="` + echoNS + `"><return>|</return></e:echoStringResponse>` +
		`</soap:Body></soap:Envelope>`
	return []byte(strings.Replace(env, "|", strings.Repeat("x", 1024-len(env)+1), 1))
}

func handler(kind string) (http.Handler, error) {
	switch kind {
	case "soapwire":
		echo := core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
			var req struct {
				Message string `xml:"message"`
			}
			if err := m.Body().Decode(&req); err != nil {
				return nil, err
			}
			const open = `<e:echoStringResponse xmlns:e="` + echoNS + `"><return>`
			const end = `</return></e:echoStringResponse>`
			b := make([]byte, 0, len(open)+len(req.Message)+len(req.Message)/8+len(end))
			b = append(b, open...)
			b = core.AppendEscaped(b, req.Message)
			b = append(b, end...)
			return m.Reply(core.RawBody(b)), nil
		})
		return soaphttp.NewHandler(echo), nil
	case "soapwire-value":
		type echoResponse struct {
			XMLName xml.Name `xml:"urn:soapwire:bench echoStringResponse"`
			Return  string   `xml:"return"`
		}
		echo := core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
			var req struct {
				Message string `xml:"message"`
			}
			if err := m.Body().Decode(&req); err != nil {
				return nil, err
			}
			return m.Reply(core.ValueBody(&echoResponse{Return: req.Message})), nil
		})
		return soaphttp.NewHandler(echo), nil
	case "soapwire-stream":
		// No encoding/xml unmarshalling: the reply streams the request's
		// body element back inside echoStringResponse, as it is read.
		echo := core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
			name := xml.Name{Space: echoNS, Local: "echoStringResponse"}
			return m.Reply(core.StreamBody(name, func(w io.Writer) error {
				if _, err := io.WriteString(w, `<e:echoStringResponse xmlns:e="`+echoNS+`">`); err != nil {
					return err
				}
				if _, err := m.Body().WriteTo(w); err != nil {
					return err
				}
				_, err := io.WriteString(w, `</e:echoStringResponse>`)
				return err
			})), nil
		})
		return soaphttp.NewHandler(echo), nil
	case "soapwire-gen":
		return soaphttp.NewHandler(echows.NewEchoPortTypeServer(genEcho{})), nil
	case "soapwire-rpc":
		type echoRequest struct {
			Message string `xml:"message"`
		}
		type echoResponse struct {
			Return string `xml:"return"`
		}
		svc := rpc.NewService(echoNS, "Echo")
		rpc.Register(svc, "echoString", func(_ context.Context, r *echoRequest) (*echoResponse, error) {
			return &echoResponse{Return: r.Message}, nil
		})
		return soaphttp.NewHandler(svc), nil
	case "net-http":
		reply := fixedReply()
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if _, err := io.Copy(io.Discard, r.Body); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			w.Header().Set("Content-Type", "text/xml; charset=utf-8")
			w.Header().Set("Content-Length", strconv.Itoa(len(reply)))
			w.Write(reply)
		}), nil
	}
	return nil, fmt.Errorf("unknown server kind %q", kind)
}

// genEcho implements the generated echo contract's interface.
type genEcho struct{}

func (genEcho) EchoString(_ context.Context, in *echows.EchoString) (*echows.EchoStringResponse, error) {
	return &echows.EchoStringResponse{Return: in.Message}, nil
}

func (genEcho) EchoOrder(_ context.Context, in *echows.EchoOrder) (*echows.EchoOrderResponse, error) {
	return &echows.EchoOrderResponse{Return: in.Order}, nil
}

// serve runs a server of kind on a loopback port, prints its address and
// serves until stdin closes.
func serve(kind string) error {
	h, err := handler(kind)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	if dir := os.Getenv(profileEnv); dir != "" {
		f, err := os.Create(filepath.Join(dir, kind+".pprof"))
		if err != nil {
			return err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer func() {
			pprof.StopCPUProfile()
			f.Close()
		}()
	}
	return child.Serve(soaphttp.NewServer(ln.Addr().String(), h), ln)
}

// server is a server process of one kind.
type server struct {
	*child.Process
	kind string
}

// startServer starts a server of kind, of this build, or of the httpload
// binary exe when it is not "" (its kind is then reported as kind@vs).
func startServer(kind, exe string) (*server, error) {
	var p *child.Process
	var err error
	if exe == "" {
		p, err = child.Start(serveEnv, kind)
	} else {
		p, err = child.StartExe(exe, serveEnv, kind)
		kind += "@vs"
	}
	if err != nil {
		return nil, fmt.Errorf("%s server: %w", kind, err)
	}
	return &server{Process: p, kind: kind}, nil
}

// cpu is the CPU time the child has used (user + system).
func (c *server) cpu() (time.Duration, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", c.Pid()))
	if err != nil {
		return 0, err
	}
	// the fields after the command name, which is in parentheses
	s := string(data)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	if len(fields) < 13 {
		return 0, fmt.Errorf("short /proc stat: %q", s)
	}
	utime, err1 := strconv.ParseInt(fields[11], 10, 64)
	stime, err2 := strconv.ParseInt(fields[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, err
	}
	const ticks = 100 // USER_HZ on Linux
	return time.Duration(utime+stime) * time.Second / ticks, nil
}

// selfCPU is this process's CPU time: the client's.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

type round struct {
	requests  int64
	elapsed   time.Duration
	serverCPU time.Duration
	clientCPU time.Duration
}

func (r round) rps() float64 { return float64(r.requests) / r.elapsed.Seconds() }
func (r round) serverPerReq() float64 {
	return float64(r.serverCPU.Microseconds()) / float64(r.requests)
}
func (r round) clientPerReq() float64 {
	return float64(r.clientCPU.Microseconds()) / float64(r.requests)
}

// load runs inflight callers against c for d.
func load(client *http.Client, c *server, body []byte, inflight int, d time.Duration) (round, error) {
	url := "http://" + c.Addr + "/"
	var n atomic.Int64
	var firstErr error
	var once sync.Once
	stop := make(chan struct{})
	var wg sync.WaitGroup
	cpu0, err := c.cpu()
	if err != nil {
		return round{}, err
	}
	self0 := selfCPU()
	start := time.Now()
	for range inflight {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				if err := call(client, url, body); err != nil {
					once.Do(func() { firstErr = err })
					return
				}
				n.Add(1)
			}
		})
	}
	time.Sleep(d)
	close(stop)
	wg.Wait()
	elapsed := time.Since(start)
	cpu1, err := c.cpu()
	if err != nil {
		return round{}, err
	}
	return round{requests: n.Load(), elapsed: elapsed, serverCPU: cpu1 - cpu0, clientCPU: selfCPU() - self0}, firstErr
}

func call(client *http.Client, url string, body []byte) error {
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "text/xml; charset=utf-8")
	req.Header.Set("SOAPAction", `"`+echoNS+`#echoString"`)
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	n, err := io.Copy(io.Discard, resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK || n < 512 {
		return fmt.Errorf("%s: status %d, %d bytes", url, resp.StatusCode, n)
	}
	return nil
}

// run measures the servers kinds (net-http, the baseline, last).
func run(out io.Writer, kinds []string, rounds int, d, warmup time.Duration, inflight int, vs string) error {
	kinds = slices.Clone(kinds)
	base := len(kinds) - 1 // net-http, the baseline
	children := make([]*server, len(kinds))
	for i, k := range kinds {
		c, err := startServer(k, "")
		if err != nil {
			return err
		}
		defer c.Stop()
		children[i] = c
	}
	if vs != "" { // the other build's soapwire servers, after this build's
		for _, k := range kinds[:base] {
			c, err := startServer(k, vs)
			if err != nil {
				return err
			}
			defer c.Stop()
			children = append(children, c)
			kinds = append(kinds, c.kind)
		}
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 2 * inflight
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	body := request()

	fmt.Fprintf(out, "httpload: %d rounds of %s per server, %d in flight, %d-byte request, GOMAXPROCS %d, %d CPUs, %s\n",
		rounds, d, inflight, len(body), runtime.GOMAXPROCS(0), runtime.NumCPU(), runtime.Version())
	for _, c := range children {
		if _, err := load(client, c, body, inflight, warmup); err != nil {
			return fmt.Errorf("warm-up %s: %w", c.kind, err)
		}
	}
	results := make([][]round, len(kinds))
	for r := range rounds {
		// rotate the order, and reverse it every other round, so no
		// server always runs first or right after the same one
		order := make([]int, len(kinds))
		for i := range order {
			order[i] = (i + r) % len(kinds)
		}
		if r%2 == 1 {
			slices.Reverse(order)
		}
		for _, i := range order {
			res, err := load(client, children[i], body, inflight, d)
			if err != nil {
				return fmt.Errorf("%s: %w", kinds[i], err)
			}
			results[i] = append(results[i], res)
			fmt.Fprintf(out, "round %2d %-15s %8.0f req/s  server %6.1f µs/req  client %6.1f µs/req\n",
				r+1, kinds[i], res.rps(), res.serverPerReq(), res.clientPerReq())
		}
	}
	fmt.Fprintln(out)
	fmt.Fprintln(out, "| server | req/s (median) | server CPU µs/req | client CPU µs/req | req/s vs net/http | server CPU vs net/http |")
	fmt.Fprintln(out, "| --- | ---: | ---: | ---: | ---: | ---: |")
	for i, k := range kinds {
		var rps, srv, cli []float64
		for _, res := range results[i] {
			rps = append(rps, res.rps())
			srv = append(srv, res.serverPerReq())
			cli = append(cli, res.clientPerReq())
		}
		ratio, cpuRatio := "1.00x", "1.00x"
		if i != base {
			var ratios, cpuRatios []float64
			for r := range rounds {
				ratios = append(ratios, results[i][r].rps()/results[base][r].rps())
				cpuRatios = append(cpuRatios, results[i][r].serverPerReq()/results[base][r].serverPerReq())
			}
			ratio = fmt.Sprintf("**%.2fx** (median of per-round ratios)", benchstat.Median(ratios))
			cpuRatio = fmt.Sprintf("**%.2fx** (%.2f–%.2f)", benchstat.Median(cpuRatios), slices.Min(cpuRatios), slices.Max(cpuRatios))
		}
		fmt.Fprintf(out, "| %s | %.0f | %.1f | %.1f | %s | %s |\n", k, benchstat.Median(rps), benchstat.Median(srv), benchstat.Median(cli), ratio, cpuRatio)
	}
	if vs != "" {
		fmt.Fprintln(out)
		fmt.Fprintln(out, "| the other build (-vs) against this one | req/s (median of per-round ratios, min–max) | server CPU µs/req (likewise) |")
		fmt.Fprintln(out, "| --- | ---: | ---: |")
		for i := range base {
			j := base + 1 + i // the same kind of the other build
			var rps, cpu []float64
			for r := range rounds {
				rps = append(rps, results[j][r].rps()/results[i][r].rps())
				cpu = append(cpu, results[j][r].serverPerReq()/results[i][r].serverPerReq())
			}
			fmt.Fprintf(out, "| %s | %.3fx (%.3f–%.3f) | %.3fx (%.3f–%.3f) |\n", kinds[j], benchstat.Median(rps), slices.Min(rps), slices.Max(rps),
				benchstat.Median(cpu), slices.Min(cpu), slices.Max(cpu))
		}
	}
	return nil
}
