package interop_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/coretest"
	"github.com/soapwire/soapwire/core/wsdl"
	"github.com/soapwire/soapwire/core/xsd"
	"github.com/soapwire/soapwire/internal/interop/gencalc/qualified"
)

// calcImpl implements the qualified contract's port type as the harness's
// servers do.
type calcImpl struct{}

func (calcImpl) EchoString(_ context.Context, in *qualified.EchoString) (*qualified.EchoStringResponse, error) {
	return &qualified.EchoStringResponse{Return: in.S}, nil
}

func (calcImpl) Add(_ context.Context, in *qualified.Add) (*qualified.AddResponse, error) {
	return &qualified.AddResponse{Result: in.A + in.B}, nil
}

func (calcImpl) EchoStruct(_ context.Context, in *qualified.EchoStruct) (*qualified.EchoStructResponse, error) {
	return &qualified.EchoStructResponse{Return: in.Person}, nil
}

func (calcImpl) Fail(_ context.Context, in *qualified.Fail) (*qualified.FailResponse, error) {
	return nil, &qualified.CalcFaultError{Reason: "calc refused: " + in.Code,
		Detail: &qualified.CalcFault{Code: in.Code, Message: "failure " + in.Code + " as asked"}}
}

// TestGeneratedPipe: a generated client calls a generated server of the
// qualified contract over an in-memory binding, in both SOAP versions.
func TestGeneratedPipe(t *testing.T) {
	srv := qualified.NewCalcPortTypeServer(calcImpl{})
	pipe := coretest.NewPipe(coretest.WithHandler(srv))
	for _, cl := range []interface {
		Add(context.Context, *qualified.Add, ...wsdl.CallOption) (*qualified.AddResponse, error)
	}{qualified.NewCalcSoap11Client(pipe), qualified.NewCalcSoap12Client(pipe)} {
		out, err := cl.Add(t.Context(), &qualified.Add{A: 40, B: 2})
		require.NoError(t, err)
		assert.Equal(t, int32(42), out.Result)
	}
	c := qualified.NewCalcSoap11Client(pipe)
	id := int32(7)
	p := qualified.Person{Id: &id, Name: "Ada", Age: 36, Address: qualified.Address{Street: "s", City: "c"},
		Tags: []string{"x", "y"}, Note: xsd.NilValue[string]()}
	out, err := c.EchoStruct(t.Context(), &qualified.EchoStruct{Person: p})
	require.NoError(t, err)
	assert.Equal(t, p, out.Return)

	_, err = c.Fail(t.Context(), &qualified.Fail{Code: "E42"})
	var fe *qualified.CalcFaultError
	require.True(t, errors.As(err, &fe), "%v", err)
	assert.Equal(t, "E42", fe.Detail.Code)
	assert.Equal(t, "calc refused: E42", fe.Reason)
	var f *core.Fault
	require.True(t, errors.As(err, &f))
	assert.Equal(t, core.CodeSender, f.Code)
}
