// Package interop is soapwire's contract interop harness: hand-written WSDL
// contracts and the real third-party SOAP peers that judge what soapwire
// makes of them, driven from Go tests. It is test support: nothing outside
// tests imports it.
//
// # Contracts
//
// A Contract is a calculator WSDL in testdata/contracts with echoString,
// add, echoStruct (a Person with a nested Address, a list, an optional, a
// nillable element and attributes) and fail (a declared fault whose detail
// is CalcFault{code, message}): Qualified is document/literal wrapped with
// elementFormDefault="qualified", Bare the same in bare style, Encoded
// rpc/encoded with SOAP-ENC arrays. Headers (not in Contracts()) has
// soap:header parts: a Session block in, a Trace block out; a Call's
// Headers are its header blocks, a reply's print at header.ELEMENT....
// Cases gives each contract's calls with the values every correct server
// answers.
//
// # Peers
//
// Servers run on loopback for the test's duration: GSOAPServer (gSOAP
// generated from the contract, both SOAP versions at one URL; Strict makes
// it refuse what it does not expect), SpyneServer (spyne's own model of
// Qualified or Bare, one URL and WSDL per version, validating what it
// reads) and NodeSoapServer (node-soap's soap.listen given the contract's
// WSDL, one URL per version; it cannot serve Encoded right: it qualifies
// rpc accessors). Clients load a WSDL and call operations: GSOAPClient
// (generated from the contract), Zeep, Suds (SOAP 1.1 only), NodeSoap.
// Every client prints what it read in one text form, read back as Values:
// a line PATH=JSON-STRING per value, PATH=nil for xsi:nil, no line for an
// absent element. Record puts a proxy between a client and a server to see
// the wire; Post sends a raw envelope. ZeepOperations lists what zeep
// derives from any WSDL (offline, with a catalog: WithCatalog), the
// reference a WSDL reader's signatures are compared with.
//
// gSOAP is the strict judge of element forms: it matches elements by
// namespace and treats one in the wrong namespace as absent, answering
// HTTP 200 with zeros and empty strings; spyne refuses the wrong form with
// a fault; zeep, suds and node-soap accept both forms
// (TestGSOAPJudgesElementForm, TestGSOAPClientJudgesElementForm,
// TestSpyneJudgesElementForm). A test that passes against the lenient
// clients alone proves nothing about element forms.
//
// # Using it
//
// A test of soapwire's contract-driven client calls a peer server and
// compares with the case:
//
//	srv := interop.GSOAPServer(t, interop.Qualified)
//	for _, cs := range interop.Cases(interop.Qualified, core.V11) {
//		got := callWithSoapwire(t, srv.Endpoint(cs.Version), interop.Qualified.Path(), cs.Call)
//		assert.Equal(t, cs.Want, got.Normalized(), cs.Name)
//	}
//
// A test of a soapwire server bound to a contract lets every client call
// it:
//
//	wsdl := interop.ContractAt(t, interop.Qualified, myServerURL)
//	for _, client := range []interop.Client{interop.GSOAPClient(t, interop.Qualified),
//		interop.Zeep(t, wsdl), interop.Suds(t, wsdl), interop.NodeSoap(t, wsdl)} {
//		cases := interop.Cases(interop.Qualified, core.V11)
//		for i, got := range client.Call(t, "", interop.Calls(cases)...) {
//			assert.Equal(t, cases[i].Want, got.Normalized(), client.Name()+" "+cases[i].Name)
//		}
//	}
//
// Such tests may live in this package (its tests may import anything in
// the module) or in any package's tests (the import table lets every test
// import internal/interop).
//
// # Costs and missing peers
//
// gSOAP programs are built lazily, when a test first asks for one, at most
// once per process, into a cache folder keyed by a hash of their inputs
// and of the tools (CacheEnv): the first build takes 8 to 15 seconds per
// contract on a 2-core machine (8.5, 10.3 and 9.1 s one after another
// under a load of 10; 15 s while another builds), a cached one nothing,
// and a gSOAP call a few milliseconds. Each client run starts its
// interpreter (zeep about a second, node-soap about half, suds less); a
// client's Call makes all its calls in one run. This package's tests take
// about a minute with the peers built (64 s under a load of 7 on 2 cores);
// packages that do not use the harness build nothing. A peer that is not
// installed skips the test, or fails it when SOAPWIRE_REQUIRE_PEERS=1, as
// CI runs (coretest.RequirePeer). With -short this package's own peer
// tests skip unless SOAPWIRE_REQUIRE_PEERS=1.
package interop
