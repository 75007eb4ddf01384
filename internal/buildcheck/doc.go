// Package buildcheck builds small Go programs with the go command, for tests
// that show what the compiler refuses: an option given to a constructor
// that does not take it, say. A package keeps such programs in a testdata
// folder (which `go build ./...` and `go vet ./...` skip) and has a test
// build them: Refused for the program that must not compile, Compiles for
// one that must (which proves the harness builds good code).
//
// It is for tests only (the test imports of every row of the import table
// may add it).
package buildcheck
