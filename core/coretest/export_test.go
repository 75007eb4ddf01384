package coretest

// PeerSummary exposes peerSummary to the black-box tests.
var PeerSummary = peerSummary
