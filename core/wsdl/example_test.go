package wsdl_test

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/soapwire/soapwire/core/wsdl"
)

// A Definition written by hand (core/rpc builds one from a Service).
func ExampleDefinition_Write() {
	d := wsdl.Definition{
		Name:      "Echo",
		Namespace: "urn:example:echo",
		Operations: []wsdl.Operation{{
			Name:   "echo",
			Action: "urn:example:echo#echo",
			Input:  []wsdl.Part{{Name: "s", Type: reflect.TypeFor[string]()}},
			Output: []wsdl.Part{{Name: "return", Type: reflect.TypeFor[string]()}},
		}},
	}
	var b strings.Builder
	if err := d.Write(&b, "http://localhost/echo"); err != nil {
		fmt.Println(err)
		return
	}
	for _, line := range strings.Split(b.String(), "\n") {
		if strings.HasPrefix(line, "<xsd:element") {
			fmt.Println(line)
		}
	}
	// Output:
	// <xsd:element name="echo"><xsd:complexType><xsd:sequence><xsd:element name="s" type="xsd:string"/></xsd:sequence></xsd:complexType></xsd:element><xsd:element name="echoResponse"><xsd:complexType><xsd:sequence><xsd:element name="return" type="xsd:string"/></xsd:sequence></xsd:complexType></xsd:element>
}
