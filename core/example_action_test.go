package core_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/soapwire/soapwire/core"
)

// A binding reads the envelope, then takes the action its transport carried
// beside it (here an HTTP-like SOAPAction that contradicts wsa:Action).
func ExampleMessage_TakeAction() {
	in := `<s:Envelope xmlns:s="http://www.w3.org/2003/05/soap-envelope" xmlns:wsa="http://www.w3.org/2005/08/addressing">
<s:Header><wsa:Action>urn:shop/Order</wsa:Action></s:Header>
<s:Body><m:Order xmlns:m="urn:shop"/></s:Body></s:Envelope>`
	m, err := core.ReadMessage(strings.NewReader(in), core.Limits{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.TakeAction("urn:shop/Order", "the SOAPAction header")) // they agree
	err = m.TakeAction("urn:shop/Cancel", "the SOAPAction header")
	f := core.FaultOf(err)
	fmt.Println(f.Code, f.Subcodes[0].Local, f.Version)
	fmt.Println(f.Reason)
	fmt.Println(string(f.Detail))
	// Output:
	// <nil>
	// Sender ActionMismatch 1.2
	// the SOAPAction header "urn:shop/Cancel" does not match wsa:Action "urn:shop/Order"
	// <wsa:ProblemAction xmlns:wsa="http://www.w3.org/2005/08/addressing"><wsa:Action>urn:shop/Order</wsa:Action><wsa:SoapAction>urn:shop/Cancel</wsa:SoapAction></wsa:ProblemAction>
}

// A fault a handler keeps (and may return to many callers) answers a SOAP
// 1.1 request as a 1.1 fault, without being modified.
func ExampleFault_WithVersion() {
	errClosed := &core.Fault{Code: core.CodeReceiver, Reason: "the shop is closed"}
	f := errClosed.WithVersion(core.V11)
	if _, err := core.NewMessage(f.Version, core.FaultBody(f)).WriteTo(os.Stdout); err != nil {
		fmt.Println(err)
	}
	fmt.Println()
	fmt.Println(errClosed.Version == 0, f.Version)
	// Output:
	// <soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><soap:Fault><faultcode>soap:Server</faultcode><faultstring>the shop is closed</faultstring></soap:Fault></soap:Body></soap:Envelope>
	// true 1.1
}
