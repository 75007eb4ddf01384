package rpc

import (
	"log/slog"
	"strings"

	"github.com/soapwire/soapwire/core"
)

// Style is the WSDL style and use of a service's messages.
type Style uint8

// Styles. The wire form of the first three differs only in rpc/encoded's
// xsi:type attributes and SOAP-encoded arrays: the request element is the
// operation name in the service namespace and its children are the
// accessors. DocumentBare has no wrapper: the Body holds the one body
// parameter's element itself.
const (
	DocumentLiteral Style = iota // document/literal wrapped (WS-I Basic Profile); the default
	RPCLiteral                   // rpc/literal
	RPCEncoded                   // rpc/encoded: SOAP encoding, xsi:type on every value
	// DocumentBare is document/literal bare: the request's Body holds the
	// element of its one body parameter (a global element named by the
	// field, in the service namespace unless its xml tag names another),
	// not an element named after the operation; a Service routes on that
	// element. The response's Body holds its one body parameter's element,
	// or nothing.
	DocumentBare
)

// String returns "document/literal", "rpc/literal", "rpc/encoded" or
// "document/literal bare".
func (s Style) String() string {
	switch s {
	case RPCLiteral:
		return "rpc/literal"
	case RPCEncoded:
		return "rpc/encoded"
	case DocumentBare:
		return "document/literal bare"
	}
	return "document/literal"
}

// IsRPC reports whether the WSDL binding style is rpc.
func (s Style) IsRPC() bool { return s == RPCLiteral || s == RPCEncoded }

// IsEncoded reports whether the use is encoded.
func (s Style) IsEncoded() bool { return s == RPCEncoded }

// IsBare reports whether the style is document/literal bare.
func (s Style) IsBare() bool { return s == DocumentBare }

// ServiceOption configures NewService.
type ServiceOption interface{ applyService(*serviceConfig) }

// ClientOption configures NewClient.
type ClientOption interface{ applyClient(*clientConfig) }

// Option is an option of both NewService and NewClient: what shapes the
// messages both sides write.
type Option interface {
	ServiceOption
	ClientOption
}

// wire is what shapes the messages a Service or a Client writes.
type wire struct {
	style     Style
	action    string
	multiRefs bool
	qualified bool
	typeNS    string       // WithTypeNamespace; "" is the service namespace
	contract  *contractRef // WithContract
}

type serviceConfig struct {
	wire
	rpcResult bool
	logger    *slog.Logger
}

type clientConfig struct {
	wire
	version    core.Version
	versionSet bool
}

func newServiceConfig(opts []ServiceOption) serviceConfig {
	c := serviceConfig{wire: wire{action: DefaultSOAPAction}}
	for _, o := range opts {
		o.applyService(&c)
	}
	if c.logger == nil {
		c.logger = slog.New(slog.DiscardHandler)
	}
	return c
}

func newClientConfig(opts []ClientOption) clientConfig {
	c := clientConfig{wire: wire{action: DefaultSOAPAction}, version: core.V11}
	for _, o := range opts {
		o.applyClient(&c)
	}
	return c
}

// wireOption sets what shapes the messages, on either side.
type wireOption func(*wire)

func (f wireOption) applyService(c *serviceConfig) { f(&c.wire) }
func (f wireOption) applyClient(c *clientConfig)   { f(&c.wire) }

type serviceOptionFunc func(*serviceConfig)

func (f serviceOptionFunc) applyService(c *serviceConfig) { f(c) }

type clientOptionFunc func(*clientConfig)

func (f clientOptionFunc) applyClient(c *clientConfig) { f(c) }

// WithStyle selects the style (default DocumentLiteral).
func WithStyle(s Style) Option { return wireOption(func(w *wire) { w.style = s }) }

// WithVersion selects the SOAP version a Client sends (default V11; a
// Client bound to a contract's port sends the port's version, and with no
// port named WithVersion chooses the port). A Service always answers in the
// version of the request.
func WithVersion(v core.Version) ClientOption {
	return clientOptionFunc(func(c *clientConfig) { c.version, c.versionSet = v, true })
}

// DefaultSOAPAction is the pattern of an operation's SOAPAction unless
// WithSOAPAction sets another.
const DefaultSOAPAction = "{ns}#{op}"

// WithSOAPAction sets the pattern of the SOAPAction (1.2 action) of each
// operation: "{ns}" stands for the service namespace and "{op}" for the
// operation name. The default is DefaultSOAPAction; "" sends and publishes
// an empty action. A Service routes on the body element, never on the
// action, so the pattern only shapes what the WSDL publishes and what a
// Client sends.
func WithSOAPAction(pattern string) Option {
	return wireOption(func(w *wire) { w.action = pattern })
}

// WithMultiRefs makes rpc/encoded messages write values reached through
// the same pointer once, as SOAP multi-refs (1.1 href/id, 1.2 ref/id).
// Reading always understands multi-refs.
func WithMultiRefs(on bool) Option { return wireOption(func(w *wire) { w.multiRefs = on }) }

// WithRPCResult makes a Service's SOAP 1.2 rpc/encoded responses start with
// the rpc:result accessor that names the return value (SOAP 1.2 Part 2
// §4.2.2). It is off by default because zeep (4.2.1) refuses a response
// with an element its WSDL does not declare; gSOAP and node-soap accept it.
// A Client always skips an rpc:result it receives.
func WithRPCResult(on bool) ServiceOption {
	return serviceOptionFunc(func(c *serviceConfig) { c.rpcResult = on })
}

// WithLogger gives a Service a logger for the requests it refuses (Info:
// no such operation, bad arguments, an unknown encoding), the faults its
// functions return (Info) and the plain errors they return (Error, with the
// error's text, which the peer never sees). The default discards.
func WithLogger(l *slog.Logger) ServiceOption {
	return serviceOptionFunc(func(c *serviceConfig) { c.logger = l })
}

// WithQualified makes the accessors qualified, as a schema with
// elementFormDefault="qualified" says: the parameters and return value of a
// document/literal message (wrapped: the wrapper's children) in the
// service namespace, the fields of structs and the items of literal lists
// in the type namespace (WithTypeNamespace). rpc accessors stay
// unqualified (WS-I Basic Profile R2735), their structs' fields are
// qualified. Reading then requires those forms: an unqualified accessor is
// refused (rpc:BadArguments on a Service, an error on a Client) rather than
// read as absent, and names must match exactly, in order. The WSDL says
// elementFormDefault="qualified".
//
// Off (the default), accessors are written unqualified, and read in
// either form, as the lenient clients send them; an xml tag's namespace
// ("urn:x name") is written and checked in both modes.
func WithQualified(on bool) Option { return wireOption(func(w *wire) { w.qualified = on }) }

// WithTypeNamespace sets the namespace of the types: the xsi:type of
// structs in rpc/encoded messages, the target namespace of the WSDL schema
// that declares the complex types (the elements stay in the service
// namespace's schema, which imports it), and, with WithQualified, the
// namespace of struct fields. The default, "", is the service namespace.
func WithTypeNamespace(ns string) Option { return wireOption(func(w *wire) { w.typeNS = ns }) }

// typeNamespace returns the type namespace of a service in ns.
func (w *wire) typeNamespace(ns string) string {
	if w.typeNS != "" {
		return w.typeNS
	}
	return ns
}

func (w *wire) actionFor(ns, op string) string {
	return strings.NewReplacer("{ns}", ns, "{op}", op).Replace(w.action)
}
