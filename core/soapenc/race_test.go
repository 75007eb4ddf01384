//go:build race

package soapenc_test

// raceEnabled: the race detector slows code ~10×, so wall-clock bounds
// are not checked under it.
const raceEnabled = true
