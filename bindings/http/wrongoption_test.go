package http_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWrongOptionDoesNotCompile: an option given to a constructor that does
// not take it is refused by the compiler. testdata/wrongoption compiles as
// it is (each constructor with the options it takes); each wrong_*.go file,
// added by its build tag, gives one constructor another's option, and the
// build fails naming the option and the method its type lacks.
func TestWrongOptionDoesNotCompile(t *testing.T) {
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	build := func(tag string) (string, error) {
		args := []string{"build", "-o", os.DevNull}
		if tag != "" {
			args = append(args, "-tags", tag)
		}
		out, err := exec.Command(goBin, append(args, "./testdata/wrongoption")...).CombinedOutput()
		return string(out), err
	}
	out, err := build("")
	require.NoError(t, err, "the right options must compile:\n%s", out)

	tests := []struct{ tag, option, want string }{
		{"wrong_handler", "WithCredentials", "TransportOption does not implement \"github.com/soapwire/soapwire/bindings/http\".HandlerOption (missing method applyHandler)"},
		{"wrong_transport", "WithLogger", "LogOption does not implement \"github.com/soapwire/soapwire/bindings/http\".TransportOption (missing method applyTransport)"},
		{"wrong_server", "WithLimits", "ReadOption does not implement \"github.com/soapwire/soapwire/bindings/http\".ServerOption (missing method applyServer)"},
	}
	for _, tt := range tests {
		t.Run(tt.tag, func(t *testing.T) {
			out, err := build(tt.tag)
			require.Error(t, err, "a wrong option compiled")
			assert.Contains(t, out, tt.tag+".go", "the error is the wrong line's")
			assert.Contains(t, out, "soaphttp."+tt.option+"(")
			assert.Contains(t, out, tt.want)
		})
	}
}
