// Package suggest finds the name a mistyped one most likely meant, for the
// "did you mean" of error messages (an operation, an argument, an element
// of a contract).
package suggest
