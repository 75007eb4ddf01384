package soapenc_test

import (
	"encoding/xml"
	"fmt"
	"os"
	"strings"

	"github.com/soapwire/soapwire/core/soapenc"
)

func ExampleEncoder_EncodeParts() {
	type Point struct {
		X, Y int32
	}
	enc := soapenc.Encoder{Version: soapenc.V11, TypeNamespace: "urn:geo"}
	err := enc.EncodeParts(os.Stdout, xml.Name{Space: "urn:geo", Local: "moveResponse"},
		soapenc.Part{Name: "return", Value: Point{X: 1, Y: 2}},
		soapenc.Part{Name: "log", Value: []string{"moved"}})
	if err != nil {
		fmt.Println(err)
	}
	// Output:
	// <m:moveResponse xmlns:m="urn:geo" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:soapenc="http://schemas.xmlsoap.org/soap/encoding/" xmlns:tns="urn:geo"><return xsi:type="tns:Point"><X xsi:type="xsd:int">1</X><Y xsi:type="xsd:int">2</Y></return><log xsi:type="soapenc:Array" soapenc:arrayType="xsd:string[1]"><item xsi:type="xsd:string">moved</item></log></m:moveResponse>
}

func ExampleEncoder_Encode_multiRefs() {
	type Node struct {
		Name string
		Next *Node
	}
	ring := &Node{Name: "a"}
	ring.Next = &Node{Name: "b", Next: ring}
	enc := soapenc.Encoder{Version: soapenc.V12, MultiRefs: true}
	if err := enc.Encode(os.Stdout, xml.Name{Local: "ring"}, ring); err != nil {
		fmt.Println(err)
	}
	// Output:
	// <ring xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:enc="http://www.w3.org/2003/05/soap-encoding" enc:id="id1"><Name xsi:type="xsd:string">a</Name><Next><Name xsi:type="xsd:string">b</Name><Next enc:ref="id1"/></Next></ring>
}

func ExampleDecoder_ReadBody() {
	// An Axis-style SOAP 1.1 body: the struct is a multiRef after the call.
	body := `<ns1:echoStruct xmlns:ns1="urn:echo">
	  <inputStruct href="#id0"/>
	</ns1:echoStruct>
	<multiRef id="id0" soapenc:root="0" xsi:type="ns2:SOAPStruct"
	    xmlns:soapenc="http://schemas.xmlsoap.org/soap/encoding/" xmlns:ns2="urn:echo:types"
	    xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema">
	  <varString xsi:type="xsd:string">hello</varString>
	  <varInt xsi:type="xsd:int">42</varInt>
	  <varFloat xsi:type="xsd:float">1.5</varFloat>
	</multiRef>`
	el, err := soapenc.NewDecoder(xml.NewDecoder(strings.NewReader(body))).ReadBody()
	if err != nil {
		fmt.Println(err)
		return
	}
	type SOAPStruct struct {
		VarString string  `soap:"varString"`
		VarInt    int     `soap:"varInt"`
		VarFloat  float64 `soap:"varFloat"`
	}
	fmt.Println(el.Name.Local)
	for _, arg := range el.Children() {
		var s SOAPStruct
		if err := arg.Decode(&s); err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s %s %+v\n", arg.Name.Local, arg.Type().Local, s)
	}
	// Output:
	// echoStruct
	// inputStruct SOAPStruct {VarString:hello VarInt:42 VarFloat:1.5}
}

func ExampleElement_Decode_any() {
	body := `<r xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema"
	    xmlns:enc="http://www.w3.org/2003/05/soap-encoding">
	  <n xsi:type="xsd:int">7</n>
	  <big xsi:type="xsd:decimal">1234567890123456789012345678901234567890.000000000000000000001</big>
	  <list enc:itemType="xsd:double" enc:arraySize="3"><i>1.5</i><i>INF</i><i>-0</i></list>
	  <plain>text</plain>
	</r>`
	d := soapenc.NewDecoder(xml.NewDecoder(strings.NewReader(body)))
	d.Version = soapenc.V12
	el, err := d.ReadBody()
	if err != nil {
		fmt.Println(err)
		return
	}
	var v any
	if err := el.Decode(&v); err != nil {
		fmt.Println(err)
		return
	}
	m := v.(map[string]any)
	for _, k := range []string{"n", "big", "list", "plain"} {
		fmt.Printf("%s: %T %v\n", k, m[k], m[k])
	}
	// Output:
	// n: int32 7
	// big: soapenc.Decimal 1234567890123456789012345678901234567890.000000000000000000001
	// list: []float64 [1.5 +Inf -0]
	// plain: string text
}

func ExampleError() {
	body := `<op><a href="#missing"/></op>`
	_, err := soapenc.NewDecoder(xml.NewDecoder(strings.NewReader(body))).ReadBody()
	if e, ok := err.(*soapenc.Error); ok {
		fmt.Println(e.Subcode)
		fmt.Println(e)
	}
	// Output:
	// MissingID
	// soapenc: MissingID at /op/a: reference to id "missing", which no element has
}

// The literal form (rpc/literal, document/literal): the same values without
// xsi:type or SOAP arrays.
func ExampleEncoder_Encode_literal() {
	type Order struct {
		ID    int64    `soap:"id"`
		Items []string `soap:"item"`
		Note  *string  `soap:"note"`
	}
	enc := soapenc.Encoder{Literal: true}
	if err := enc.Encode(os.Stdout, xml.Name{Space: "urn:shop", Local: "order"}, Order{ID: 7, Items: []string{"tea", "cups"}}); err != nil {
		fmt.Println(err)
	}
	// Output:
	// <m:order xmlns:m="urn:shop"><id>7</id><item>tea</item><item>cups</item></m:order>
}
