package archtest_test

import (
	"context"
	"encoding/xml"
	"fmt"
	"os"

	"github.com/soapwire/soapwire/core"
)

type ctxKey struct{}

// Example_processingModel is the program of docs/processing-model.md,
// compiled and run here: TestDocExamples checks that the page shows exactly
// this code.
func Example_processingModel() {
	tx := xml.Name{Space: "urn:example:tx", Local: "Transaction"}
	trace := xml.Name{Space: "urn:example:trace", Local: "Trace"}
	const gateway = "urn:example:role:gateway"

	// The ultimate receiver understands Transaction; its HeaderFunc hands the
	// transaction id to the body handler through the context.
	receiver := &core.Node{
		URI: "urn:example:node:shop",
		Headers: map[xml.Name]core.HeaderFunc{
			tx: func(ctx context.Context, m *core.Message, b *core.HeaderBlock) (context.Context, error) {
				var v struct {
					ID string `xml:",chardata"`
				}
				if err := b.Decode(&v); err != nil {
					return ctx, err
				}
				return context.WithValue(ctx, ctxKey{}, v.ID), nil
			},
		},
		Handler: core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
			fmt.Println("receiver: transaction", ctx.Value(ctxKey{}), "headers left:", len(m.Envelope.Headers))
			return m.Reply(core.RawBody([]byte(`<r:Done xmlns:r="urn:example:shop"/>`))), nil
		}),
	}

	// An intermediary playing the gateway role: it processes Trace blocks
	// addressed to it and forwards the rest to the receiver.
	gw := &core.Node{
		URI:          "urn:example:node:gateway",
		Roles:        []string{gateway},
		Intermediary: true,
		Headers: map[xml.Name]core.HeaderFunc{
			trace: func(ctx context.Context, m *core.Message, b *core.HeaderBlock) (context.Context, error) {
				fmt.Println("gateway: trace seen")
				return ctx, nil
			},
		},
		Next: core.RoundTripFunc(receiver.ServeSOAP), // in real life, a binding's transport
	}

	req := core.NewMessage(core.V12, core.RawBody([]byte(`<o:Order xmlns:o="urn:example:shop"/>`)))
	req.Envelope.Headers = []core.HeaderBlock{
		// for the gateway: processed there and removed
		{Name: trace, Role: gateway, MustUnderstand: true},
		// for the ultimate receiver (no role)
		{Name: tx, MustUnderstand: true, XML: []byte(`<t:Transaction xmlns:t="urn:example:tx">42</t:Transaction>`)},
	}
	reply, err := gw.ServeSOAP(context.Background(), req)
	if err != nil {
		fmt.Println(err)
		return
	}
	reply.WriteTo(os.Stdout)
	fmt.Println()

	// A mandatory block nobody understands: a MustUnderstand fault before anything runs.
	req = core.NewMessage(core.V12, core.RawBody([]byte(`<o:Order xmlns:o="urn:example:shop"/>`)))
	req.Envelope.Headers = []core.HeaderBlock{{Name: xml.Name{Space: "urn:example:x", Local: "Unknown"}, Role: core.RoleNext, MustUnderstand: true}}
	_, err = gw.ServeSOAP(context.Background(), req)
	f := core.FaultOf(err)
	fmt.Println(f.Code, f.Node, f.Role, f.NotUnderstood)
	req.FaultReply(f).WriteTo(os.Stdout)
	fmt.Println()
	// Output:
	// gateway: trace seen
	// receiver: transaction 42 headers left: 1
	// <soap:Envelope xmlns:soap="http://www.w3.org/2003/05/soap-envelope"><soap:Body><r:Done xmlns:r="urn:example:shop"/></soap:Body></soap:Envelope>
	// MustUnderstand urn:example:node:gateway http://www.w3.org/2003/05/soap-envelope/role/next [{urn:example:x Unknown}]
	// <soap:Envelope xmlns:soap="http://www.w3.org/2003/05/soap-envelope"><soap:Header><soap:NotUnderstood xmlns:q="urn:example:x" qname="q:Unknown"/></soap:Header><soap:Body><soap:Fault><soap:Code><soap:Value>soap:MustUnderstand</soap:Value></soap:Code><soap:Reason><soap:Text xml:lang="en">mandatory header block not understood: {urn:example:x}Unknown</soap:Text></soap:Reason><soap:Node>urn:example:node:gateway</soap:Node><soap:Role>http://www.w3.org/2003/05/soap-envelope/role/next</soap:Role></soap:Fault></soap:Body></soap:Envelope>
}
