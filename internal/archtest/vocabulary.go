package archtest

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"sort"
	"strings"
)

// Vocabulary is the shared vocabulary of docs/architecture.md ("The shared
// vocabulary"): the options that mean the same idea in every package, with
// the parameter types each must have, as printed (parameter names left
// out). A package need not declare them all; one it declares has these.
var Vocabulary = map[string][]string{
	"WithLogger":          {"*slog.Logger"},
	"WithLimits":          {"core.Limits"},
	"WithTLS":             {"*tls.Config"},
	"WithCredentials":     {"string", "string"},
	"WithOAuth":           {"string", "func(context.Context) (string, error)"},
	"WithAuth":            {"func(context.Context, string, string) bool"},
	"WithRealm":           {"string"},
	"WithTimeout":         {"time.Duration"},
	"WithDialTimeout":     {"time.Duration"},
	"WithIOTimeout":       {"time.Duration"},
	"WithSessionTimeout":  {"time.Duration"},
	"WithPollInterval":    {"time.Duration"},
	"WithMaxPollInterval": {"time.Duration"},
	"WithRetry":           {"int", "time.Duration"},
	"WithConcurrency":     {"int"},
	"WithLease":           {"time.Duration"},
	"WithListenAddr":      {"string"},
	"WithReplyPolicy":     {"core.ReplyPolicy"},
}

// Retired are names the vocabulary replaced, with what replaced them: no
// package declares them any more.
var Retired = map[string]string{
	"ErrBadAddress":   "ErrAddress",
	"RunServer":       "StartServer",
	"WithTimeouts":    "WithIOTimeout",
	"WithSessionTime": "WithSessionTimeout",
	"WithBasicAuth":   "WithAuth and WithRealm",
	"WithHost":        "WithListenAddr",
	"WithPort":        "WithListenAddr",
	"WithPolicy":      "WithReplyPolicy",
}

// CheckVocabulary checks the non-test files of one package against the
// shared vocabulary and returns what breaks it, as "file:line: message":
//
//  1. a function of Vocabulary's takes the parameters the table gives;
//  2. no Retired name is declared;
//  3. an exported type whose name ends in Option is an interface;
//  4. DefaultX and WithX, when the package has both, are in one file;
//  5. an exported StartXServer function returns (*Server, error).
func CheckVocabulary(fset *token.FileSet, files []*ast.File) []string {
	var out []string
	report := func(pos token.Pos, format string, args ...any) {
		out = append(out, fmt.Sprintf("%s: %s", fset.Position(pos), fmt.Sprintf(format, args...)))
	}
	type decl struct {
		pos  token.Pos
		file string
	}
	defaults, withs := map[string]decl{}, map[string]decl{}
	for _, f := range files {
		file := fset.Position(f.Package).Filename
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv != nil {
					continue
				}
				name := d.Name.Name
				checkRetired(name, d.Pos(), report)
				if strings.HasPrefix(name, "With") {
					withs[strings.TrimPrefix(name, "With")] = decl{d.Pos(), file}
				}
				if want, ok := Vocabulary[name]; ok {
					if got := fieldTypes(d.Type.Params); !slices.Equal(got, want) {
						report(d.Pos(), "%s(%s): the shared vocabulary's is %s(%s)", name, strings.Join(got, ", "), name, strings.Join(want, ", "))
					}
				}
				if ast.IsExported(name) && strings.HasPrefix(name, "Start") && strings.HasSuffix(name, "Server") {
					if got := fieldTypes(d.Type.Results); !slices.Equal(got, []string{"*Server", "error"}) {
						report(d.Pos(), "%s returns (%s): starting an embedded server returns (*Server, error)", name, strings.Join(got, ", "))
					}
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						name := s.Name.Name
						checkRetired(name, s.Pos(), report)
						if _, isInterface := s.Type.(*ast.InterfaceType); ast.IsExported(name) && strings.HasSuffix(name, "Option") && !isInterface {
							report(s.Pos(), "type %s is %s: an option type is an interface the compiler checks", name, types.ExprString(s.Type))
						}
					case *ast.ValueSpec:
						for _, id := range s.Names {
							checkRetired(id.Name, id.Pos(), report)
							if d.Tok == token.CONST && strings.HasPrefix(id.Name, "Default") {
								defaults[strings.TrimPrefix(id.Name, "Default")] = decl{id.Pos(), file}
							}
						}
					}
				}
			}
		}
	}
	for x, def := range defaults {
		if w, ok := withs[x]; ok && w.file != def.file {
			report(def.pos, "Default%s is not in the file of With%s (%s): a default is declared next to its option", x, x, fset.Position(w.pos))
		}
	}
	sort.Strings(out)
	return out
}

func checkRetired(name string, pos token.Pos, report func(token.Pos, string, ...any)) {
	if by, ok := Retired[name]; ok {
		report(pos, "%s is retired: the shared vocabulary says %s", name, by)
	}
}

// fieldTypes returns the types of a parameter or result list, one per
// value (a, b string is two strings), names left out.
func fieldTypes(fl *ast.FieldList) []string {
	var out []string
	if fl == nil {
		return out
	}
	for _, f := range fl.List {
		t := typeString(f.Type)
		out = append(out, t)
		for range max(len(f.Names)-1, 0) {
			out = append(out, t)
		}
	}
	return out
}

// typeString prints a type expression; a function type without its
// parameter names.
func typeString(e ast.Expr) string {
	ft, ok := e.(*ast.FuncType)
	if !ok {
		return types.ExprString(e)
	}
	s := "func(" + strings.Join(fieldTypes(ft.Params), ", ") + ")"
	switch res := fieldTypes(ft.Results); len(res) {
	case 0:
	case 1:
		s += " " + res[0]
	default:
		s += " (" + strings.Join(res, ", ") + ")"
	}
	return s
}
