package interop_test

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/wsdl"
	"github.com/soapwire/soapwire/core/xsd"
	"github.com/soapwire/soapwire/internal/interop"
	"github.com/soapwire/soapwire/internal/interop/gencalc/bare"
	"github.com/soapwire/soapwire/internal/interop/gencalc/encoded"
	"github.com/soapwire/soapwire/internal/interop/gencalc/headers"
	"github.com/soapwire/soapwire/internal/interop/gencalc/qualified"
)

// The harness's cases through the generated packages of its contracts
// (internal/interop/gencalc): a case's Args become the generated request
// type, the generated reply (or typed fault) becomes the harness's Values,
// so a generated client is judged exactly as the peers' clients are. The
// servers' implementations echo as the peers' servers do, and answer fail
// with the contract's typed fault.

// args reads a case's arguments.
type args interop.Args

func (a args) str(k string) string {
	v, ok := a[k]
	if !ok || v == nil {
		return ""
	}
	if s, ok := v.(string); ok {
		return s
	}
	return fmt.Sprint(v)
}

func (a args) has(k string) bool { _, ok := a[k]; return ok }

func (a args) num(k string) int32 {
	n, err := strconv.ParseInt(a.str(k), 10, 32)
	if err != nil {
		panic(fmt.Sprintf("case argument %s=%v: %v", k, a[k], err))
	}
	return int32(n)
}

func (a args) optStr(k string) *string {
	if !a.has(k) {
		return nil
	}
	s := a.str(k)
	return &s
}

func (a args) optNum(k string) *int32 {
	if !a.has(k) {
		return nil
	}
	n := a.num(k)
	return &n
}

func (a args) nillable(k string) xsd.Nillable[string] {
	if v, ok := a[k]; ok && v == nil {
		return xsd.NilValue[string]()
	}
	return xsd.Some(a.str(k))
}

// list returns the items k.0, k.1, ... in order.
func (a args) list(k string) []string {
	var idx []int
	for p := range a {
		if rest, ok := strings.CutPrefix(p, k+"."); ok {
			if i, err := strconv.Atoi(rest); err == nil {
				idx = append(idx, i)
			}
		}
	}
	sort.Ints(idx)
	var out []string
	for _, i := range idx {
		out = append(out, a.str(k+"."+strconv.Itoa(i)))
	}
	return out
}

func (a args) nums(k string) []int32 {
	var out []int32
	for _, s := range a.list(k) {
		n, err := strconv.ParseInt(s, 10, 32)
		if err != nil {
			panic(err)
		}
		out = append(out, int32(n))
	}
	return out
}

// values collects what a generated reply holds, in the harness's form.
type values interop.Values

func (v values) put(k, s string) { v[k] = s }

func (v values) num(k string, n int32) { v[k] = strconv.FormatInt(int64(n), 10) }

func (v values) opt(k string, s *string) {
	if s != nil {
		v[k] = *s
	}
}

func (v values) optNum(k string, n *int32) {
	if n != nil {
		v.num(k, *n)
	}
}

func (v values) nillable(k string, n xsd.Nillable[string]) {
	if n.Nil {
		v[k] = interop.Nil
		return
	}
	v[k] = n.Value
}

func (v values) list(k string, items []string) {
	for i, s := range items {
		v[k+"."+strconv.Itoa(i)] = s
	}
}

// faultValues is the harness's form of a fault a generated client returned:
// its code, reason and typed detail below detail (the path the peers print
// the detail's fields at). A fault the client did not give as the
// contract's typed error is an "error" value, which no case wants.
func genFaultValues(err error, v core.Version, detail string, code, message string) interop.Values {
	var f *core.Fault
	if !errors.As(err, &f) {
		return interop.Values{"error": err.Error()}
	}
	names := map[core.Code]string{core.CodeSender: "Sender", core.CodeReceiver: "Receiver"}
	if v == core.V11 {
		names = map[core.Code]string{core.CodeSender: "Client", core.CodeReceiver: "Server"}
	}
	return interop.Values{"fault.code": names[f.Code], "fault.string": f.Reason,
		detail + ".code": code, detail + ".message": message}
}

