package core_test

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"strings"

	"github.com/soapwire/soapwire/core"
)

// The authentication pattern: a gateway (an intermediary) checks the
// credentials a client put in a header block, removes them and inserts an
// identity block for the service behind it; the service understands the
// identity block, puts the user into the context, and its handler answers
// with the user's name. The credentials never reach the service.
func ExampleNode() {
	const authNS = "urn:example:auth"
	type credentials struct {
		XMLName  xml.Name `xml:"urn:example:auth Credentials"`
		User     string   `xml:"User"`
		Password string   `xml:"Password"`
	}
	type identity struct {
		XMLName xml.Name `xml:"urn:example:auth Identity"`
		User    string   `xml:"User"`
	}
	type userKey struct{}

	// The service: the ultimate receiver.
	service := &core.Node{
		URI: "https://service.example.org/orders",
		Headers: map[xml.Name]core.HeaderFunc{
			{Space: authNS, Local: "Identity"}: func(ctx context.Context, m *core.Message, b *core.HeaderBlock) (context.Context, error) {
				var id identity
				if err := b.Decode(&id); err != nil {
					return ctx, err
				}
				return context.WithValue(ctx, userKey{}, id.User), nil
			},
		},
		Handler: core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
			user, _ := ctx.Value(userKey{}).(string)
			if err := m.Body().Discard(); err != nil {
				return nil, err
			}
			return m.Reply(core.RawBody([]byte(`<o:Hello xmlns:o="urn:example:orders">Hello, ` + user + `</o:Hello>`))), nil
		}),
	}

	// The wire between gateway and service: the message is written and read
	// again, as a real binding would.
	wire := core.RoundTripFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		var buf bytes.Buffer
		if _, err := m.WriteTo(&buf); err != nil {
			return nil, err
		}
		in, err := core.ReadMessage(&buf, core.Limits{})
		if err != nil {
			return nil, err
		}
		for _, b := range in.Envelope.Headers {
			fmt.Printf("  service receives header %s (mustUnderstand=%v)\n", b.Name.Local, b.MustUnderstand)
		}
		return service.ServeSOAP(ctx, in)
	})

	// The gateway: an intermediary that plays the "next" role.
	gateway := &core.Node{
		URI:          "https://gateway.example.org/",
		Intermediary: true,
		Next:         wire,
		Headers: map[xml.Name]core.HeaderFunc{
			{Space: authNS, Local: "Credentials"}: func(ctx context.Context, m *core.Message, b *core.HeaderBlock) (context.Context, error) {
				var c credentials
				if err := b.Decode(&c); err != nil {
					return ctx, err
				}
				if c.User != "alice" || c.Password != "wonderland" {
					return ctx, &core.Fault{Code: core.CodeSender, Reason: "authentication failed"}
				}
				id, err := core.NewHeaderBlock(identity{User: c.User})
				if err != nil {
					return ctx, err
				}
				id.MustUnderstand = true
				m.Envelope.Headers = append(m.Envelope.Headers, id)
				return ctx, nil
			},
		},
	}

	request := func(password string) string {
		return `<soap:Envelope xmlns:soap="http://www.w3.org/2003/05/soap-envelope">
  <soap:Header>
    <a:Credentials xmlns:a="urn:example:auth" soap:role="http://www.w3.org/2003/05/soap-envelope/role/next" soap:mustUnderstand="true">
      <User>alice</User><Password>` + password + `</Password>
    </a:Credentials>
  </soap:Header>
  <soap:Body><o:ListOrders xmlns:o="urn:example:orders"/></soap:Body>
</soap:Envelope>`
	}

	for _, password := range []string{"wonderland", "guess"} {
		fmt.Printf("password %q:\n", password)
		m, err := core.ReadMessage(strings.NewReader(request(password)), core.Limits{})
		if err != nil {
			fmt.Println(err)
			return
		}
		reply, err := gateway.ServeSOAP(context.Background(), m)
		if err != nil {
			f := core.FaultOf(err)
			fmt.Printf("  fault %s: %s (node %s)\n", f.Code, f.Reason, f.Node)
			continue
		}
		var hello struct {
			Text string `xml:",chardata"`
		}
		if err := reply.Body().Decode(&hello); err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("  reply: %s\n", hello.Text)
	}
	// Output:
	// password "wonderland":
	//   service receives header Identity (mustUnderstand=true)
	//   reply: Hello, alice
	// password "guess":
	//   fault Sender: authentication failed (node https://gateway.example.org/)
}

