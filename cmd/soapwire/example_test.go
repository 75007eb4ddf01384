package main

import (
	"context"
	"fmt"
	"os"
	"strings"
)

// Example_inspect runs "soapwire inspect --process" on an envelope whose
// mandatory header block nobody understands: the report, then the fault a
// soapwire node would raise, and exit code 1.
func Example_inspect() {
	const env = `<env:Envelope xmlns:env="http://www.w3.org/2003/05/soap-envelope" xmlns:wsa="http://www.w3.org/2005/08/addressing">
  <env:Header>
    <wsa:Action>urn:example:po:submit</wsa:Action>
    <wsa:MessageID>urn:example:po:42</wsa:MessageID>
    <a:Token xmlns:a="urn:example:auth" env:mustUnderstand="true">s3cret</a:Token>
  </env:Header>
  <env:Body><po:order xmlns:po="urn:example:po"><po:item>bolt</po:item></po:order></env:Body>
</env:Envelope>`
	code := run(context.Background(), []string{"inspect", "--process", "-"}, strings.NewReader(env), os.Stdout, os.Stdout)
	fmt.Println("exit code:", code)
	// Output:
	// version: 1.2
	// action: urn:example:po:submit
	// message-id: urn:example:po:42
	// header: {urn:example:auth}Token role=(ultimate receiver) mustUnderstand=true relay=false
	// body: {urn:example:po}order
	// fault: MustUnderstand
	// reason: mandatory header block not understood: {urn:example:auth}Token
	// not-understood: {urn:example:auth}Token
	// soapwire inspect: stdin: the envelope would be refused: MustUnderstand fault: mandatory header block not understood: {urn:example:auth}Token
	// exit code: 1
}

// Example_usageError: a usage error says what is wrong and how to get
// help, with exit code 2.
func Example_usageError() {
	code := run(context.Background(), []string{"send", "order.xml"}, strings.NewReader(""), os.Stdout, os.Stdout)
	fmt.Println("exit code:", code)
	// Output:
	// soapwire send: --to is required
	// Run 'soapwire send --help' for usage.
	// exit code: 2
}