// untyped is the harness's form of an error that is not the contract's
// typed fault.
func untyped(err error) interop.Values {
	return interop.Values{"error": fmt.Sprintf("not the contract's typed fault: %T %v", err, err)}
}

// refusal is the typed fault the servers answer fail with.
func refusal(code string) (reason, message string) {
	return "calc refused: " + code, "failure " + code + " as asked"
}

// genCaller makes a case's call with a contract's generated client of the
// case's version through rt, and returns what it read.
type genCaller func(ctx context.Context, rt core.RoundTripper, cs interop.Case) interop.Values

// genCallers are the generated clients of each contract.
var genCallers = map[interop.Contract]genCaller{
	interop.Qualified: callQualified,
	interop.Bare:      callBare,
	interop.Encoded:   callEncoded,
	interop.Headers:   callHeaders,
}

// The generated clients of the qualified contract (one per port).
type qualifiedClient interface {
	EchoString(context.Context, *qualified.EchoString, ...wsdl.CallOption) (*qualified.EchoStringResponse, error)
	Add(context.Context, *qualified.Add, ...wsdl.CallOption) (*qualified.AddResponse, error)
	EchoStruct(context.Context, *qualified.EchoStruct, ...wsdl.CallOption) (*qualified.EchoStructResponse, error)
	Fail(context.Context, *qualified.Fail, ...wsdl.CallOption) (*qualified.FailResponse, error)
}

func qualifiedPerson(a args, p string) qualified.Person {
	out := qualified.Person{
		Id: a.optNum(p + ".id"), Name: a.str(p + ".name"), Age: a.num(p + ".age"),
		Address:  qualified.Address{Country: a.optStr(p + ".address.country"), Street: a.str(p + ".address.street"), City: a.str(p + ".address.city")},
		Tags:     a.list(p + ".tags"),
		Nickname: a.optStr(p + ".nickname"), Note: a.nillable(p + ".note"),
	}
	return out
}

func qualifiedPersonValues(v values, p string, in qualified.Person) {
	v.optNum(p+".id", in.Id)
	v.put(p+".name", in.Name)
	v.num(p+".age", in.Age)
	v.opt(p+".address.country", in.Address.Country)
	v.put(p+".address.street", in.Address.Street)
	v.put(p+".address.city", in.Address.City)
	v.list(p+".tags", in.Tags)
	v.opt(p+".nickname", in.Nickname)
	v.nillable(p+".note", in.Note)
}

func callQualified(ctx context.Context, rt core.RoundTripper, cs interop.Case) interop.Values {
	var cl qualifiedClient = qualified.NewCalcSoap11Client(rt)
	if cs.Version == core.V12 {
		cl = qualified.NewCalcSoap12Client(rt)
	}
	a := args(cs.Args)
	out := values{}
	var err error
	switch cs.Op {
	case "echoString":
		var r *qualified.EchoStringResponse
		if r, err = cl.EchoString(ctx, &qualified.EchoString{S: a.str("s")}); err == nil {
			out.put("return", r.Return)
		}
	case "add":
		var r *qualified.AddResponse
		if r, err = cl.Add(ctx, &qualified.Add{A: a.num("a"), B: a.num("b")}); err == nil {
			out.num("result", r.Result)
		}
	case "echoStruct":
		var r *qualified.EchoStructResponse
		if r, err = cl.EchoStruct(ctx, &qualified.EchoStruct{Person: qualifiedPerson(a, "person")}); err == nil {
			qualifiedPersonValues(out, "return", r.Return)
		}
	case "fail":
		_, err = cl.Fail(ctx, &qualified.Fail{Code: a.str("code")})
		var fe *qualified.CalcFaultError
		if !errors.As(err, &fe) {
			return untyped(err)
		}
		return genFaultValues(err, cs.Version, "fault.detail.CalcFault", fe.Detail.Code, fe.Detail.Message)
	default:
		panic("no operation " + cs.Op)
	}
	if err != nil {
		return untyped(err)
	}
	return interop.Values(out)
}

