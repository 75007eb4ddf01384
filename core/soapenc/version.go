package soapenc

// Version is a SOAP version. Its values are those of core.Version, so a
// core.Version converts with soapenc.Version(v). The zero Version means V11
// to an Encoder and "either form" to a Decoder.
type Version uint8

// SOAP versions.
const (
	V11 Version = 1 // SOAP 1.1 §5 encoding: href="#id"/id, soapenc:arrayType
	V12 Version = 2 // SOAP 1.2 Part 2 §3 encoding: enc:ref/enc:id, enc:itemType, enc:arraySize
)

// Namespaces and encodingStyle URIs.
const (
	// NamespaceV11 is the SOAP 1.1 encoding namespace (SOAP-ENC); it is also
	// the 1.1 encodingStyle URI.
	NamespaceV11 = "http://schemas.xmlsoap.org/soap/encoding/"
	// NamespaceV12 is the SOAP 1.2 encoding namespace (enc); it is also the
	// 1.2 encodingStyle URI.
	NamespaceV12 = "http://www.w3.org/2003/05/soap-encoding"
	// EncodingStyleV11 is the encodingStyle URI of the SOAP 1.1 encoding.
	EncodingStyleV11 = NamespaceV11
	// EncodingStyleV12 is the encodingStyle URI of the SOAP 1.2 encoding.
	EncodingStyleV12 = NamespaceV12
	// EncodingStyleNone is the SOAP 1.2 URI that says no encoding applies.
	EncodingStyleNone = "http://www.w3.org/2003/05/soap-envelope/encoding/none"
	// NamespaceXSD is the XML Schema namespace of the built-in types.
	NamespaceXSD = "http://www.w3.org/2001/XMLSchema"
	// NamespaceXSI is the XML Schema instance namespace (xsi:type, xsi:nil).
	NamespaceXSI = "http://www.w3.org/2001/XMLSchema-instance"
)

// Older schema namespaces still sent by some SOAP 1.1 toolkits; accepted when
// decoding, never written.
const (
	nsXSD1999 = "http://www.w3.org/1999/XMLSchema"
	nsXSI1999 = "http://www.w3.org/1999/XMLSchema-instance"
	nsXSD2000 = "http://www.w3.org/2000/10/XMLSchema"
	nsXSI2000 = "http://www.w3.org/2000/10/XMLSchema-instance"

	nsEnvV11 = "http://schemas.xmlsoap.org/soap/envelope/"
	nsEnvV12 = "http://www.w3.org/2003/05/soap-envelope"
	nsXML    = "http://www.w3.org/XML/1998/namespace"
)

// Namespace returns the encoding namespace of v (NamespaceV11 for the zero
// Version).
func (v Version) Namespace() string {
	if v == V12 {
		return NamespaceV12
	}
	return NamespaceV11
}

// String returns "1.1" or "1.2".
func (v Version) String() string {
	if v == V12 {
		return "1.2"
	}
	return "1.1"
}

func (v Version) envNamespace() string {
	if v == V12 {
		return nsEnvV12
	}
	return nsEnvV11
}

func isXSD(ns string) bool { return ns == NamespaceXSD || ns == nsXSD1999 || ns == nsXSD2000 }
func isXSI(ns string) bool { return ns == NamespaceXSI || ns == nsXSI1999 || ns == nsXSI2000 }
func isEnc(ns string) bool { return ns == NamespaceV11 || ns == NamespaceV12 }
