// Package internal holds what soapwire gen makes of the generator's test
// contract (testdata/kitchen.wsdl: one of every construct it maps), for
// the tests that put the generated codecs against core/xsd's reflective
// codec. Regenerate with go generate ./gen/internal; gen's
// TestCommittedUpToDate checks it is what the generator makes today.
package internal

//go:generate go run ../../cmd/soapwire gen -o kitchen ../testdata/kitchen.wsdl