// A mandatory header block the node does not understand stops processing
// before anything runs; in SOAP 1.2 the fault names the block in a
// NotUnderstood header block.
func ExampleNode_mustUnderstand() {
	const in = `<env:Envelope xmlns:env="http://www.w3.org/2003/05/soap-envelope">
  <env:Header>
    <t:Transaction xmlns:t="urn:example:tx" env:mustUnderstand="true">5</t:Transaction>
  </env:Header>
  <env:Body><o:Buy xmlns:o="urn:example:orders"/></env:Body>
</env:Envelope>`
	n := &core.Node{
		URI: "https://shop.example.org/",
		Handler: core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
			fmt.Println("the handler never runs")
			return nil, nil
		}),
	}
	m, err := core.ReadMessage(strings.NewReader(in), core.Limits{})
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = n.ServeSOAP(context.Background(), m)
	f := core.FaultOf(err)
	fmt.Println(f.Code, f.NotUnderstood)

	// Written in the request's version, SOAP 1.2:
	var buf bytes.Buffer
	if _, err := m.FaultReply(f).WriteTo(&buf); err != nil {
		fmt.Println(err)
		return
	}
	back, err := core.ReadMessage(&buf, core.Limits{})
	if err != nil {
		fmt.Println(err)
		return
	}
	wf := back.Fault()
	fmt.Println(wf.Code, wf.NotUnderstood, wf.Node)
	// Output:
	// MustUnderstand [{urn:example:tx Transaction}]
	// MustUnderstand [{urn:example:tx Transaction}] https://shop.example.org/
}

// A Mux routes on the body's first element, then on the action.
func ExampleMux() {
	var mx core.Mux
	answer := func(text string) core.HandlerFunc {
		return func(ctx context.Context, m *core.Message) (*core.Message, error) {
			return m.Reply(core.RawBody([]byte(`<r:Answer xmlns:r="urn:example:r">` + text + `</r:Answer>`))), nil
		}
	}
	getQuote := xml.Name{Space: "urn:example:stock", Local: "GetQuote"}
	mx.Handle(core.Route{Name: getQuote}, answer("quote"))
	mx.Handle(core.Route{Name: getQuote, Action: "urn:example:stock:GetQuote:v2"}, answer("quote v2"))
	mx.Handle(core.Route{Action: "urn:example:ping"}, answer("pong"))

	for _, c := range []struct{ body, action string }{
		{`<s:GetQuote xmlns:s="urn:example:stock"/>`, ""},
		{`<s:GetQuote xmlns:s="urn:example:stock"/>`, "urn:example:stock:GetQuote:v2"},
		{`<p:Ping xmlns:p="urn:example:p"/>`, "urn:example:ping"},
		{`<s:Sell xmlns:s="urn:example:stock"/>`, "urn:example:stock:Sell"},
	} {
		m := core.NewMessage(core.V11, core.RawBody([]byte(c.body)))
		m.Action = c.action
		reply, err := mx.ServeSOAP(context.Background(), m)
		if err != nil {
			f := core.FaultOf(err)
			fmt.Printf("%s: %s\n", f.Code, f.Reason)
			continue
		}
		var a struct {
			Text string `xml:",chardata"`
		}
		if err := reply.Body().Decode(&a); err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(a.Text)
	}
	// Output:
	// quote
	// quote v2
	// pong
	// Sender: no handler for body element {urn:example:stock}Sell with action urn:example:stock:Sell
}
