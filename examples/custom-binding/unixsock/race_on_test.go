//go:build race

package unixsock_test

// largeBody is the coretest Features.MaxBodyBytes. The race detector makes
// core's reader some twenty times slower, and a large body crosses it four
// times here (stored, delivered, compared), so under -race the suites send
// 256 KiB instead of 1 MiB: still many times every buffer on the way.
const largeBody = 256 << 10
