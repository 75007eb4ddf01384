package rpc

import (
	"log/slog"
	"strings"

	"github.com/soapwire/soapwire/core"
)

// Style is the WSDL style and use of a service's messages.
type Style uint8

// Styles. The wire form of the three differs only in rpc/encoded's xsi:type
// attributes and SOAP-encoded arrays: the request element is the operation
// name in the service namespace and its children are unqualified accessors.
const (
	DocumentLiteral Style = iota // document/literal wrapped (WS-I Basic Profile); the default
	RPCLiteral                   // rpc/literal
	RPCEncoded                   // rpc/encoded: SOAP encoding, xsi:type on every value
)

// String returns "document/literal", "rpc/literal" or "rpc/encoded".
func (s Style) String() string {
	switch s {
	case RPCLiteral:
		return "rpc/literal"
	case RPCEncoded:
		return "rpc/encoded"
	}
	return "document/literal"
}

// IsRPC reports whether the WSDL binding style is rpc.
func (s Style) IsRPC() bool { return s == RPCLiteral || s == RPCEncoded }

// IsEncoded reports whether the use is encoded.
func (s Style) IsEncoded() bool { return s == RPCEncoded }

// Option configures a Service or a Client.
type Option func(*config)

type config struct {
	style     Style
	version   core.Version
	action    string
	multiRefs bool
	rpcResult bool
	logger    *slog.Logger
}

func newConfig(opts []Option) config {
	c := config{version: core.V11, action: "{ns}#{op}"}
	for _, o := range opts {
		o(&c)
	}
	return c
}

// WithStyle selects the style (default DocumentLiteral).
func WithStyle(s Style) Option { return func(c *config) { c.style = s } }

// WithVersion selects the SOAP version a Client sends (default V11). A
// Service always answers in the version of the request.
func WithVersion(v core.Version) Option { return func(c *config) { c.version = v } }

// WithSOAPAction sets the pattern of the SOAPAction (1.2 action) of each
// operation: "{ns}" stands for the service namespace and "{op}" for the
// operation name. The default is "{ns}#{op}"; "" sends and publishes an empty
// action. A Service routes on the body element, never on the action, so
// the pattern only shapes what the WSDL publishes and what a Client sends.
func WithSOAPAction(pattern string) Option { return func(c *config) { c.action = pattern } }

// WithMultiRefs makes rpc/encoded messages write values reached through
// the same pointer once, as SOAP multi-refs (1.1 href/id, 1.2 ref/id).
// Reading always understands multi-refs.
func WithMultiRefs(on bool) Option { return func(c *config) { c.multiRefs = on } }

// WithRPCResult makes a Service's SOAP 1.2 rpc/encoded responses start with
// the rpc:result accessor that names the return value (SOAP 1.2 Part 2
// §4.2.2). It is off by default because zeep (4.2.1) refuses a response
// with an element its WSDL does not declare; gSOAP and node-soap accept it.
// A Client always skips an rpc:result it receives.
func WithRPCResult(on bool) Option { return func(c *config) { c.rpcResult = on } }

// WithLogger gives a Service a logger for the requests it refuses (Info:
// no such operation, bad arguments, an unknown encoding), the faults its
// functions return (Info) and the plain errors they return (Error, with the
// error's text, which the peer never sees). The default discards.
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }

func (c *config) actionFor(ns, op string) string {
	return strings.NewReplacer("{ns}", ns, "{op}", op).Replace(c.action)
}
