package xsd_test

import (
	"bytes"
	"context"
	"fmt"

	"github.com/soapwire/soapwire/core/xsd"
)

func ExampleCodec() {
	schema := `<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:tns="urn:shop"
    targetNamespace="urn:shop" elementFormDefault="qualified">
  <xs:element name="order">
    <xs:complexType>
      <xs:sequence>
        <xs:element name="item" type="xs:string" maxOccurs="unbounded"/>
        <xs:element name="total" type="xs:decimal" nillable="true"/>
      </xs:sequence>
      <xs:attribute name="id" type="xs:int" use="required"/>
    </xs:complexType>
  </xs:element>
</xs:schema>`
	set, err := xsd.Load(context.Background(), xsd.MapLoader{"shop.xsd": []byte(schema)}, "shop.xsd")
	if err != nil {
		fmt.Println(err)
		return
	}
	type Order struct {
		ID    int      `xml:"id,attr"`
		Items []string `xml:"item"`
		Total *float64 `xml:"total"`
	}
	c := xsd.NewCodec(set)
	el := set.Element(xsd.QName("urn:shop", "order"))
	var buf bytes.Buffer
	if err := c.Encode(&buf, el, Order{ID: 7, Items: []string{"tea", "milk"}}); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(buf.String())

	var back Order
	err = c.DecodeBytes([]byte(`<s:order xmlns:s="urn:shop" id="8"><s:item>tea</s:item><total>2.5</total></s:order>`), el, &back)
	fmt.Println(err)
	// Output:
	// <ns0:order xmlns:ns0="urn:shop" id="7"><ns0:item>tea</ns0:item><ns0:item>milk</ns0:item><ns0:total xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:nil="true"/></ns0:order>
	// order: the required element {urn:shop}total is missing (found total: the schema wants it in the namespace urn:shop (qualified))
}
