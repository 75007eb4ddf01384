package buildcheck

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// Build runs `go build` on the package in dir (a path relative to the
// test's package folder, e.g. "testdata/wrongoption"), writing no binary,
// and returns the go command's output and its error.
func Build(t testing.TB, dir string) (string, error) {
	t.Helper()
	gocmd, err := goCommand()
	if err != nil {
		t.Fatalf("buildcheck: %v", err)
	}
	ctx := t.Context()
	cmd := exec.CommandContext(ctx, gocmd, "build", "-o", os.DevNull, ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local")
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("buildcheck: go build in %s: %v", dir, ctx.Err())
	}
	return string(out), err
}

// Refused builds the package in dir and fails t unless the compiler refuses
// it with every one of wants in its output (a refusal for another reason
// would prove nothing). It returns the output.
//
// Where the compiler names a type by its package's quoted import path (it
// does when two packages of the program have the same name, as soapwire's
// bindings/smtp and go-smtp do), the output is read with the package's name
// instead: "smtp.SenderOption", not
// "\"github.com/soapwire/soapwire/bindings/smtp\".SenderOption" (a want
// may be written either way).
func Refused(t testing.TB, dir string, wants ...string) string {
	t.Helper()
	out, err := Build(t, dir)
	out = quotedPath.ReplaceAllString(out, "$1.")
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("buildcheck: go build in %s: want a failed build, got error %v; output:\n%s", dir, err, out)
	}
	for _, w := range wants {
		if !strings.Contains(out, quotedPath.ReplaceAllString(w, "$1.")) {
			t.Errorf("buildcheck: go build in %s: output lacks %q; output:\n%s", dir, w, out)
		}
	}
	return out
}

// quotedPath is a package's quoted import path before a name.
var quotedPath = regexp.MustCompile(`"(?:[^"\s]*/)?([^"/\s]+)"\.`)

// Compiles builds the package in dir and fails t unless it builds.
func Compiles(t testing.TB, dir string) {
	t.Helper()
	if out, err := Build(t, dir); err != nil {
		t.Fatalf("buildcheck: go build in %s: %v; output:\n%s", dir, err, out)
	}
}

// goCommand finds the go command of the toolchain running the test, or the
// one on PATH.
func goCommand() (string, error) {
	name := "go"
	if runtime.GOOS == "windows" {
		name = "go.exe"
	}
	if root := runtime.GOROOT(); root != "" {
		p := filepath.Join(root, "bin", name)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	p, err := exec.LookPath("go")
	if err != nil {
		return "", errors.New("no go command: neither GOROOT/bin/go nor go on PATH")
	}
	return p, nil
}

// Go runs the go command with args in dir (an absolute path, or one
// relative to the test's package folder), with env added to the
// environment, and returns its output and its error: what a test that
// builds or vets a generated module runs.
func Go(t testing.TB, dir string, env []string, args ...string) (string, error) {
	t.Helper()
	gocmd, err := goCommand()
	if err != nil {
		t.Fatalf("buildcheck: %v", err)
	}
	ctx := t.Context()
	cmd := exec.CommandContext(ctx, gocmd, args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "GOTOOLCHAIN=local"), env...)
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("buildcheck: go %s in %s: %v", strings.Join(args, " "), dir, ctx.Err())
	}
	return string(out), err
}
