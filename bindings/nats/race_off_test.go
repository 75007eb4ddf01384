//go:build !race

package nats_test

// raceEnabled: the tests run under the race detector.
const raceEnabled = false
