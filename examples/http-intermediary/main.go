// Command http-intermediary runs a SOAP intermediary over HTTP on loopback:
// an authenticating proxy checks each caller's HTTP Basic credentials,
// inserts an identity header block for the final service and forwards the
// message; the final service, which must understand the identity block,
// answers with the identity it was given. A client calls through the proxy
// with good credentials and with bad ones, and straight at the service, and
// every hop says what it did.
//
//	go run ./examples/http-intermediary
package main

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sync"

	soaphttp "github.com/soapwire/soapwire/bindings/http"
	"github.com/soapwire/soapwire/core"
)

const (
	authNS    = "urn:example:auth"
	serviceNS = "urn:example:service"
	proxyURI  = "urn:example:proxy"
	finalURI  = "urn:example:final"
)

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "http-intermediary:", err)
		os.Exit(1)
	}
}

// run starts the two servers, makes the calls and shuts down.
func run(ctx context.Context, out io.Writer) error {
	w := &syncWriter{w: out}
	users := map[string]string{"alice": "wonderland"} // the proxy's users: name → password

	final, err := start(soaphttp.NewHandler(finalService(w)))
	if err != nil {
		return err
	}
	defer final.Close()
	next := soaphttp.NewTransport(final.url)
	defer next.CloseIdleConnections()
	proxy, err := start(authProxy(w, users, next))
	if err != nil {
		return err
	}
	defer proxy.Close()

	calls := []struct {
		what, url  string
		user, pass string
	}{
		{"as alice through the proxy", proxy.url, "alice", "wonderland"},
		{"as mallory through the proxy", proxy.url, "mallory", "guess"},
		{"straight at the service", final.url, "", ""},
	}
	for _, c := range calls {
		fmt.Fprintf(w, "client: calling greet %s\n", c.what)
		var opts []soaphttp.TransportOption
		if c.user != "" {
			opts = append(opts, soaphttp.WithCredentials(c.user, c.pass))
		}
		client := soaphttp.NewTransport(c.url, opts...)
		reply, err := client.RoundTrip(ctx, greet())
		client.CloseIdleConnections()
		var f *core.Fault
		var se *soaphttp.StatusError
		switch {
		case errors.As(err, &f) && errors.As(err, &se):
			from := ""
			if f.Node != "" {
				from = " from " + f.Node
			}
			fmt.Fprintf(w, "client: HTTP %d, fault %s%s: %s\n", se.Code, f.Code, from, f.Reason)
		case err != nil:
			return err
		default:
			var g struct {
				Text string `xml:",chardata"`
			}
			if err := reply.Body().Decode(&g); err != nil {
				return err
			}
			fmt.Fprintf(w, "client: reply %q\n", g.Text)
		}
	}
	return nil
}

// greet is a SOAP 1.2 greet call.
func greet() *core.Message {
	m := core.NewMessage(core.V12, core.RawBody([]byte(`<s:greet xmlns:s="`+serviceNS+`"/>`)))
	m.Action = serviceNS + ":greet"
	return m
}

type identity struct {
	XMLName xml.Name `xml:"urn:example:auth Identity"`
	User    string   `xml:",chardata"`
}

// authProxy is the intermediary: NewHandler checks HTTP Basic credentials
// (WithAuth refuses a wrong or missing password with 401 and a
// "Client Error" fault before anything is read); for a caller it lets in,
// the proxy inserts an identity block, mandatory for the final service, and
// the Node forwards the message through next.
func authProxy(w io.Writer, users map[string]string, next core.RoundTripper) http.Handler {
	static := soaphttp.StaticCredentials(users)
	check := func(ctx context.Context, user, pass string) bool {
		if !static(ctx, user, pass) {
			fmt.Fprintf(w, "proxy: credentials for %s refused\n", user)
			return false
		}
		return true
	}
	node := &core.Node{URI: proxyURI, Intermediary: true, Next: next}
	h := core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		user, _ := soaphttp.UserFromContext(ctx)
		id, err := core.NewHeaderBlock(identity{User: user})
		if err != nil {
			return nil, err
		}
		id.MustUnderstand = true
		m.Envelope.Headers = append(m.Envelope.Headers, id)
		fmt.Fprintf(w, "proxy: %s authenticated; identity inserted, forwarding\n", user)
		return node.ServeSOAP(ctx, m)
	})
	return soaphttp.NewHandler(h, soaphttp.WithAuth(check), soaphttp.WithRealm("example"))
}

type identityKey struct{}

// finalService understands the identity block and greets its user; a
// message without one is refused.
func finalService(w io.Writer) core.Handler {
	return &core.Node{
		URI: finalURI,
		Headers: map[xml.Name]core.HeaderFunc{
			{Space: authNS, Local: "Identity"}: func(ctx context.Context, m *core.Message, b *core.HeaderBlock) (context.Context, error) {
				var id identity
				if err := b.Decode(&id); err != nil {
					return ctx, err
				}
				return context.WithValue(ctx, identityKey{}, id.User), nil
			},
		},
		Handler: core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
			user, ok := ctx.Value(identityKey{}).(string)
			if !ok {
				fmt.Fprintln(w, "service: no identity, refused")
				return nil, &core.Fault{Code: core.CodeSender, Node: finalURI, Reason: "no identity: call through the proxy"}
			}
			fmt.Fprintf(w, "service: %s for identity %q\n", m.Action, user)
			var g struct {
				XMLName xml.Name `xml:"urn:example:service greeting"`
				Text    string   `xml:",chardata"`
			}
			g.Text = "hello, " + user
			return m.Reply(core.ValueBody(g)), nil
		}),
	}
}

type server struct {
	url string
	srv *http.Server
}

func (s *server) Close() { s.srv.Close() }

// start serves h on a loopback port with NewServer's timeouts.
func start(h http.Handler) (*server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	srv := soaphttp.NewServer(ln.Addr().String(), h)
	go srv.Serve(ln)
	return &server{url: "http://" + ln.Addr().String() + "/", srv: srv}, nil
}

// syncWriter serializes the hops' prints.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}
