package rpc_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core/rpc"
)

// TestInteropRequests feeds the service requests shaped as real clients
// send them (see /work/shared/INTEROP-NOTES.md): prefixes, where the
// namespace is declared, XML declarations, encodingStyle present or not,
// arrays as SOAP arrays or as repeated elements.
func TestInteropRequests(t *testing.T) {
	const (
		env11 = "http://schemas.xmlsoap.org/soap/envelope/"
		env12 = "http://www.w3.org/2003/05/soap-envelope"
	)
	tests := []struct {
		name  string
		style rpc.Style
		req   string
	}{
		{"zeep rpc/encoded 1.1, no encodingStyle, ns declared locally", rpc.RPCEncoded,
			`<?xml version='1.0' encoding='utf-8'?>
<soap-env:Envelope xmlns:soap-env="` + env11 + `"><soap-env:Body><ns0:echoStruct xmlns:ns0="urn:soapwire:echo"><record><name>n1</name><count>7</count><score>2.5</score><tags><item>a</item><item>b</item></tags></record></ns0:echoStruct></soap-env:Body></soap-env:Envelope>`},
		{"zeep document/literal 1.2", rpc.DocumentLiteral,
			`<?xml version='1.0' encoding='utf-8'?>
<soap-env:Envelope xmlns:soap-env="` + env12 + `"><soap-env:Body><ns0:echoStruct xmlns:ns0="urn:soapwire:echo"><record><name>n1</name><count>7</count><score>2.5</score><tags>a</tags><tags>b</tags></record></ns0:echoStruct></soap-env:Body></soap-env:Envelope>`},
		{"suds rpc/encoded: two envelope prefixes, empty Header, ns on Envelope", rpc.RPCEncoded,
			`<?xml version="1.0" encoding="UTF-8"?>
<SOAP-ENV:Envelope xmlns:ns0="urn:soapwire:echo" xmlns:ns1="` + env11 + `" xmlns:ns2="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:SOAP-ENV="` + env11 + `" xmlns:ns3="http://schemas.xmlsoap.org/soap/encoding/" SOAP-ENV:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/">
   <SOAP-ENV:Header/>
   <ns1:Body>
      <ns0:echoStruct>
         <record xsi:type="ns0:Record">
            <name xsi:type="ns2:string">n1</name>
            <count xsi:type="ns2:int">7</count>
            <score xsi:type="ns2:double">2.5</score>
            <tags xsi:type="ns3:Array" ns3:arrayType="ns2:string[2]">
               <item xsi:type="ns2:string">a</item>
               <item xsi:type="ns2:string">b</item>
            </tags>
         </record>
      </ns0:echoStruct>
   </ns1:Body>
</SOAP-ENV:Envelope>
`},
		{"node-soap rpc/encoded 1.1: array as repeated elements", rpc.RPCEncoded,
			`<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="` + env11 + `" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:tns="urn:soapwire:echo"><soap:Body><tns:echoStruct xmlns:tns="urn:soapwire:echo"><record><name>n1</name><count>7</count><score>2.5</score><tags>a</tags><tags>b</tags></record></tns:echoStruct></soap:Body></soap:Envelope>`},
		{"node-soap rpc/literal 1.2", rpc.RPCLiteral,
			`<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="` + env12 + `"><soap:Body><tns:echoStruct xmlns:tns="urn:soapwire:echo"><record><name>n1</name><count>7</count><score>2.5</score><tags>a</tags><tags>b</tags></record></tns:echoStruct></soap:Body></soap:Envelope>`},
		{"gSOAP rpc/encoded 1.1: encodingStyle on Body, SOAP-ENC array", rpc.RPCEncoded,
			`<?xml version="1.0" encoding="UTF-8"?>
<SOAP-ENV:Envelope xmlns:SOAP-ENV="` + env11 + `" xmlns:SOAP-ENC="http://schemas.xmlsoap.org/soap/encoding/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:ns="urn:soapwire:echo"><SOAP-ENV:Body SOAP-ENV:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/"><ns:echoStruct><record xsi:type="ns:Record"><name xsi:type="xsd:string">n1</name><count xsi:type="xsd:int">7</count><score xsi:type="xsd:double">2.5</score><tags xsi:type="SOAP-ENC:Array" SOAP-ENC:arrayType="xsd:string[2]"><item xsi:type="xsd:string">a</item><item xsi:type="xsd:string">b</item></tags></record></ns:echoStruct></SOAP-ENV:Body></SOAP-ENV:Envelope>`},
		{"gSOAP rpc/encoded 1.2: itemType/arraySize", rpc.RPCEncoded,
			`<?xml version="1.0" encoding="UTF-8"?>
<SOAP-ENV:Envelope xmlns:SOAP-ENV="` + env12 + `" xmlns:SOAP-ENC="http://www.w3.org/2003/05/soap-encoding" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:ns="urn:soapwire:echo"><SOAP-ENV:Body><ns:echoStruct SOAP-ENV:encodingStyle="http://www.w3.org/2003/05/soap-encoding"><record xsi:type="ns:Record"><name xsi:type="xsd:string">n1</name><count xsi:type="xsd:int">7</count><score xsi:type="xsd:double">2.5</score><tags SOAP-ENC:itemType="xsd:string" SOAP-ENC:arraySize="2"><item xsi:type="xsd:string">a</item><item xsi:type="xsd:string">b</item></tags></record></ns:echoStruct></SOAP-ENV:Body></SOAP-ENV:Envelope>`},
		{"Axis 1 rpc/encoded: arguments as multi-refs", rpc.RPCEncoded,
			`<soapenv:Envelope xmlns:soapenv="` + env11 + `" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:soapenc="http://schemas.xmlsoap.org/soap/encoding/"><soapenv:Body><ns1:echoStruct soapenv:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/" xmlns:ns1="urn:soapwire:echo"><record href="#id0"/></ns1:echoStruct><multiRef id="id0" soapenc:root="0" xsi:type="ns2:Record" xmlns:ns2="urn:soapwire:echo"><name xsi:type="xsd:string">n1</name><count href="#id1"/><score xsi:type="xsd:double">2.5</score><tags xsi:type="soapenc:Array" soapenc:arrayType="xsd:string[2]"><item>a</item><item>b</item></tags></multiRef><multiRef id="id1" soapenc:root="0" xsi:type="xsd:int">7</multiRef></soapenv:Body></soapenv:Envelope>`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, f := serveRaw(t, newEchoService(rpc.WithStyle(tt.style)), tt.req)
			require.Nil(t, f, "fault: %v", f)
			assertInOrder(t, out, []string{"echoStructResponse", ">n1</name>", ">7</count>", ">2.5</score>", ">a</", ">b</"})
			assert.NotContains(t, out, "<record")
		})
	}
}
