// A program that compiles.
package main

import "fmt"

func main() { fmt.Println(len("good")) }
