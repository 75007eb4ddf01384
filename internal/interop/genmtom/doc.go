// Package genmtom holds what soapwire gen makes of the contract of binary
// documents (mtomdocs.wsdl: base64Binary elements marked with
// xmime:expectedContentTypes, held as core.Binary, and a port whose
// WS-Policy requires MTOM beside one without a policy), for the tests that
// send them between generated clients and servers and real peers.
// The package is generated (go generate ./internal/interop/genmtom); gen's
// TestCommittedUpToDate checks it is what the generator makes today.
package genmtom

//go:generate go run ../../../cmd/soapwire gen -o mtomdocs ../testdata/contracts/mtomdocs.wsdl
