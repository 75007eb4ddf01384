package wsdl_test

import (
	"context"
	"fmt"
	"os"

	"github.com/soapwire/soapwire/core/wsdl"
	"github.com/soapwire/soapwire/core/xsd"
)

func ExampleLoad() {
	c, err := wsdl.Load(context.Background(), xsd.FSLoader(os.DirFS("testdata/read")), "calc.wsdl")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, e := range c.Endpoints()[:2] {
		fmt.Printf("%s/%s %s %s\n", e.Service.Name.Local, e.Port.Name, e.Version, e.Address)
		add := e.Operations[0]
		fmt.Printf("  %s action=%q wrapped=%v body=%s\n", add.Name, add.Action, add.Input.Wrapped, add.Input.Element.Local)
		for _, p := range add.Input.Params {
			fmt.Printf("    {%s}%s %s\n", p.Element.Name.Space, p.Element.Name.Local, p.Element.Type.TypeName().Local)
		}
		for _, f := range add.Faults {
			fmt.Printf("    fault %s: detail %s\n", f.Name, f.Element.Name.Local)
		}
	}
	// Output:
	// Calc/CalcSoap11 1.1 http://127.0.0.1:8080/calc/soap11
	//   add action="urn:calc#add" wrapped=true body=add
	//     {urn:calc:types}a int
	//     {urn:calc:types}b int
	//     fault overflow: detail overflow
	// Calc/CalcSoap12 1.2 http://127.0.0.1:8080/calc/soap12
	//   add action="urn:calc#add" wrapped=true body=add
	//     {urn:calc:types}a int
	//     {urn:calc:types}b int
	//     fault overflow: detail overflow
}
