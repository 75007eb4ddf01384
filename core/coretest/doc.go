// Package coretest holds the conformance suites every soapwire binding
// passes, and Pipe, an in-memory binding that passes them all.
//
// # Suites
//
// Like watermill's TestPubSub, a suite is a function a binding's own test
// calls with the Features it has and a constructor:
//
//	func TestConformance(t *testing.T) {
//		f := coretest.Features{ExactlyOnce: true, Redelivery: true}
//		coretest.TestSendReceive(t, f, newPair)
//		coretest.TestServe(t, f, newPair)
//	}
//
//	func newPair(t *testing.T) (core.Sender, core.Receiver, string) {
//		// start what the binding needs on loopback, register its
//		// cleanup with t.Cleanup, and return a Sender, a Receiver and a
//		// fresh address the Receiver reads.
//	}
//
// There is one suite per seam: TestSendReceive for core.Sender with
// core.Receiver and core.Delivery, TestRoundTripper for core.RoundTripper
// (the suite supplies the server's core.Handler), and TestServe for a
// Receiver and Sender driven by core.Serve. A binding that carries MIME
// packages opts into TestAttachmentsSendReceive and TestAttachmentsRoundTrip
// (MTOM, SwA and inline Binary values, parts compared intact). Each runs named subtests
// (Fields/SOAP12, AckNack/NackAck, Deadline/Cancel, …) so a failure says
// what broke; a subtest whose feature the binding lacks is skipped with the
// Features field it needs. The suites import only core, the standard
// library and testify, and assert no timings: Features.Timeout only turns a
// hang into a failure.
//
// # Pipe
//
// Pipe is an in-memory queue of serialized envelopes: a core.Sender,
// a core.Receiver and, with WithHandler, a core.RoundTripper. Every message
// crosses a real Message.WriteTo and core.ReadMessage (core.ReadPackage
// for a MIME package), so what works over a Pipe works over a wire. Use it in examples and in tests of code above the
// bindings (handlers, Nodes, Serve loops), where starting a server would be
// noise.
//
// Package coretest is imported only from tests and examples.
package coretest
