//go:build !race

package unixsock_test

// largeBody is the coretest Features.MaxBodyBytes: 0, the suites' 1 MiB.
const largeBody = 0
