// Package internal holds what soapwire gen makes of the generator's test
// contracts: testdata/kitchen.wsdl (one of every construct it maps), for
// the tests that put the generated codecs against core/xsd's reflective
// codec, and testdata/events.wsdl (a one-way operation, two operations
// taking the same element), for the tests of generated clients and
// servers; testdata/swa.wsdl (SOAP with Attachments: MIME parts) goes into
// internal/interop/genswa, whose tests run it over bindings/http.
// Regenerate with go generate ./gen/internal; gen's
// TestCommittedUpToDate checks it is what the generator makes today.
package internal

//go:generate go run ../../cmd/soapwire gen -o kitchen ../testdata/kitchen.wsdl
//go:generate go run ../../cmd/soapwire gen -o events ../testdata/events.wsdl
//go:generate go run ../../cmd/soapwire gen -o ../../internal/interop/genswa ../testdata/swa.wsdl
