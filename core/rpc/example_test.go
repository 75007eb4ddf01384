package rpc_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/rpc"
)

type GreetReq struct {
	Name string `soap:"name"`
}

type GreetResp struct {
	Greeting string `soap:"greeting"`
}

// A service with one operation, called by a client over an in-process
// RoundTripper (a binding's Transport in real use).
func Example() {
	svc := rpc.NewService("urn:example:greeter", "Greeter")
	rpc.Register(svc, "greet", func(_ context.Context, r *GreetReq) (*GreetResp, error) {
		return &GreetResp{Greeting: "Hello, " + r.Name}, nil
	})

	rt := core.RoundTripFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		return svc.ServeSOAP(ctx, m)
	})
	c := rpc.NewClient(rt, "urn:example:greeter")
	resp, err := rpc.Call[GreetResp](context.Background(), c, "greet", GreetReq{Name: "Ada"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(resp.Greeting)
	// Output: Hello, Ada
}

// What an rpc/encoded service answers to a request as zeep sends it.
func ExampleService_ServeSOAP() {
	svc := rpc.NewService("urn:example:greeter", "Greeter", rpc.WithStyle(rpc.RPCEncoded))
	rpc.Register(svc, "greet", func(_ context.Context, r *GreetReq) (*GreetResp, error) {
		return &GreetResp{Greeting: "Hello, " + r.Name}, nil
	})
	req := `<soap-env:Envelope xmlns:soap-env="http://schemas.xmlsoap.org/soap/envelope/"><soap-env:Body>` +
		`<ns0:greet xmlns:ns0="urn:example:greeter"><name>Ada</name></ns0:greet></soap-env:Body></soap-env:Envelope>`
	m, _ := core.ReadMessage(strings.NewReader(req), core.Limits{})
	reply, err := svc.ServeSOAP(context.Background(), m)
	if err != nil {
		fmt.Println(err)
		return
	}
	var b strings.Builder
	_, _ = reply.Body().WriteTo(&b)
	fmt.Println(b.String())
	// Output: <m:greetResponse xmlns:m="urn:example:greeter" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:soapenc="http://schemas.xmlsoap.org/soap/encoding/" xmlns:tns="urn:example:greeter" xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" soapenv:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/"><greeting xsi:type="xsd:string">Hello, Ada</greeting></m:greetResponse>
}

// A Go error is a Receiver fault whose text stays on the server; a
// *core.Fault goes out as it is.
func ExampleRegister_faults() {
	svc := rpc.NewService("urn:example:greeter", "Greeter")
	rpc.Register(svc, "greet", func(_ context.Context, r *GreetReq) (*GreetResp, error) {
		if r.Name == "" {
			return nil, core.SenderFault("name is required")
		}
		return nil, fmt.Errorf("db: connection refused")
	})
	c := rpc.NewClient(core.RoundTripFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		reply, err := svc.ServeSOAP(ctx, m)
		if err != nil {
			return nil, core.FaultOf(err) // what a binding sends
		}
		return reply, nil
	}), "urn:example:greeter")
	for _, name := range []string{"", "Ada"} {
		_, err := rpc.Call[GreetResp](context.Background(), c, "greet", GreetReq{Name: name})
		f := core.FaultOf(err)
		fmt.Println(f.Code, "-", f.Reason)
	}
	// Output:
	// Sender - name is required
	// Receiver - The server could not process the message
}

// The WSDL of a service, as bindings serve it for ?wsdl.
func ExampleService_WSDL() {
	svc := rpc.NewService("urn:example:greeter", "Greeter", rpc.WithStyle(rpc.RPCLiteral))
	rpc.Register(svc, "greet", func(_ context.Context, r *GreetReq) (*GreetResp, error) {
		return &GreetResp{}, nil
	})
	var b strings.Builder
	_ = svc.WSDL(&b, "http://localhost:8080/greeter")
	for _, line := range strings.Split(b.String(), "\n") {
		if strings.HasPrefix(line, "<wsdl:message") || strings.HasPrefix(line, "<wsdl:port ") {
			fmt.Println(line)
		}
	}
	// Output:
	// <wsdl:message name="greetRequest"><wsdl:part name="name" type="xsd:string"/></wsdl:message>
	// <wsdl:message name="greetResponse"><wsdl:part name="greeting" type="xsd:string"/></wsdl:message>
	// <wsdl:port name="GreeterSoap11" binding="tns:GreeterSoap11"><soap:address location="http://localhost:8080/greeter"/></wsdl:port>
	// <wsdl:port name="GreeterSoap12" binding="tns:GreeterSoap12"><soap12:address location="http://localhost:8080/greeter"/></wsdl:port>
}