// The generated clients of the bare contract.
type bareClient interface {
	EchoString(context.Context, *string, ...wsdl.CallOption) (*string, error)
	Add(context.Context, *bare.Operands, ...wsdl.CallOption) (*int32, error)
	EchoStruct(context.Context, *bare.Person, ...wsdl.CallOption) (*bare.Person, error)
	Fail(context.Context, *string, ...wsdl.CallOption) (*string, error)
}

func barePerson(a args, p string) bare.Person {
	return bare.Person{
		Id: a.optNum(p + ".id"), Name: a.str(p + ".name"), Age: a.num(p + ".age"),
		Address:  bare.Address{Country: a.optStr(p + ".address.country"), Street: a.str(p + ".address.street"), City: a.str(p + ".address.city")},
		Tags:     a.list(p + ".tags"),
		Nickname: a.optStr(p + ".nickname"), Note: a.nillable(p + ".note"),
	}
}

func barePersonValues(v values, p string, in bare.Person) {
	v.optNum(p+".id", in.Id)
	v.put(p+".name", in.Name)
	v.num(p+".age", in.Age)
	v.opt(p+".address.country", in.Address.Country)
	v.put(p+".address.street", in.Address.Street)
	v.put(p+".address.city", in.Address.City)
	v.list(p+".tags", in.Tags)
	v.opt(p+".nickname", in.Nickname)
	v.nillable(p+".note", in.Note)
}

func callBare(ctx context.Context, rt core.RoundTripper, cs interop.Case) interop.Values {
	var cl bareClient = bare.NewCalcBareSoap11Client(rt)
	if cs.Version == core.V12 {
		cl = bare.NewCalcBareSoap12Client(rt)
	}
	a := args(cs.Args)
	out := values{}
	var err error
	switch cs.Op {
	case "echoString":
		s := a.str("EchoText")
		var r *string
		if r, err = cl.EchoString(ctx, &s); err == nil {
			out.put("EchoedText", *r)
		}
	case "add":
		var r *int32
		if r, err = cl.Add(ctx, &bare.Operands{A: a.num("Operands.a"), B: a.num("Operands.b")}); err == nil {
			out.num("Sum", *r)
		}
	case "echoStruct":
		p := barePerson(a, "Traveller")
		var r *bare.Person
		if r, err = cl.EchoStruct(ctx, &p); err == nil {
			barePersonValues(out, "Returned", *r)
		}
	case "fail":
		code := a.str("FailCode")
		_, err = cl.Fail(ctx, &code)
		var fe *bare.CalcFaultError
		if !errors.As(err, &fe) {
			return untyped(err)
		}
		return genFaultValues(err, cs.Version, "fault.detail.CalcFault", fe.Detail.Code, fe.Detail.Message)
	default:
		panic("no operation " + cs.Op)
	}
	if err != nil {
		return untyped(err)
	}
	return interop.Values(out)
}

func encodedPerson(a args, p string) encoded.Person {
	return encoded.Person{
		Name: a.str(p + ".name"), Age: a.num(p + ".age"),
		Address: encoded.Address{Street: a.str(p + ".address.street"), City: a.str(p + ".address.city")},
		Tags:    a.list(p + ".tags"),
	}
}

func encodedPersonValues(v values, p string, in encoded.Person) {
	v.put(p+".name", in.Name)
	v.num(p+".age", in.Age)
	v.put(p+".address.street", in.Address.Street)
	v.put(p+".address.city", in.Address.City)
	v.list(p+".tags", in.Tags)
}

