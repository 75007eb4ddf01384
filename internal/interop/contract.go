package interop

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/soapwire/soapwire/core"
)

// Contract is one of the harness's hand-written WSDL 1.1 contracts
// (testdata/contracts/NAME.wsdl), each a calculator with the operations
// echoString, add, echoStruct and fail (a declared fault whose detail is
// CalcFault{code, message}).
type Contract string

// The contracts.
const (
	// Qualified is document/literal wrapped with elementFormDefault="qualified",
	// SOAP 1.1 and 1.2 ports of one service. Person has a nested Address,
	// an unbounded tags list, an optional nickname (minOccurs="0"), a
	// required nillable note and unqualified attributes (@id, @country).
	Qualified Contract = "calc-qualified"
	// Bare has the same operations and types in document/literal bare style:
	// one part per message, whose element is not named after the operation
	// (EchoText, Operands, Traveller, FailCode in; EchoedText, Sum,
	// Returned, FailAck out). SOAP 1.1 and 1.2 ports.
	Bare Contract = "calc-bare"
	// Encoded is rpc/encoded, SOAP 1.1 only, with SOAP-ENC arrays
	// (ArrayOfString in Person.tags, ArrayOfInt for sumArray's values).
	Encoded Contract = "calc-encoded"
	// Headers is document/literal wrapped, qualified, SOAP 1.1 and 1.2
	// ports, with soap:header parts: echoString, add and fail take an
	// optional Session{token} header block, echoString answers a
	// Trace{session, operation} block (none when the request had no
	// Session). It is not in Contracts(): its calls carry header blocks
	// (Call.Headers), which the tests of the other contracts do not pass.
	Headers Contract = "calc-headers"
)

// Contracts lists the contracts without header parts: Qualified, Bare,
// Encoded (Headers is apart).
func Contracts() []Contract { return []Contract{Qualified, Bare, Encoded} }

// Path returns the absolute path of the contract's WSDL file.
func (c Contract) Path() string {
	return filepath.Join(Dir(), "testdata", "contracts", string(c)+".wsdl")
}

// Namespace returns the contract's target namespace, which is also its
// schema's and (for Encoded) its rpc wrappers' namespace.
func (c Contract) Namespace() string {
	if c == Qualified {
		return "urn:soapwire:interop:calc"
	}
	return "urn:soapwire:interop:" + string(c)
}

// Versions returns the SOAP versions the contract has a port for.
func (c Contract) Versions() []core.Version {
	if c == Encoded {
		return []core.Version{core.V11}
	}
	return []core.Version{core.V11, core.V12}
}

// Action returns the soapAction the contract gives op: its namespace, "#"
// and the operation's name.
func (c Contract) Action(op string) string { return c.Namespace() + "#" + op }

// Dir returns the folder of this package's source, where its testdata
// lives: the harness runs from the module's source tree, as go test does.
// It is the folder this file was compiled from, or (built with -trimpath)
// internal/interop below the go.mod found from the working directory up.
func Dir() string {
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		return filepath.Dir(file)
	}
	dir, err := os.Getwd()
	for err == nil {
		if _, statErr := os.Stat(filepath.Join(dir, "go.mod")); statErr == nil {
			return filepath.Join(dir, "internal", "interop")
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return filepath.Join("internal", "interop")
}

// portAddress matches the address of a port in the contracts.
var portAddress = regexp.MustCompile(`(<soap(?:12)?:address\s+location=")[^"]*(")`)

// ContractAt writes contract c with every port's address set to address
// into a temporary folder of the test, and returns the file's path: the
// WSDL of a server of c at that address.
func ContractAt(t testing.TB, c Contract, address string) string {
	t.Helper()
	b, err := os.ReadFile(c.Path())
	if err != nil {
		t.Fatalf("interop: %v", err)
	}
	var attr strings.Builder
	if err := xml.EscapeText(&attr, []byte(address)); err != nil {
		t.Fatalf("interop: %v", err)
	}
	b = portAddress.ReplaceAll(b, []byte("${1}"+strings.ReplaceAll(attr.String(), "$", "$$")+"${2}"))
	path := filepath.Join(t.TempDir(), string(c)+".wsdl")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatalf("interop: %v", err)
	}
	return path
}
