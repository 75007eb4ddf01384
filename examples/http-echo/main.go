// Command http-echo serves a core/rpc Service over HTTP with bindings/http
// (its WSDL at ?wsdl included) and calls it with an rpc.Client over a
// bindings/http Transport, in SOAP 1.1 and 1.2: the WSDL's summary, calls
// and their results, faults with their HTTP status, and one raw POST as any
// other client would send it.
//
//	go run ./examples/http-echo                      # the tour, on a loopback port
//	go run ./examples/http-echo -serve 127.0.0.1:8080 # serve until interrupted (SIGINT, SIGTERM)
package main

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"

	soaphttp "github.com/soapwire/soapwire/bindings/http"
	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/rpc"
)

// ns is the service namespace.
const ns = "urn:example:echo"

func main() {
	addr := flag.String("serve", "", "serve the service at this address (host:port) until interrupted, instead of the tour")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var err error
	if *addr != "" {
		var ln net.Listener
		if ln, err = net.Listen("tcp", *addr); err == nil {
			err = serve(ctx, ln, os.Stdout)
		}
	} else {
		err = run(ctx, os.Stdout)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "http-echo:", err)
		os.Exit(1)
	}
}

// The operations' request and response structs: parameters in field
// order, names from the soap tags; the first field of a response is the
// return value.
type (
	EchoReq struct {
		Text string `soap:"text"`
	}
	EchoResp struct {
		Text string `soap:"return"`
	}
	AddReq struct {
		A int32 `soap:"a"`
		B int32 `soap:"b"`
	}
	AddResp struct {
		Sum int32 `soap:"return"`
	}
	DivideReq struct {
		Dividend int32 `soap:"dividend"`
		Divisor  int32 `soap:"divisor"`
	}
	DivideResp struct {
		Quotient  int32 `soap:"return"`
		Remainder int32 `soap:"remainder"`
	}
)

// DivisionByZero is the detail of divide's fault.
type DivisionByZero struct {
	XMLName  xml.Name `xml:"urn:example:echo DivisionByZero"`
	Dividend int32    `xml:"Dividend"`
}

// service returns the Echo service: three operations, document/literal
// wrapped (rpc.WithStyle selects rpc/literal or rpc/encoded instead).
func service() *rpc.Service {
	svc := rpc.NewService(ns, "Echo")
	rpc.Register(svc, "echo", func(_ context.Context, r *EchoReq) (*EchoResp, error) {
		return &EchoResp{Text: r.Text}, nil
	}, rpc.WithDoc("Returns its text."))
	rpc.Register(svc, "add", func(_ context.Context, r *AddReq) (*AddResp, error) {
		return &AddResp{Sum: r.A + r.B}, nil
	}, rpc.WithDoc("Adds two numbers."))
	rpc.Register(svc, "divide", func(_ context.Context, r *DivideReq) (*DivideResp, error) {
		if r.Divisor == 0 {
			detail, err := xml.Marshal(DivisionByZero{Dividend: r.Dividend})
			if err != nil {
				return nil, err
			}
			return nil, &core.Fault{
				Code:     core.CodeSender,
				Subcodes: []xml.Name{{Space: ns, Local: "DivisionByZero"}},
				Reason:   "division by zero",
				Detail:   detail,
			}
		}
		return &DivideResp{Quotient: r.Dividend / r.Divisor, Remainder: r.Dividend % r.Divisor}, nil
	}, rpc.WithDoc("Divides, with the remainder; a Sender fault for a zero divisor."))
	return svc
}

// handler mounts the service at /echo. NewHandler answers POSTs in both
// versions and GET ?wsdl, because a Service is a soaphttp.Describer.
func handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/echo", soaphttp.NewHandler(service()))
	return mux
}

// run starts the server on a loopback port, makes the calls and stops.
func run(ctx context.Context, w io.Writer) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := soaphttp.NewServer(ln.Addr().String(), handler())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); _ = srv.Serve(ln) }()
	defer func() { _ = srv.Close(); wg.Wait() }()
	url := "http://" + ln.Addr().String() + "/echo"
	show := func(s string) string { return strings.ReplaceAll(s, url, "$URL") }
	fmt.Fprintln(w, "server: the Echo service (document/literal wrapped) at $URL")

	if err := describe(ctx, w, url, show); err != nil {
		return err
	}

	tr := soaphttp.NewTransport(url)
	defer tr.CloseIdleConnections()
	c11 := rpc.NewClient(tr, ns) // SOAP 1.1 is the default
	c12 := rpc.NewClient(tr, ns, rpc.WithVersion(core.V12))

	echo, err := rpc.Call[EchoResp](ctx, c11, "echo", EchoReq{Text: "hello, <SOAP> & co"})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "client (SOAP 1.1): echo %q -> %q\n", "hello, <SOAP> & co", echo.Text)
	sum, err := rpc.Call[AddResp](ctx, c12, "add", AddReq{A: 2, B: 40})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "client (SOAP 1.2): add 2 + 40 -> %d\n", sum.Sum)
	q, err := rpc.Call[DivideResp](ctx, c12, "divide", DivideReq{Dividend: 17, Divisor: 5})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "client (SOAP 1.2): divide 17 / 5 -> %d remainder %d\n", q.Quotient, q.Remainder)

	for _, c := range []struct {
		name   string
		client *rpc.Client
		op     string
		req    any
	}{
		{"client (SOAP 1.2): divide 1 / 0", c12, "divide", DivideReq{Dividend: 1}},
		{"client (SOAP 1.1): divide 1 / 0", c11, "divide", DivideReq{Dividend: 1}},
		{"client (SOAP 1.2): multiply 6 * 7", c12, "multiply", AddReq{A: 6, B: 7}},
	} {
		var resp DivideResp
		err := c.client.Call(ctx, c.op, c.req, &resp)
		if err := printFault(w, c.name, err); err != nil {
			return err
		}
	}
	return rawPost(ctx, w, url)
}