func callEncoded(ctx context.Context, rt core.RoundTripper, cs interop.Case) interop.Values {
	cl := encoded.NewCalcEncodedSoap11Client(rt)
	a := args(cs.Args)
	out := values{}
	var err error
	switch cs.Op {
	case "echoString":
		var r *encoded.EchoStringResponse
		if r, err = cl.EchoString(ctx, &encoded.EchoStringRequest{S: a.str("s")}); err == nil {
			out.put("return", r.Return)
		}
	case "add":
		var r *encoded.AddResponse
		if r, err = cl.Add(ctx, &encoded.AddRequest{A: a.num("a"), B: a.num("b")}); err == nil {
			out.num("result", r.Result)
		}
	case "sumArray":
		var r *encoded.SumArrayResponse
		if r, err = cl.SumArray(ctx, &encoded.SumArrayRequest{Values: a.nums("values")}); err == nil {
			out.num("result", r.Result)
		}
	case "echoStruct":
		var r *encoded.EchoStructResponse
		if r, err = cl.EchoStruct(ctx, &encoded.EchoStructRequest{Person: encodedPerson(a, "person")}); err == nil {
			encodedPersonValues(out, "return", r.Return)
		}
	case "fail":
		_, err = cl.Fail(ctx, &encoded.FailRequest{Code: a.str("code")})
		var fe *encoded.CalcFaultError
		if !errors.As(err, &fe) {
			return untyped(err)
		}
		return genFaultValues(err, cs.Version, "fault.detail.CalcFault.fault", fe.Detail.Code, fe.Detail.Message)
	default:
		panic("no operation " + cs.Op)
	}
	if err != nil {
		return untyped(err)
	}
	return interop.Values(out)
}

// The generated clients of the header contract: header blocks are
// arguments and results.
type headersClient interface {
	EchoString(context.Context, *headers.EchoString, *headers.Session, ...wsdl.CallOption) (*headers.EchoStringResponse, *headers.Trace, error)
	Add(context.Context, *headers.Add, *headers.Session, ...wsdl.CallOption) (*headers.AddResponse, error)
	Fail(context.Context, *headers.Fail, *headers.Session, ...wsdl.CallOption) (*headers.FailResponse, error)
}

func callHeaders(ctx context.Context, rt core.RoundTripper, cs interop.Case) interop.Values {
	var cl headersClient = headers.NewCalcHeadersSoap11Client(rt)
	if cs.Version == core.V12 {
		cl = headers.NewCalcHeadersSoap12Client(rt)
	}
	a := args(cs.Args)
	var session *headers.Session
	if h := args(cs.Headers); h.has("Session.token") {
		session = &headers.Session{Token: h.str("Session.token")}
	}
	out := values{}
	var err error
	switch cs.Op {
	case "echoString":
		var r *headers.EchoStringResponse
		var trace *headers.Trace
		if r, trace, err = cl.EchoString(ctx, &headers.EchoString{S: a.str("s")}, session); err == nil {
			out.put("return", r.Return)
			if trace != nil {
				out.put("header.Trace.session", trace.Session)
				out.put("header.Trace.operation", trace.Operation)
			}
		}
	case "add":
		var r *headers.AddResponse
		if r, err = cl.Add(ctx, &headers.Add{A: a.num("a"), B: a.num("b")}, session); err == nil {
			out.num("result", r.Result)
		}
	case "fail":
		_, err = cl.Fail(ctx, &headers.Fail{Code: a.str("code")}, session)
		var fe *headers.CalcFaultError
		if !errors.As(err, &fe) {
			return untyped(err)
		}
		return genFaultValues(err, cs.Version, "fault.detail.CalcFault", fe.Detail.Code, fe.Detail.Message)
	default:
		panic("no operation " + cs.Op)
	}
	if err != nil {
		return untyped(err)
	}
	return interop.Values(out)
}

// The implementations the generated servers serve: each echoes what it
// reads, as the peers' servers do, and answers fail with the contract's
// typed fault.

type qualifiedCalc struct{}

func (qualifiedCalc) EchoString(_ context.Context, in *qualified.EchoString) (*qualified.EchoStringResponse, error) {
	return &qualified.EchoStringResponse{Return: in.S}, nil
}

func (qualifiedCalc) Add(_ context.Context, in *qualified.Add) (*qualified.AddResponse, error) {
	return &qualified.AddResponse{Result: in.A + in.B}, nil
}

