package core

// Version is a SOAP version, chosen by the envelope's namespace.
type Version uint8

// SOAP versions. The zero Version is unknown; writers treat it as V11.
const (
	V11 Version = 1 // SOAP 1.1 (W3C Note, 2000)
	V12 Version = 2 // SOAP 1.2 (W3C Recommendation, 2007)
)

// Envelope namespaces.
const (
	NamespaceV11 = "http://schemas.xmlsoap.org/soap/envelope/"
	NamespaceV12 = "http://www.w3.org/2003/05/soap-envelope"
)

// Media types.
const (
	MediaTypeV11 = "text/xml"
	MediaTypeV12 = "application/soap+xml"
)

// Role URIs. A header block without a role (1.1 actor) is for the ultimate
// receiver.
const (
	RoleNextV11             = "http://schemas.xmlsoap.org/soap/actor/next"
	RoleNext                = "http://www.w3.org/2003/05/soap-envelope/role/next"
	RoleNone                = "http://www.w3.org/2003/05/soap-envelope/role/none"
	RoleUltimateReceiver    = "http://www.w3.org/2003/05/soap-envelope/role/ultimateReceiver"
	EncodingStyleV11        = "http://schemas.xmlsoap.org/soap/encoding/"
	EncodingStyleV12        = "http://www.w3.org/2003/05/soap-encoding"
	EncodingStyleNone       = "http://www.w3.org/2003/05/soap-envelope/encoding/none"
	NamespaceRPC            = "http://www.w3.org/2003/05/soap-rpc"
	NamespaceXMLSchema      = "http://www.w3.org/2001/XMLSchema"
	NamespaceXMLSchemaInst  = "http://www.w3.org/2001/XMLSchema-instance"
	namespaceXML            = "http://www.w3.org/XML/1998/namespace"
	defaultEnvelopePrefix   = "soap"
	defaultAddressingPrefix = "wsa"
)

// VersionOf returns the version whose envelope namespace is ns, or 0.
func VersionOf(ns string) Version {
	switch ns {
	case NamespaceV11:
		return V11
	case NamespaceV12:
		return V12
	}
	return 0
}

// Namespace is the envelope namespace of v (V11 for the zero Version).
func (v Version) Namespace() string {
	if v == V12 {
		return NamespaceV12
	}
	return NamespaceV11
}

// MediaType is the media type of v: text/xml or application/soap+xml.
func (v Version) MediaType() string {
	if v == V12 {
		return MediaTypeV12
	}
	return MediaTypeV11
}

// String returns "1.1", "1.2" or "unknown".
func (v Version) String() string {
	switch v {
	case V11:
		return "1.1"
	case V12:
		return "1.2"
	}
	return "unknown"
}

// orV11 maps the zero Version to V11.
func (v Version) orV11() Version {
	if v == V12 {
		return V12
	}
	return V11
}
