// Command http-intermediary runs a SOAP intermediary over HTTP on loopback:
// an authenticating proxy checks a credentials header block, removes it and
// inserts an identity block for the final service, which answers with the
// identity it was given. A client calls the service through the proxy, once
// with good credentials and once with bad ones, and every hop says what it
// did.
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

var (
	credentialsName = xml.Name{Space: authNS, Local: "Credentials"}
	identityName    = xml.Name{Space: authNS, Local: "Identity"}
)

// users the proxy knows: name → password.
var users = map[string]string{"alice": "wonderland"}

type credentials struct {
	User     string `xml:"User"`
	Password string `xml:"Password"`
}

type identityKey struct{}

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "http-intermediary:", err)
		os.Exit(1)
	}
}

// run starts the two servers, makes the two calls and shuts down.
func run(ctx context.Context, out io.Writer) error {
	w := &syncWriter{w: out}

	final, err := start(soaphttp.NewHandler(finalService(w)))
	if err != nil {
		return err
	}
	defer final.Close()
	next := soaphttp.NewTransport(final.url)
	defer next.CloseIdleConnections()
	proxy, err := start(soaphttp.NewHandler(authProxy(w, next)))
	if err != nil {
		return err
	}
	defer proxy.Close()

	client := soaphttp.NewTransport(proxy.url)
	defer client.CloseIdleConnections()
	for _, c := range []struct{ user, pass string }{{"alice", "wonderland"}, {"mallory", "guess"}} {
		fmt.Fprintf(w, "client: calling greet as %s through the proxy\n", c.user)
		reply, err := client.RoundTrip(ctx, request(c.user, c.pass))
		var f *core.Fault
		switch {
		case errors.As(err, &f):
			fmt.Fprintf(w, "client: fault %s from %s: %s\n", f.Code, f.Node, f.Reason)
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

// request is a SOAP 1.2 greet call with a credentials block for the next
// node (the proxy), which must understand it.
func request(user, pass string) *core.Message {
	m := core.NewMessage(core.V12, core.RawBody([]byte(`<s:greet xmlns:s="`+serviceNS+`"/>`)))
	m.Action = serviceNS + ":greet"
	b, err := core.NewHeaderBlock(struct {
		XMLName xml.Name `xml:"urn:example:auth Credentials"`
		credentials
	}{credentials: credentials{User: user, Password: pass}})
	if err != nil {
		panic(err) // a programming error: the value is fixed
	}
	b.Role, b.MustUnderstand = core.RoleNext, true
	m.Envelope.Headers = append(m.Envelope.Headers, b)
	return m
}

// authProxy is the intermediary: it understands the credentials block,
// replaces it with an identity block and forwards through next.
func authProxy(w io.Writer, next core.RoundTripper) core.Handler {
	check := soaphttp.StaticCredentials(users)
	return &core.Node{
		URI:          proxyURI,
		Intermediary: true,
		Next:         next,
		Headers: map[xml.Name]core.HeaderFunc{
			credentialsName: func(ctx context.Context, m *core.Message, b *core.HeaderBlock) (context.Context, error) {
				var c credentials
				if err := b.Decode(&c); err != nil {
					return ctx, err
				}
				if !check(ctx, c.User, c.Password) {
					fmt.Fprintf(w, "proxy: credentials for %s refused\n", c.User)
					return ctx, core.SenderFault("bad credentials for %s", c.User)
				}
				id, err := core.NewHeaderBlock(struct {
					XMLName xml.Name `xml:"urn:example:auth Identity"`
					User    string   `xml:",chardata"`
				}{User: c.User})
				if err != nil {
					return ctx, err
				}
				id.MustUnderstand = true
				m.Envelope.Headers = append(m.Envelope.Headers, id)
				fmt.Fprintf(w, "proxy: %s authenticated; credentials removed, identity inserted, forwarding\n", c.User)
				return ctx, nil
			},
		},
	}
}

// finalService understands the identity block and greets its user.
func finalService(w io.Writer) core.Handler {
	return &core.Node{
		URI: finalURI,
		Headers: map[xml.Name]core.HeaderFunc{
			identityName: func(ctx context.Context, m *core.Message, b *core.HeaderBlock) (context.Context, error) {
				var id struct {
					User string `xml:",chardata"`
				}
				if err := b.Decode(&id); err != nil {
					return ctx, err
				}
				return context.WithValue(ctx, identityKey{}, id.User), nil
			},
		},
		Handler: core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
			user, _ := ctx.Value(identityKey{}).(string)
			for _, b := range m.Envelope.Headers {
				if b.Name == credentialsName {
					return nil, core.ReceiverFault("the credentials reached the final service")
				}
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

// start serves h on a loopback port.
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
