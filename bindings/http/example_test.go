package http_test

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"net/http/httptest"

	soaphttp "github.com/soapwire/soapwire/bindings/http"
	"github.com/soapwire/soapwire/core"
)

// Serve a core.Handler over HTTP and call it with a Transport, in both SOAP
// versions.
func Example() {
	type greet struct {
		XMLName xml.Name `xml:"urn:example greet"`
		Name    string   `xml:"name"`
	}
	h := core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		var g greet
		if err := m.Body().Decode(&g); err != nil {
			return nil, err
		}
		return m.Reply(core.RawBody([]byte(`<e:greeting xmlns:e="urn:example">hello, ` + g.Name + ` (` + m.Action + `)</e:greeting>`))), nil
	})
	srv := httptest.NewServer(soaphttp.NewHandler(h))
	defer srv.Close()

	tr := soaphttp.NewTransport(srv.URL)
	defer tr.CloseIdleConnections()
	for _, v := range []core.Version{core.V11, core.V12} {
		m := core.NewMessage(v, core.ValueBody(greet{Name: "SOAP " + v.String()}))
		m.Action = "urn:example:greet"
		reply, err := tr.RoundTrip(context.Background(), m)
		if err != nil {
			fmt.Println(err)
			return
		}
		var out struct {
			Text string `xml:",chardata"`
		}
		if err := reply.Body().Decode(&out); err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(reply.Meta["http.status"], reply.Meta["http.content-type"], out.Text)
	}
	// Output:
	// 200 text/xml; charset=utf-8 hello, SOAP 1.1 (urn:example:greet)
	// 200 application/soap+xml; charset=utf-8 hello, SOAP 1.2 (urn:example:greet)
}

// A fault from the server comes back as a *core.Fault with Remote set.
func ExampleTransport_RoundTrip_fault() {
	h := core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		return nil, core.SenderFault("no such account")
	})
	srv := httptest.NewServer(soaphttp.NewHandler(h))
	defer srv.Close()
	tr := soaphttp.NewTransport(srv.URL)
	defer tr.CloseIdleConnections()

	_, err := tr.RoundTrip(context.Background(), core.NewMessage(core.V12, core.RawBody([]byte(`<x:get xmlns:x="urn:x"/>`))))
	f := core.FaultOf(err)
	fmt.Println(f.Code, f.Reason, f.Remote)
	// Output: Sender no such account true
}

// Require HTTP Basic credentials: a wrong password is refused with 401 and
// a Client Error fault before the handler runs; the handler sees the user.
func ExampleWithAuth() {
	h := core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		user, _ := soaphttp.UserFromContext(ctx)
		return m.Reply(core.RawBody([]byte(`<e:hello xmlns:e="urn:example">` + user + `</e:hello>`))), nil
	})
	check := soaphttp.StaticCredentials(map[string]string{"alice": "s3cret"})
	srv := httptest.NewServer(soaphttp.NewHandler(h, soaphttp.WithAuth(check), soaphttp.WithRealm("example")))
	defer srv.Close()

	for _, pass := range []string{"s3cret", "guess"} {
		tr := soaphttp.NewTransport(srv.URL, soaphttp.WithCredentials("alice", pass))
		reply, err := tr.RoundTrip(context.Background(), core.NewMessage(core.V11, core.RawBody([]byte(`<e:hi xmlns:e="urn:example"/>`))))
		tr.CloseIdleConnections()
		if err != nil {
			var se *soaphttp.StatusError
			errors.As(err, &se)
			fmt.Println(se.Code, core.FaultOf(err).Reason)
			continue
		}
		var out struct {
			User string `xml:",chardata"`
		}
		if err := reply.Body().Decode(&out); err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println("hello", out.User)
	}
	// Output:
	// hello alice
	// 401 Client Error
}
