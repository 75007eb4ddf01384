package interop

import (
	"maps"
	"strings"

	"github.com/soapwire/soapwire/core"
)

// Case is a call of a contract's operation and the values every correct
// server of the contract answers it with, as a client prints them (after
// Normalized).
type Case struct {
	Name string
	Call
	Want Values
}

// The values the cases send.
const (
	// Text has characters XML must escape and some outside ASCII.
	Text = `héllo <&> "wörld" ünïcode €`
	// Token is the Session token the Headers cases send: markup and
	// non-ASCII characters, as Text.
	Token = `tök <&> "1"`
	// MaxInt and MinInt are the edges of xsd:int, which add's operands are.
	MaxInt = 2147483647
	MinInt = -2147483648
)

// person is the full Person of the cases (an attribute on Person and on
// Address, two tags, no nickname, a nil note), by path below its element.
var person = Args{
	"name": "Ada Lovelace", "age": 36, "id": 1815,
	"address.street": "12 St James's Square", "address.city": "London", "address.country": "GB",
	"tags.0": "mathematics", "tags.1": "poetry",
	"note": nil,
}

// plainPerson has no attributes and no tags, a nickname and a note.
var plainPerson = Args{
	"name": "Grace", "age": 85,
	"address.street": "", "address.city": "Arlington",
	"nickname": "Amazing Grace", "note": "COBOL",
}

// encodedPerson is the Person of the Encoded contract (no attributes,
// nickname or note; tags a SOAP-ENC array).
var encodedPerson = Args{
	"name": "Ada Lovelace", "age": 36,
	"address.street": "12 St James's Square", "address.city": "London",
	"tags.0": "mathematics", "tags.1": "poetry",
}

// under returns args with each path put below prefix.
func under(prefix string, args Args) Args {
	out := Args{}
	for k, v := range args {
		out[prefix+"."+k] = v
	}
	return out
}

// echoed returns the values of args below prefix, as read back.
func echoed(prefix string, args Args) Values {
	out := Values{}
	for k, v := range args {
		text, isNil := argText(v)
		if isNil {
			text = Nil
		}
		out[prefix+"."+k] = text
	}
	return out
}

// Cases returns the calls that exercise contract c in SOAP version v, each
// with the values its reply holds: echoString of Text and of "", add (of
// positive operands, negative ones, and MaxInt and MinInt), echoStruct of
// a full and of a plain Person (Encoded: sumArray and one Person), and
// fail, whose fault has the code Client (1.1) or Sender (1.2), the string
// "calc refused: E42" and the detail CalcFault{code: E42, message:
// "failure E42 as asked"} (Encoded: the detail's part accessor "fault"
// holds them, as gSOAP writes an rpc/encoded fault). Headers has its own:
// echoString with a Session header block (answered with a Trace block)
// and without one (answered with none), add and fail with a Session.
func Cases(c Contract, v core.Version) []Case {
	code := "Client"
	if v == core.V12 {
		code = "Sender"
	}
	fault := func(prefix string) Values {
		return Values{"fault.code": code, "fault.string": "calc refused: E42",
			prefix + ".code": "E42", prefix + ".message": "failure E42 as asked"}
	}
	call := func(op string, args Args) Call { return Call{Op: op, Args: args, Version: v} }
	session := func(op, token string, args Args) Call {
		return Call{Op: op, Args: args, Version: v, Headers: Args{"Session.token": token}}
	}
	switch c {
	case Headers:
		return []Case{
			{"echoString", session("echoString", Token, Args{"s": Text}),
				Values{"return": Text, "header.Trace.session": Token, "header.Trace.operation": "echoString"}},
			{"echoString/no session", call("echoString", Args{"s": "x"}), Values{"return": "x"}},
			{"add", session("add", "t-2", Args{"a": -40, "b": 2}), Values{"result": "-38"}},
			{"fail", session("fail", "t-3", Args{"code": "E42"}), fault("fault.detail.CalcFault")},
		}
	case Bare:
		return []Case{
			{"echoString", call("echoString", Args{"EchoText": Text}), Values{"EchoedText": Text}},
			{"echoString/empty", call("echoString", Args{"EchoText": ""}), Values{"EchoedText": ""}},
			{"add", call("add", Args{"Operands.a": 40, "Operands.b": 2}), Values{"Sum": "42"}},
			{"add/negative", call("add", Args{"Operands.a": -40, "Operands.b": -2}), Values{"Sum": "-42"}},
			{"add/edges", call("add", Args{"Operands.a": MaxInt, "Operands.b": MinInt}), Values{"Sum": "-1"}},
			{"echoStruct", call("echoStruct", under("Traveller", person)), echoed("Returned", person)},
			{"echoStruct/plain", call("echoStruct", under("Traveller", plainPerson)), echoed("Returned", plainPerson)},
			{"fail", call("fail", Args{"FailCode": "E42"}), fault("fault.detail.CalcFault")},
		}
	case Encoded:
		return []Case{
			{"echoString", call("echoString", Args{"s": Text}), Values{"return": Text}},
			{"echoString/empty", call("echoString", Args{"s": ""}), Values{"return": ""}},
			{"add", call("add", Args{"a": 40, "b": 2}), Values{"result": "42"}},
			{"add/negative", call("add", Args{"a": -40, "b": -2}), Values{"result": "-42"}},
			{"add/edges", call("add", Args{"a": MaxInt, "b": MinInt}), Values{"result": "-1"}},
			{"sumArray", call("sumArray", Args{"values.0": 30, "values.1": 10, "values.2": 2}), Values{"result": "42"}},
			{"echoStruct", call("echoStruct", under("person", encodedPerson)), echoed("return", encodedPerson)},
			{"fail", call("fail", Args{"code": "E42"}), fault("fault.detail.CalcFault.fault")},
		}
	}
	return []Case{
		{"echoString", call("echoString", Args{"s": Text}), Values{"return": Text}},
		{"echoString/empty", call("echoString", Args{"s": ""}), Values{"return": ""}},
		{"add", call("add", Args{"a": 40, "b": 2}), Values{"result": "42"}},
		{"add/negative", call("add", Args{"a": -40, "b": -2}), Values{"result": "-42"}},
		{"add/edges", call("add", Args{"a": MaxInt, "b": MinInt}), Values{"result": "-1"}},
		{"echoStruct", call("echoStruct", under("person", person)), echoed("return", person)},
		{"echoStruct/plain", call("echoStruct", under("person", plainPerson)), echoed("return", plainPerson)},
		{"fail", call("fail", Args{"code": "E42"}), fault("fault.detail.CalcFault")},
	}
}

// Calls returns the calls of cases.
func Calls(cases []Case) []Call {
	out := make([]Call, len(cases))
	for i, c := range cases {
		out[i] = c.Call
	}
	return out
}

// Normalized returns a copy of v whose fault code and subcode are their
// local names ("SOAP-ENV:Client" and "soap:Client" are both "Client"): the
// prefix is the server's choice, and clients print it as they got it.
func (v Values) Normalized() Values {
	out := maps.Clone(v)
	for _, k := range []string{"fault.code", "fault.subcode"} {
		if code, ok := out[k]; ok {
			if i := strings.LastIndexAny(code, ":}"); i >= 0 {
				out[k] = code[i+1:]
			}
		}
	}
	return out
}

// WithoutNil returns a copy of v without its Nil values, for a peer that
// reads xsi:nil as absent (node-soap drops a nil simple-typed element).
func (v Values) WithoutNil() Values {
	out := Values{}
	for k, x := range v {
		if x != Nil {
			out[k] = x
		}
	}
	return out
}
