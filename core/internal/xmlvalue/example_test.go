package xmlvalue_test

import (
	"encoding/xml"
	"fmt"

	"github.com/soapwire/soapwire/core/internal/xmlvalue"
)

func ExampleDecode() {
	ts, err := newTokens(`<m:echo xmlns:m="urn:m"><message>hi &amp; bye</message></m:echo>`)
	if err != nil {
		panic(err)
	}
	var v struct {
		XMLName xml.Name `xml:"urn:m echo"`
		Message string   `xml:"message"`
	}
	ok, _, err := xmlvalue.Decode(ts, &v, nil, nil)
	fmt.Println(ok, err, v.Message)
	// Output: true <nil> hi & bye
}

func ExampleAppend() {
	type reply struct {
		XMLName xml.Name `xml:"urn:m echoResponse"`
		Return  string   `xml:"return"`
	}
	out, ok := xmlvalue.Append(nil, reply{Return: "it's <x>"}, nil)
	fmt.Println(ok, string(out))
	want, _ := xml.Marshal(reply{Return: "it's <x>"})
	fmt.Println(string(out) == string(want))
	// Output:
	// true <echoResponse xmlns="urn:m"><return>it&#39;s &lt;x&gt;</return></echoResponse>
	// true
}
