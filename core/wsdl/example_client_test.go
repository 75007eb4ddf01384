package wsdl_test

import (
	"context"
	"fmt"
	"os"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/wsdl"
	"github.com/soapwire/soapwire/core/xsd"
)

func ExampleClient() {
	ctx := context.Background()
	contract, err := wsdl.Load(ctx, xsd.FSLoader(os.DirFS("testdata/read")), "calc.wsdl")
	if err != nil {
		fmt.Println(err)
		return
	}
	// A stand-in for the service; over HTTP the RoundTripper would be
	// soaphttp.NewTransport(client.Address()).
	service := core.RoundTripFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		fmt.Println("action:", m.Action)
		return m.Reply(core.RawBody([]byte(`<t:addResponse xmlns:t="urn:calc:types"><t:result>42</t:result></t:addResponse>`))), nil
	})
	client, err := wsdl.NewClient(contract, service, wsdl.WithVersion(core.V12))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("address:", client.Address())

	var out struct {
		Result int `xml:"result"`
	}
	err = client.Call(ctx, "add", map[string]any{"a": 40, "b": 2}, &out)
	fmt.Println(out.Result, err)

	err = client.Call(ctx, "add", map[string]any{"a": 40, "c": 2}, &out)
	fmt.Println(err)
	// Output:
	// address: http://127.0.0.1:8080/calc/soap12
	// action: urn:calc#add
	// 42 <nil>
	// wsdl: add: the input does not fit the contract: add: no element or attribute c (it has a, b)
}
