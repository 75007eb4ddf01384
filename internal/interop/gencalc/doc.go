// Package gencalc holds what soapwire gen makes of the interop harness's
// contracts: qualified (calc-qualified.wsdl, document/literal wrapped),
// bare (calc-bare.wsdl), encoded (calc-encoded.wsdl, rpc/encoded) and
// headers (calc-headers.wsdl, soap:header parts), for the tests that put
// generated clients and servers against the real peers.
// The packages are generated (go generate ./internal/interop/gencalc); gen's
// TestCommittedUpToDate checks they are what the generator makes today.
package gencalc

//go:generate go run ../../../cmd/soapwire gen -o qualified ../testdata/contracts/calc-qualified.wsdl
//go:generate go run ../../../cmd/soapwire gen -o bare ../testdata/contracts/calc-bare.wsdl
//go:generate go run ../../../cmd/soapwire gen -o encoded ../testdata/contracts/calc-encoded.wsdl
//go:generate go run ../../../cmd/soapwire gen -o headers ../testdata/contracts/calc-headers.wsdl
