//go:build race

package main_test

// raceEnabled: the tests were built with -race, and so is the binary.
const raceEnabled = true
