package archtest_test

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"os"
	"strings"

	"github.com/soapwire/soapwire/core"
)

// The code of README.md's 30-second example, compiled and run here:
// TestDocExamples checks that README.md shows exactly these declarations
// and, as the body of main, exactly the body of Example_readme.

// Greet is the request body; GreetResponse the reply body.
type Greet struct {
	XMLName xml.Name `xml:"urn:example:hello Greet"`
	Name    string   `xml:"Name"`
}

type GreetResponse struct {
	XMLName  xml.Name `xml:"urn:example:hello GreetResponse"`
	Greeting string   `xml:"Greeting"`
}

func Example_readme() {
	// A handler for one operation, routed on the body element's name.
	var mux core.Mux
	mux.HandleFunc(core.Route{Name: xml.Name{Space: "urn:example:hello", Local: "Greet"}},
		func(ctx context.Context, m *core.Message) (*core.Message, error) {
			var in Greet
			if err := m.Body().Decode(&in); err != nil {
				return nil, err // a *core.Fault: the client gets a Sender fault
			}
			if in.Name == "" {
				return nil, core.SenderFault("Name is required")
			}
			return m.Reply(core.ValueBody(GreetResponse{Greeting: "Hello, " + strings.TrimSpace(in.Name)})), nil
		})
	// The SOAP processing model in front of it: roles, mustUnderstand, faults.
	node := &core.Node{Handler: &mux}

	// A client request as it would arrive from any binding: bytes on a wire.
	var wire bytes.Buffer
	req := core.NewMessage(core.V12, core.ValueBody(Greet{Name: "world"}))
	if _, err := req.WriteTo(&wire); err != nil {
		fmt.Println(err)
		return
	}

	in, err := core.ReadMessage(&wire, core.Limits{}) // strict, bounded reading
	if err != nil {
		fmt.Println(err) // a *core.Fault
		return
	}
	reply, err := node.ServeSOAP(context.Background(), in)
	if err != nil {
		reply = in.FaultReply(core.FaultOf(err))
	}
	reply.WriteTo(os.Stdout)
	fmt.Println()
	// Output:
	// <soap:Envelope xmlns:soap="http://www.w3.org/2003/05/soap-envelope"><soap:Body><GreetResponse xmlns="urn:example:hello"><Greeting>Hello, world</Greeting></GreetResponse></soap:Body></soap:Envelope>
}
