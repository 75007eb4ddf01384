package interop

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/soapwire/soapwire/core"
)

// Nil is the value Values holds for an element a peer read as xsi:nil. It
// cannot be the text of an element: NUL is not an XML character.
const Nil = "\x00nil"

// Args are the arguments of a call, by path: "s", "person.name",
// "person.address.city", "person.tags.0" (a list's items by index).
// A path is below the operation's wrapper for wrapped and rpc operations and
// starts with the part's element for bare ones ("Traveller.name");
// attributes are named like child elements ("person.id"). A value is a
// string, a number or a bool, written as its XML text; nil sends xsi:nil.
type Args map[string]any

// Values are what a peer read from a reply, by the paths of Args ("return",
// "return.address.city", "Returned.tags.1"), each as its XML text or Nil;
// an element the reply did not have has no entry. A reply's header blocks
// are at header.ELEMENT.CHILD ("header.Trace.session"). A reply that is a SOAP
// fault gives fault.code, fault.subcode (SOAP 1.2, when there is one),
// fault.string and fault.detail.ELEMENT.CHILD...; a call that failed
// otherwise (transport, parse) gives error.
type Values map[string]string

// Fault reports whether the reply was a SOAP fault.
func (v Values) Fault() bool { _, ok := v["fault.code"]; return ok }

// Err returns the error a call met that was not a fault, or "".
func (v Values) Err() string { return v["error"] }

// Sub returns the values below prefix, with "prefix." removed from their
// paths: Sub("return") of a wrapped reply and Sub("Returned") of a bare one
// compare alike.
func (v Values) Sub(prefix string) Values {
	out := Values{}
	for k, x := range v {
		if rest, ok := strings.CutPrefix(k, prefix+"."); ok {
			out[rest] = x
		}
	}
	return out
}

// String returns the values in the peers' text form, sorted by path.
func (v Values) String() string {
	keys := make([]string, 0, len(v))
	for k := range v {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		if v[k] == Nil {
			fmt.Fprintf(&b, "%s=nil\n", k)
			continue
		}
		q, _ := json.Marshal(v[k])
		fmt.Fprintf(&b, "%s=%s\n", k, q)
	}
	return b.String()
}

// Call is one operation a peer client calls.
type Call struct {
	Op      string
	Args    Args
	Version core.Version // the port's SOAP version; zero is SOAP 1.1
	// Headers are the request's header blocks (soap:header parts), by
	// path ELEMENT.CHILD ("Session.token"); nil for none.
	Headers Args
}

// Client is a peer client built from or loading a WSDL.
type Client interface {
	// Name names the peer ("gSOAP", "zeep", "suds", "node-soap").
	Name() string
	// Call calls each operation in turn through the WSDL's port of the
	// call's version, at endpoint (when "", the port's address in the
	// WSDL), and returns the values of each reply. A peer that cannot run,
	// or does not know an operation or argument, fails t.
	Call(t testing.TB, endpoint string, calls ...Call) []Values
}

// ParseValues reads the peers' text form: lines PATH=JSON-STRING or
// PATH=nil, the calls of one run separated by a line "--".
func ParseValues(out []byte) ([]Values, error) {
	all := []Values{{}}
	s := bufio.NewScanner(bytes.NewReader(out))
	s.Buffer(nil, 16<<20)
	for n := 1; s.Scan(); n++ {
		line := s.Text()
		if line == "--" {
			all = append(all, Values{})
			continue
		}
		path, val, ok := strings.Cut(line, "=")
		if !ok || path == "" {
			return nil, fmt.Errorf("line %d: %q is not PATH=VALUE", n, line)
		}
		cur := all[len(all)-1]
		if _, dup := cur[path]; dup {
			return nil, fmt.Errorf("line %d: %s printed twice", n, path)
		}
		if val == "nil" {
			cur[path] = Nil
			continue
		}
		var str string
		if err := json.Unmarshal([]byte(val), &str); err != nil {
			return nil, fmt.Errorf("line %d: %s: %v", n, path, err)
		}
		cur[path] = str
	}
	if err := s.Err(); err != nil {
		return nil, err
	}
	return all, nil
}

// argText returns an argument's XML text, or nil for xsi:nil.
func argText(v any) (text string, isNil bool) {
	switch x := v.(type) {
	case nil:
		return "", true
	case string:
		return x, false
	case bool:
		if x {
			return "true", false
		}
		return "false", false
	}
	return fmt.Sprint(v), false
}

// sortedPaths returns the paths of args in order.
func sortedPaths(args Args) []string {
	keys := make([]string, 0, len(args))
	for k := range args {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
