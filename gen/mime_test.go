package gen_test

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/coretest"
	"github.com/soapwire/soapwire/core/wsdl"
	"github.com/soapwire/soapwire/core/xsd"
	"github.com/soapwire/soapwire/gen"
	"github.com/soapwire/soapwire/gen/internal/swa"
)

// TestMIMEPartsNotDropped: an operation whose binding carries MIME parts
// (testdata/swa.wsdl's Archive) is not generated as if they were not
// there: GenerateWarnings names them, the client method fails naming them
// before sending anything, the server answers a Receiver fault naming them
// without calling the implementation; the operation without parts works.
func TestMIMEPartsNotDropped(t *testing.T) {
	ct, err := wsdl.Load(t.Context(), xsd.FSLoader(os.DirFS("testdata")), "swa.wsdl")
	require.NoError(t, err)
	_, warnings, err := gen.GenerateWarnings(ct)
	require.NoError(t, err)
	require.Len(t, warnings, 1)
	assert.Contains(t, warnings[0], `the operation Archive carries the MIME parts "scan" (input), "thumb" (output)`)

	impl := &swaImpl{}
	srv := swa.NewArchiverServer(impl)
	sent := 0
	pipe := coretest.NewPipe(coretest.WithHandler(core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		sent++
		return srv.ServeSOAP(ctx, m)
	})))
	c := swa.NewArchiverPortClient(pipe)
	_, err = c.Archive(t.Context(), &swa.Archive{Title: "x"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `"scan" (input)`)
	assert.Equal(t, 0, sent, "nothing sent")

	m := core.NewMessage(core.V11, core.RawBody([]byte(`<Archive xmlns="urn:example:swa"><title>x</title></Archive>`)))
	m.Action = "urn:example:swa:Archive"
	_, err = srv.ServeSOAP(t.Context(), m)
	var f *core.Fault
	require.ErrorAs(t, err, &f)
	assert.Equal(t, core.CodeReceiver, f.Code)
	assert.Contains(t, f.Reason, `"scan" (input)`)
	assert.Zero(t, impl.archived, "the implementation is not called")

	in := "hello"
	out, err := c.Ping(t.Context(), &in)
	require.NoError(t, err)
	assert.Equal(t, "pong hello", *out)
}

type swaImpl struct{ archived int }

func (i *swaImpl) Archive(_ context.Context, in *swa.Archive) (*swa.Archived, error) {
	i.archived++
	return &swa.Archived{Id: in.Title}, nil
}

func (i *swaImpl) Ping(_ context.Context, in *string) (*string, error) {
	s := "pong " + *in
	return &s, nil
}
