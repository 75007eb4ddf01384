// A program the compiler refuses: an int where a string goes.
package main

import "strings"

func main() { _ = strings.ToUpper(42) }
