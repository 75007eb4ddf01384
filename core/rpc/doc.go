// Package rpc implements the SOAP RPC convention (SOAP 1.2 Part 2 §4,
// SOAP 1.1 §7) over core: services built from Go functions, and a client.
//
// # Services
//
// An operation is a function from a request struct to a response struct:
//
//	type AddReq struct {
//		A int32 `soap:"a"`
//		B int32 `soap:"b"`
//	}
//	type AddResp struct {
//		Sum int32 `soap:"return"`
//	}
//	svc := rpc.NewService("urn:calc", "Calculator", rpc.WithStyle(rpc.RPCLiteral))
//	rpc.Register(svc, "add", func(ctx context.Context, r *AddReq) (*AddResp, error) {
//		return &AddResp{Sum: r.A + r.B}, nil
//	})
//
// The request element is the operation name in the service namespace; its
// children are the in and inout parameters, in the request struct's field
// order. The response element is the operation name + "Response"; its
// children are the return value (the first out field of the response
// struct), then the other out and inout parameters in field order.
// Accessor names come from a `soap:"name"` tag, else an `xml:"name"` or
// `xml:"urn:x name"` tag (the accessor is then in that namespace, written
// so and checked when read), else the field name. Tag options set the
// mode: in (the default in a request), out (the default in a response),
// inout (a field of that name in both structs); omitempty (and pointer and
// slice types) make a parameter optional; nillable makes a pointer
// required and nillable (nil is sent xsi:nil, absence is refused); header
// makes the field a soap:header part. WithRequestElement and
// WithResponseElement rename the wrappers. Register panics at setup on a
// signature that does not add up.
//
// Reading is strict about what the Go types say: a missing required
// parameter, header or struct field, a surplus element and an xsi:nil
// where no nil fits are each rpc:BadArguments naming the element on a
// Service, and an error naming it from Call, never a zero value.
//
// A Service is a core.Handler: mount it in a core.Mux or as a core.Node's
// Handler, behind any binding. It answers in the version of the request, and
// its WSDL method (WSDL 1.1 with SOAP 1.1 and 1.2 bindings, see core/wsdl)
// is what bindings serve for "?wsdl".
//
// # Styles
//
// DocumentLiteral (document/literal wrapped, the default), DocumentBare
// (the Body holds the one body parameter's element, on which the Service
// routes), RPCLiteral and RPCEncoded (the SOAP encoding of core/soapenc:
// xsi:type on every value, SOAP arrays, multi-refs with WithMultiRefs, the
// SOAP 1.2 rpc:result accessor with WithRPCResult) change the WSDL and how
// values are written; the literal styles write the same values in
// core/soapenc's Literal form.
//
// Accessors are written unqualified unless WithQualified, which writes and
// requires them qualified (elementFormDefault="qualified": the wrapper's
// children in the service namespace, struct fields in the type namespace,
// WithTypeNamespace), exactly named and in order. Without it, reading is
// lenient in every style, as real clients require: accessors
// qualified or not, with or without xsi:type, arrays as SOAP arrays,
// wrappers of items or repeated elements, values behind href/id (1.1) or
// ref/id (1.2) multi-refs, and no encodingStyle at all (zeep). Arguments
// whose names do not match the signature but whose count does are bound by
// position (SOAP 1.1 §7.1) when their values fit the parameter types.
//
// # Contracts
//
// WithContract binds a Service or a Client to a port of a partner's WSDL
// (a *wsdl.Contract): core/xsd's codec then writes and reads every message
// exactly as the contract says, and refuses what does not fit it (a
// Service with rpc:BadArguments naming it). Register checks that a
// function's Go types fit the contract's operation, as the codec maps
// them (xml tags for elements and attributes, slices for repeated
// elements, pointers or xsd.Nillable for optional and nillable ones), and
// panics naming the mismatch; a bound Client checks at the first call. A
// bound Service's WSDL is the contract's own document at the served
// address. DetailFault answers a fault whose detail is a Go value: the
// operation's declared fault when bound.
//
// # Faults
//
//   - no operation of that name in the service namespace: Sender (1.1
//     Client) with the subcode rpc:ProcedureNotPresent;
//   - a missing, surplus, repeated or unparsable argument: Sender with
//     rpc:BadArguments;
//   - an encodingStyle other than the SOAP encoding (either version) or
//     "none", on the Envelope, the Body, the operation element or inside
//     it: DataEncodingUnknown (1.1 Client);
//   - a reference to a missing id, or an id carried twice: Sender with
//     enc:MissingID or enc:DuplicateID;
//   - the function's *core.Fault goes out as it is, detail included; any
//     other error becomes a Receiver (Server) fault that does not reveal its
//     text (core.FaultOf).
//
// SOAP 1.1 has no subcodes: core writes the subcode as the faultcode, a
// qualified name (rpc:BadArguments, WS-I Basic Profile R1004), and reads it
// back as Sender with that subcode.
//
// WithLogger logs every refusal and every error a function returns (with
// its text, which stays on the server).
//
// # Clients
//
// A Client calls operations over any core.RoundTripper:
//
//	c := rpc.NewClient(transport, "urn:calc", rpc.WithStyle(rpc.RPCLiteral), rpc.WithVersion(core.V12))
//	resp, err := rpc.Call[AddResp](ctx, c, "add", AddReq{A: 1, B: 2})
//
// A fault reply is returned as the *core.Fault.
package rpc
