package core_test

import (
	"encoding/xml"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/soapwire/soapwire/core"
)

func ExampleReadEnvelope() {
	in := `<soap:Envelope xmlns:soap="http://www.w3.org/2003/05/soap-envelope">
  <soap:Header>
    <t:Transaction xmlns:t="urn:tx" soap:mustUnderstand="true">5</t:Transaction>
  </soap:Header>
  <soap:Body><m:GetPrice xmlns:m="urn:shop"><m:Item>apple</m:Item></m:GetPrice></soap:Body>
</soap:Envelope>`
	env, err := core.ReadEnvelope(strings.NewReader(in), core.Limits{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("version:", env.Version)
	for _, b := range env.Headers {
		fmt.Printf("header: {%s}%s mustUnderstand=%v\n", b.Name.Space, b.Name.Local, b.MustUnderstand)
	}
	// the body's first child is known before the body is read: route on it
	fmt.Printf("body: {%s}%s\n", env.Body.Name().Space, env.Body.Name().Local)
	var req struct {
		Item string `xml:"urn:shop Item"`
	}
	if err := env.Body.Decode(&req); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("item:", req.Item)
	// Output:
	// version: 1.2
	// header: {urn:tx}Transaction mustUnderstand=true
	// body: {urn:shop}GetPrice
	// item: apple
}

func ExampleReadEnvelope_refused() {
	in := `<!DOCTYPE x [<!ENTITY boom "boom">]><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body/></soap:Envelope>`
	_, err := core.ReadEnvelope(strings.NewReader(in), core.Limits{})
	f := core.FaultOf(err)
	fmt.Println(f.Code, errors.Is(err, &core.Fault{Code: core.CodeSender}))
	// Output:
	// Sender true
}

func ExampleReadMessage() {
	in := `<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/" xmlns:wsa="http://www.w3.org/2005/08/addressing">
<s:Header>
  <wsa:MessageID>urn:uuid:6b29fc40-ca47-1067-b31d-00dd010662da</wsa:MessageID>
  <wsa:Action>urn:shop/Order</wsa:Action>
  <wsa:ReplyTo><wsa:Address>mailto:buyer@example.com</wsa:Address></wsa:ReplyTo>
</s:Header>
<s:Body><o:Order xmlns:o="urn:shop"/></s:Body>
</s:Envelope>`
	m, err := core.ReadMessage(strings.NewReader(in), core.Limits{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("id:", m.ID)
	fmt.Println("action:", m.Action)
	fmt.Println("reply to:", m.ReplyTo)
	fmt.Println("headers left:", len(m.Envelope.Headers))
	// Output:
	// id: urn:uuid:6b29fc40-ca47-1067-b31d-00dd010662da
	// action: urn:shop/Order
	// reply to: mailto:buyer@example.com
	// headers left: 0
}

func ExampleFault() {
	f := &core.Fault{
		Code:     core.CodeSender,
		Subcodes: []xml.Name{{Space: "urn:shop", Local: "OutOfStock"}},
		Reason:   "no apples left",
	}
	env := &core.Envelope{Version: core.V11, Body: core.FaultBody(f)}
	if _, err := env.WriteTo(os.Stdout); err != nil {
		fmt.Println(err)
	}
	fmt.Println()
	// Output:
	// <soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><soap:Fault><faultcode xmlns:fc="urn:shop">fc:OutOfStock</faultcode><faultstring>no apples left</faultstring></soap:Fault></soap:Body></soap:Envelope>
}

func ExampleFaultOf() {
	err := fmt.Errorf("checkout: %w", errors.New("sql: connection refused to 10.0.0.5"))
	f := core.FaultOf(err)
	fmt.Println(f.Code, "-", f.Reason)
	// Output:
	// Receiver - The server could not process the message
}

func ExampleEnvelope_WriteTo() {
	env := &core.Envelope{Version: core.V12, Body: core.RawBody([]byte(`<m:Ping xmlns:m="urn:ping"/>`))}
	if _, err := env.WriteTo(os.Stdout); err != nil {
		fmt.Println(err)
	}
	fmt.Println()
	// Output:
	// <soap:Envelope xmlns:soap="http://www.w3.org/2003/05/soap-envelope"><soap:Body><m:Ping xmlns:m="urn:ping"/></soap:Body></soap:Envelope>
}

func ExampleMessage_Write() {
	m := core.NewMessage(core.V12, core.RawBody([]byte(`<m:Ping xmlns:m="urn:ping"/>`)))
	m.ID = "urn:uuid:1"
	m.To = "nats:ping"
	if _, err := m.Write(os.Stdout, core.WriteOptions{Prefix: "env"}); err != nil {
		fmt.Println(err)
	}
	fmt.Println()
	// Output:
	// <env:Envelope xmlns:env="http://www.w3.org/2003/05/soap-envelope" xmlns:wsa="http://www.w3.org/2005/08/addressing"><env:Header><wsa:To>nats:ping</wsa:To><wsa:MessageID>urn:uuid:1</wsa:MessageID></env:Header><env:Body><m:Ping xmlns:m="urn:ping"/></env:Body></env:Envelope>
}

func ExampleAppendEscaped() {
	reply := []byte(`<e:echoResponse xmlns:e="urn:echo"><return>`)
	reply = core.AppendEscaped(reply, `a < b & "c"`)
	reply = append(reply, `</return></e:echoResponse>`...)
	env := &core.Envelope{Body: core.RawBody(reply)}
	if _, err := env.WriteTo(os.Stdout); err != nil {
		fmt.Println(err)
	}
	// Output:
	// <soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><e:echoResponse xmlns:e="urn:echo"><return>a &lt; b &amp; "c"</return></e:echoResponse></soap:Body></soap:Envelope>
}

func ExampleBody_EncodingStyle() {
	in := `<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"
    soap:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/">
  <soap:Body><m:add xmlns:m="urn:calc"><a>1</a><b>2</b></m:add></soap:Body>
</soap:Envelope>`
	m, err := core.ReadMessage(strings.NewReader(in), core.Limits{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.Body().EncodingStyle() == core.EncodingStyleV11)
	// Output: true
}

func ExampleNewMessageID() {
	id := core.NewMessageID()
	fmt.Println(len(id), id[:9], id[17:18], id[22:23], id[23:24])
	// Output: 45 urn:uuid: - - 4
}

// A handler that makes an error of its own out of a Body it could not read
// still leaves the Body's error to be found: Serve answers with its fault.
func ExampleBody_Err() {
	const env = `<s:Envelope xmlns:s="http://www.w3.org/2003/05/soap-envelope"><s:Body>` +
		`<o:order xmlns:o="urn:example:po"><o:item>1</o:itme></o:order></s:Body></s:Envelope>`
	m, err := core.ReadMessage(strings.NewReader(env), core.Limits{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("before reading:", m.Body().Err())
	if err := m.Body().Discard(); err != nil {
		fmt.Println("reading:", core.FaultOf(err).Code)
	}
	fmt.Println("after:", core.FaultOf(m.Body().Err()).Code)
	// Output:
	// before reading: <nil>
	// reading: Sender
	// after: Sender
}
