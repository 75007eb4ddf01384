package archtest_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/internal/archtest"
)

// vocabularyRoots are the folders whose packages speak the shared
// vocabulary (docs/architecture.md), each with the packages below it.
var vocabularyRoots = []string{"bindings", "document", "core/rpc", "examples/custom-binding/unixsock"}

// parsePackages parses the non-test Go files of every package under the
// roots (testdata and node_modules folders left out), by folder.
func parsePackages(t *testing.T, root string, fset *token.FileSet) map[string][]*ast.File {
	t.Helper()
	pkgs := map[string][]*ast.File{}
	for _, r := range vocabularyRoots {
		err := filepath.WalkDir(filepath.Join(root, r), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && (d.Name() == "testdata" || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			rel, err := filepath.Rel(root, path)
			if err != nil {
				return err
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			f, err := parser.ParseFile(fset, filepath.ToSlash(rel), src, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			dir := filepath.ToSlash(filepath.Dir(rel))
			pkgs[dir] = append(pkgs[dir], f)
			return nil
		})
		require.NoError(t, err)
	}
	return pkgs
}

// TestVocabulary: the bindings, document, core/rpc and the custom-binding
// example follow the shared vocabulary (archtest.CheckVocabulary).
func TestVocabulary(t *testing.T) {
	_, root := moduleRoot(t)
	fset := token.NewFileSet()
	pkgs := parsePackages(t, root, fset)
	for _, p := range []string{"bindings/http", "bindings/nats", "bindings/smtp", "bindings/ftp", "document", "core/rpc", "examples/custom-binding/unixsock"} {
		require.Contains(t, pkgs, p, "a package of the vocabulary was not found")
	}
	for _, files := range pkgs {
		for _, msg := range archtest.CheckVocabulary(fset, files) {
			t.Error(msg)
		}
	}
}

func checkVocabulary(t *testing.T, files map[string]string) []string {
	t.Helper()
	fset := token.NewFileSet()
	var parsed []*ast.File
	for name, src := range files {
		f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
		require.NoError(t, err)
		parsed = append(parsed, f)
	}
	return archtest.CheckVocabulary(fset, parsed)
}

func TestCheckVocabularyAccepts(t *testing.T) {
	src := `package b

import (
	"context"
	"crypto/tls"
	"log/slog"
	"time"
)

type HandlerOption interface{ applyHandler(*handlerConfig) }

type Option interface {
	HandlerOption
	ServerOption
}

type WriteOptions struct{} // not an option type: it ends in Options

type handlerOption func(*handlerConfig) // unexported

func WithLogger(l *slog.Logger) Option                                            { return nil }
func WithLimits(l core.Limits) HandlerOption                                     { return nil }
func WithTLS(cfg *tls.Config) Option                                             { return nil }
func WithCredentials(user, pass string) HandlerOption                           { return nil }
func WithAuth(check func(ctx context.Context, user, pass string) bool) Option  { return nil }
func WithRetry(attempts int, backoff time.Duration) HandlerOption               { return nil }
func WithIOTimeout(d time.Duration) HandlerOption                                { return nil }

// DefaultRealm is next to WithRealm.
const DefaultRealm = "soapwire"

func WithRealm(realm string) HandlerOption { return nil }

const DefaultMaxPayload = 1 << 20 // no WithMaxPayload: nothing to be next to

func StartServer(dir string, opts ...ServerOption) (*Server, error) { return nil, nil }

func startServer() {} // unexported

func (s *Server) WithHost(h string) {} // a method, not the retired option
`
	assert.Empty(t, checkVocabulary(t, map[string]string{"b/options.go": src}))
}

func TestCheckVocabularyRefuses(t *testing.T) {
	const head = "package b\n\n"
	tests := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"logger of another type", map[string]string{"b/o.go": head + "func WithLogger(l *log.Logger) Option { return nil }\n"},
			"b/o.go:3:1: WithLogger(*log.Logger): the shared vocabulary's is WithLogger(*slog.Logger)"},
		{"poll interval with a limit", map[string]string{"b/o.go": head + "func WithPollInterval(every, limit time.Duration) Option { return nil }\n"},
			"WithPollInterval(time.Duration, time.Duration): the shared vocabulary's is WithPollInterval(time.Duration)"},
		{"auth with a realm", map[string]string{"b/o.go": head + "func WithAuth(realm string, check func(context.Context, string, string) bool) Option { return nil }\n"},
			"WithAuth(string, func(context.Context, string, string) bool)"},
		{"auth check of another shape", map[string]string{"b/o.go": head + "func WithAuth(check func(user, pass string) error) Option { return nil }\n"},
			"WithAuth(func(string, string) error)"},
		{"limits by pointer", map[string]string{"b/o.go": head + "func WithLimits(l *core.Limits) Option { return nil }\n"},
			"WithLimits(*core.Limits)"},
		{"timeout in seconds", map[string]string{"b/o.go": head + "func WithTimeout(seconds int) Option { return nil }\n"},
			"WithTimeout(int)"},
		{"retired ErrBadAddress", map[string]string{"b/e.go": head + "import \"errors\"\n\nvar ErrBadAddress = errors.New(\"x\")\n"},
			"b/e.go:5:5: ErrBadAddress is retired: the shared vocabulary says ErrAddress"},
		{"retired RunServer", map[string]string{"b/s.go": head + "func RunServer(dir string) (*Server, error) { return nil, nil }\n"},
			"RunServer is retired"},
		{"retired WithTimeouts", map[string]string{"b/o.go": head + "func WithTimeouts(read, write time.Duration) Option { return nil }\n"},
			"WithTimeouts is retired"},
		{"retired WithSessionTime", map[string]string{"b/o.go": head + "func WithSessionTime(d time.Duration) Option { return nil }\n"},
			"WithSessionTime is retired"},
		{"retired WithBasicAuth", map[string]string{"b/o.go": head + "func WithBasicAuth(realm string, check func(context.Context, string, string) bool) Option { return nil }\n"},
			"WithBasicAuth is retired"},
		{"retired WithHost", map[string]string{"b/o.go": head + "func WithHost(h string) ServerOption { return nil }\n"},
			"WithHost is retired"},
		{"retired WithPort", map[string]string{"b/o.go": head + "func WithPort(p int) ServerOption { return nil }\n"},
			"WithPort is retired"},
		{"retired name as a constant", map[string]string{"b/o.go": head + "const WithPort = 1\n"},
			"WithPort is retired"},
		{"option as a func type", map[string]string{"b/o.go": head + "type Option func(*options)\n"},
			"b/o.go:3:6: type Option is func(*options): an option type is an interface the compiler checks"},
		{"role option as a struct", map[string]string{"b/o.go": head + "type SenderOption struct{ f func(*config) }\n"},
			"type SenderOption is struct"},
		{"option as a named func type", map[string]string{"b/o.go": head + "type OpOption = func(*operation)\n"},
			"type OpOption is func(*operation)"},
		{"default in another file", map[string]string{
			"b/defaults.go": head + "const DefaultQueue = \"soapwire\"\n",
			"b/options.go":  head + "func WithQueue(name string) Option { return nil }\n",
		}, "b/defaults.go:3:7: DefaultQueue is not in the file of WithQueue (b/options.go:3:1)"},
		{"default in a grouped block of another file", map[string]string{
			"b/defaults.go": head + "const (\n\tDefaultTimeout = 1\n\tDefaultOther = 2\n)\n",
			"b/options.go":  head + "func WithTimeout(d time.Duration) Option { return nil }\n",
		}, "DefaultTimeout is not in the file of WithTimeout"},
		{"StartServer without an error", map[string]string{"b/s.go": head + "func StartServer(addr string) *Server { return nil }\n"},
			"b/s.go:3:1: StartServer returns (*Server): starting an embedded server returns (*Server, error)"},
		{"StartServer returning another type", map[string]string{"b/s.go": head + "func StartMailServer(addr string) (*Mailer, error) { return nil, nil }\n"},
			"StartMailServer returns (*Mailer, error)"},
		{"StartServer returning nothing", map[string]string{"b/s.go": head + "func StartServer() {}\n"},
			"StartServer returns ()"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := checkVocabulary(t, tt.files)
			require.Len(t, got, 1, "%v", got)
			assert.Contains(t, got[0], tt.want)
		})
	}
}

// TestVocabularyTableInDocs: docs/architecture.md's table names every
// option of Vocabulary and every retired name, so the page and the check
// stay one list.
func TestVocabularyTableInDocs(t *testing.T) {
	_, root := moduleRoot(t)
	page, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	require.NoError(t, err)
	_, section, found := strings.Cut(string(page), "\n## The shared vocabulary\n")
	require.True(t, found, "docs/architecture.md has no section \"The shared vocabulary\"")
	section, _, _ = strings.Cut(section, "\n## ")
	for name, params := range archtest.Vocabulary {
		assert.Contains(t, section, "`"+name+"(", "%s(%s) is not in the table", name, strings.Join(params, ", "))
	}
	for name := range archtest.Retired {
		assert.Contains(t, section, "`"+name+"`", "retired %s is not named", name)
	}
}
