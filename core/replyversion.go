package core

// CheckReplyVersion checks that reply, received as the answer to a request
// sent in version sent, is in that version: a reply in the other version is
// not an answer to the request (its body was written against the other
// version's rules), and a client that reads it as one trusts its server
// too much. It returns nil when the versions match, when reply is nil, when
// sent is 0 (unknown), and when reply is a VersionMismatch fault: that is
// the peer saying it does not speak sent's version, which a node answers in
// its own (SOAP 1.1 §4.4.1; SOAP 1.2 Part 1 §5.4.7 and Appendix A), the
// answer to hand on to the caller. Otherwise the error is a VersionMismatch
// *Fault in sent's version (not Remote: this side found it) whose reason
// names both versions.
//
// Transports call it on every reply (bindings/http and bindings/nats do,
// and coretest's Pipe); core/rpc's Client, core/wsdl's Client and Stub and
// document.Correlator call it too, for a RoundTripper that does not.
func CheckReplyVersion(sent Version, reply *Message) error {
	if reply == nil || sent == 0 {
		return nil
	}
	got := reply.Version()
	if got == sent {
		return nil
	}
	if f := reply.Fault(); f != nil && f.Code == CodeVersionMismatch {
		return nil
	}
	return &Fault{Code: CodeVersionMismatch, Version: sent,
		Reason: "the reply is a SOAP " + got.String() + " envelope, the request was SOAP " + sent.String()}
}