func (qualifiedCalc) EchoStruct(_ context.Context, in *qualified.EchoStruct) (*qualified.EchoStructResponse, error) {
	return &qualified.EchoStructResponse{Return: in.Person}, nil
}

func (qualifiedCalc) Fail(_ context.Context, in *qualified.Fail) (*qualified.FailResponse, error) {
	reason, message := refusal(in.Code)
	return nil, &qualified.CalcFaultError{Reason: reason, Detail: &qualified.CalcFault{Code: in.Code, Message: message}}
}

type bareCalc struct{}

func (bareCalc) EchoString(_ context.Context, in *string) (*string, error) { return in, nil }

func (bareCalc) Add(_ context.Context, in *bare.Operands) (*int32, error) {
	sum := in.A + in.B
	return &sum, nil
}

func (bareCalc) EchoStruct(_ context.Context, in *bare.Person) (*bare.Person, error) { return in, nil }

func (bareCalc) Fail(_ context.Context, in *string) (*string, error) {
	reason, message := refusal(*in)
	return nil, &bare.CalcFaultError{Reason: reason, Detail: &bare.CalcFault{Code: *in, Message: message}}
}

type encodedCalc struct{}

func (encodedCalc) EchoString(_ context.Context, in *encoded.EchoStringRequest) (*encoded.EchoStringResponse, error) {
	return &encoded.EchoStringResponse{Return: in.S}, nil
}

func (encodedCalc) Add(_ context.Context, in *encoded.AddRequest) (*encoded.AddResponse, error) {
	return &encoded.AddResponse{Result: in.A + in.B}, nil
}

func (encodedCalc) SumArray(_ context.Context, in *encoded.SumArrayRequest) (*encoded.SumArrayResponse, error) {
	var sum int32
	for _, n := range in.Values {
		sum += n
	}
	return &encoded.SumArrayResponse{Result: sum}, nil
}

func (encodedCalc) EchoStruct(_ context.Context, in *encoded.EchoStructRequest) (*encoded.EchoStructResponse, error) {
	return &encoded.EchoStructResponse{Return: in.Person}, nil
}

func (encodedCalc) Fail(_ context.Context, in *encoded.FailRequest) (*encoded.FailResponse, error) {
	reason, message := refusal(in.Code)
	return nil, &encoded.CalcFaultError{Reason: reason, Detail: &encoded.CalcFault{Code: in.Code, Message: message}}
}

// headersCalc answers echoString with a Trace of the request's Session
// (none without one).
type headersCalc struct{}

func (headersCalc) EchoString(_ context.Context, in *headers.EchoString, session *headers.Session) (*headers.EchoStringResponse, *headers.Trace, error) {
	var trace *headers.Trace
	if session != nil {
		trace = &headers.Trace{Session: session.Token, Operation: "echoString"}
	}
	return &headers.EchoStringResponse{Return: in.S}, trace, nil
}

func (headersCalc) Add(_ context.Context, in *headers.Add, _ *headers.Session) (*headers.AddResponse, error) {
	return &headers.AddResponse{Result: in.A + in.B}, nil
}

func (headersCalc) Fail(_ context.Context, in *headers.Fail, _ *headers.Session) (*headers.FailResponse, error) {
	reason, message := refusal(in.Code)
	return nil, &headers.CalcFaultError{Reason: reason, Detail: &headers.CalcFault{Code: in.Code, Message: message}}
}

// genServers are the generated servers of each contract.
var genServers = map[interop.Contract]func() core.Handler{
	interop.Qualified: func() core.Handler { return qualified.NewCalcPortTypeServer(qualifiedCalc{}) },
	interop.Bare:      func() core.Handler { return bare.NewCalcBarePortTypeServer(bareCalc{}) },
	interop.Encoded:   func() core.Handler { return encoded.NewCalcEncodedPortTypeServer(encodedCalc{}) },
	interop.Headers:   func() core.Handler { return headers.NewCalcHeadersPortTypeServer(headersCalc{}) },
}