// describe fetches the WSDL and prints what it says.
func describe(ctx context.Context, w io.Writer, url string, show func(string) string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+"?wsdl", nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var def struct {
		Name      string `xml:"name,attr"`
		Namespace string `xml:"targetNamespace,attr"`
		Ops       []struct {
			Name string `xml:"name,attr"`
		} `xml:"portType>operation"`
		Ports []struct {
			Name    string `xml:"name,attr"`
			Address []struct {
				XMLName  xml.Name
				Location string `xml:"location,attr"`
			} `xml:",any"`
		} `xml:"service>port"`
	}
	if err := xml.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&def); err != nil {
		return fmt.Errorf("read the WSDL: %w", err)
	}
	fmt.Fprintf(w, "client: GET $URL?wsdl -> %d %s\n", resp.StatusCode, resp.Header.Get("Content-Type"))
	fmt.Fprintf(w, "  service %s, namespace %s\n", def.Name, def.Namespace)
	ops := make([]string, 0, len(def.Ops))
	for _, op := range def.Ops {
		ops = append(ops, op.Name)
	}
	fmt.Fprintf(w, "  operations: %s\n", strings.Join(ops, ", "))
	for _, p := range def.Ports {
		for _, a := range p.Address {
			version := map[string]string{
				"http://schemas.xmlsoap.org/wsdl/soap/":   "SOAP 1.1",
				"http://schemas.xmlsoap.org/wsdl/soap12/": "SOAP 1.2",
			}[a.XMLName.Space]
			fmt.Fprintf(w, "  port %s (%s) at %s\n", p.Name, version, show(a.Location))
		}
	}
	return nil
}

// printFault prints the fault a call returned, with its HTTP status.
func printFault(w io.Writer, call string, err error) error {
	var f *core.Fault
	if !errors.As(err, &f) {
		return fmt.Errorf("%s: want a fault, got %v", call, err)
	}
	status := "?"
	var se *soaphttp.StatusError
	if errors.As(err, &se) {
		status = fmt.Sprint(se.Code)
	}
	subcodes := make([]string, 0, len(f.Subcodes))
	for _, s := range f.Subcodes {
		if s.Space == "" { // an older 1.1 peer's dotted faultcode (Client.DivisionByZero)
			subcodes = append(subcodes, s.Local)
			continue
		}
		subcodes = append(subcodes, "{"+s.Space+"}"+s.Local)
	}
	fmt.Fprintf(w, "%s -> HTTP %s, fault %s %v: %s\n", call, status, f.Code, subcodes, f.Reason)
	if len(f.Detail) > 0 {
		var d DivisionByZero
		if err := xml.Unmarshal(f.Detail, &d); err == nil && d.XMLName.Local != "" {
			fmt.Fprintf(w, "  detail: DivisionByZero, dividend %d\n", d.Dividend)
		}
	}
	return nil
}

// rawPost sends a SOAP 1.1 request as curl or any other HTTP client would,
// and prints the reply as it came.
func rawPost(ctx context.Context, w io.Writer, url string) error {
	const body = `<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>` +
		`<e:add xmlns:e="urn:example:echo"><a>20</a><b>22</b></e:add></soap:Body></soap:Envelope>`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "text/xml; charset=utf-8")
	req.Header.Set("SOAPAction", `"urn:example:echo#add"`)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	reply, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return err
	}
	fmt.Fprintln(w, `raw POST (text/xml, SOAPAction "urn:example:echo#add"):`)
	fmt.Fprintf(w, "  %s\n", body)
	fmt.Fprintf(w, "  -> %d %s\n", resp.StatusCode, resp.Header.Get("Content-Type"))
	fmt.Fprintf(w, "  %s\n", bytes.TrimSpace(reply))
	return nil
}

// serve serves the service on ln until ctx is done, then shuts down
// gracefully.
func serve(ctx context.Context, ln net.Listener, w io.Writer) error {
	srv := soaphttp.NewServer(ln.Addr().String(), handler())
	fmt.Fprintf(w, "serving the Echo service at http://%s/echo (WSDL at ?wsdl); interrupt to stop\n", ln.Addr())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	if err := srv.Shutdown(context.WithoutCancel(ctx)); err != nil {
		return err
	}
	if err := <-done; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
