package interop_test

import (
	"fmt"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/internal/interop"
)

// Every peer client prints what it read in one text form; ParseValues
// reads it, one Values per call.
func ExampleParseValues() {
	out := "result=\"42\"\n--\nreturn.name=\"Ada\"\nreturn.note=nil\n--\nfault.code=\"SOAP-ENV:Client\"\n"
	calls, err := interop.ParseValues([]byte(out))
	if err != nil {
		panic(err)
	}
	fmt.Println(calls[0]["result"])
	fmt.Println(calls[1]["return.note"] == interop.Nil, calls[1].Sub("return")["name"])
	fmt.Println(calls[2].Fault(), calls[2].Normalized()["fault.code"])
	// Output:
	// 42
	// true Ada
	// true Client
}

// The cases of a contract are the calls a test makes, each with the values
// a correct server answers.
func ExampleCases() {
	for _, cs := range interop.Cases(interop.Bare, core.V12) {
		fmt.Printf("%-16s %s(%d arguments) -> %d values\n", cs.Name, cs.Op, len(cs.Args), len(cs.Want))
	}
	// Output:
	// echoString       echoString(1 arguments) -> 1 values
	// echoString/empty echoString(1 arguments) -> 1 values
	// add              add(2 arguments) -> 1 values
	// add/negative     add(2 arguments) -> 1 values
	// add/edges        add(2 arguments) -> 1 values
	// echoStruct       echoStruct(9 arguments) -> 9 values
	// echoStruct/plain echoStruct(6 arguments) -> 6 values
	// fail             fail(1 arguments) -> 4 values
}
