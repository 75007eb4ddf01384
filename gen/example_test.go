package gen_test

import (
	"context"
	"fmt"
	"log"
	"strings"

	"github.com/soapwire/soapwire/core/wsdl"
	"github.com/soapwire/soapwire/core/xsd"
	"github.com/soapwire/soapwire/gen"
)

const greeter = `<definitions name="Greeter" targetNamespace="urn:greet" xmlns="http://schemas.xmlsoap.org/wsdl/"
    xmlns:tns="urn:greet" xmlns:soap="http://schemas.xmlsoap.org/wsdl/soap/" xmlns:xs="http://www.w3.org/2001/XMLSchema">
  <types>
    <xs:schema targetNamespace="urn:greet" elementFormDefault="qualified">
      <xs:element name="greet"><xs:complexType><xs:sequence>
        <xs:element name="name" type="xs:string"/>
        <xs:element name="times" type="xs:int" minOccurs="0"/>
      </xs:sequence></xs:complexType></xs:element>
      <xs:element name="greetResponse"><xs:complexType><xs:sequence>
        <xs:element name="greeting" type="xs:string" maxOccurs="unbounded"/>
      </xs:sequence></xs:complexType></xs:element>
    </xs:schema>
  </types>
  <message name="greetIn"><part name="parameters" element="tns:greet"/></message>
  <message name="greetOut"><part name="parameters" element="tns:greetResponse"/></message>
  <portType name="Greeter"><operation name="greet"><input message="tns:greetIn"/><output message="tns:greetOut"/></operation></portType>
  <binding name="GreeterSoap" type="tns:Greeter">
    <soap:binding style="document" transport="http://schemas.xmlsoap.org/soap/http"/>
    <operation name="greet"><soap:operation soapAction="urn:greet#greet"/>
      <input><soap:body use="literal"/></input><output><soap:body use="literal"/></output></operation>
  </binding>
  <service name="GreeterService"><port name="GreeterSoap" binding="tns:GreeterSoap"><soap:address location="http://localhost:8080/greet"/></port></service>
</definitions>`

// A contract's Go package: its files, and the type of the greet element.
func Example() {
	c, err := wsdl.Load(context.Background(), xsd.MapLoader{"greeter.wsdl": []byte(greeter)}, "greeter.wsdl")
	if err != nil {
		log.Fatal(err)
	}
	files, err := gen.Generate(c, gen.WithPackage("greeter"))
	if err != nil {
		log.Fatal(err)
	}
	for _, f := range files {
		fmt.Println(f.Name)
		if f.Name == "types.go" {
			src := string(f.Data)
			start := strings.Index(src, "type Greet struct")
			fmt.Print(src[start : start+strings.Index(src[start:], "}\n")+2])
		}
	}
	// Output:
	// client.go
	// codec.go
	// doc.go
	// server.go
	// simples.go
	// types.go
	// type Greet struct {
	// 	Name  string `xml:"urn:greet name"`
	// 	Times *int32 `xml:"urn:greet times"`
	// }
	// wsdl.go
}
