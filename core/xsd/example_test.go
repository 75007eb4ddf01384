package xsd_test

import (
	"context"
	"fmt"

	"github.com/soapwire/soapwire/core/xsd"
)

func ExampleLoad() {
	schema := `<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:tns="urn:shop"
    targetNamespace="urn:shop" elementFormDefault="qualified">
  <xs:element name="order" type="tns:Order"/>
  <xs:complexType name="Order">
    <xs:sequence>
      <xs:element name="item" type="xs:string" maxOccurs="unbounded"/>
      <xs:element name="total" type="xs:decimal" nillable="true"/>
    </xs:sequence>
    <xs:attribute name="id" type="xs:int" use="required"/>
  </xs:complexType>
</xs:schema>`
	set, err := xsd.Load(context.Background(), xsd.MapLoader{"shop.xsd": []byte(schema)}, "shop.xsd")
	if err != nil {
		fmt.Println(err)
		return
	}
	order := set.Element(xsd.QName("urn:shop", "order"))
	t := order.Type.(*xsd.ComplexType)
	for _, p := range t.EffectiveParticle().Group.Particles {
		e := p.Element
		fmt.Printf("{%s}%s %s min=%d max=%d nillable=%v (%s)\n", e.Name.Space, e.Name.Local,
			e.Type.TypeName().Local, p.Min, p.Max, e.Nillable, e.Loc)
	}
	for _, u := range t.EffectiveAttributes() {
		fmt.Printf("@%s %s %s, primitive %s\n", u.Attribute.Name.Local, u.Attribute.Type.Name.Local, u.Use, u.Attribute.Type.Primitive())
	}
	// Output:
	// {urn:shop}item string min=1 max=-1 nillable=false (shop.xsd:6)
	// {urn:shop}total decimal min=1 max=1 nillable=true (shop.xsd:7)
	// @id int required, primitive decimal
}
