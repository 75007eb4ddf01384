package gen

import (
	"bytes"
	"fmt"
	"go/format"
	"sort"
	"strconv"
	"strings"
)

// importPaths are the packages generated code may import, by the name it
// uses them under.
var importPaths = map[string]string{
	"context": "context",
	"errors":  "errors",
	"fmt":     "fmt",
	"strings": "strings",
	"time":    "time",
	"xml":     "encoding/xml",
	"core":    "github.com/soapwire/soapwire/core",
	"soapenc": "github.com/soapwire/soapwire/core/soapenc",
	"wsdl":    "github.com/soapwire/soapwire/core/wsdl",
	"xsd":     "github.com/soapwire/soapwire/core/xsd",
}

// file is one generated Go file being written.
type file struct {
	name    string
	body    bytes.Buffer
	imports map[string]bool
}

func newFile(name string) *file { return &file{name: name, imports: map[string]bool{}} }

// p writes a line (format and args as fmt.Fprintf), noting the packages
// its code uses.
func (f *file) p(format string, args ...any) {
	line := fmt.Sprintf(format, args...)
	if t := strings.TrimSpace(line); !strings.HasPrefix(t, "//") {
		f.use(stripStrings(line))
	}
	f.body.WriteString(line)
	f.body.WriteByte('\n')
}

// stripStrings removes the string literals of a line of Go code.
func stripStrings(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"':
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' {
					i++
				}
			}
		case '`':
			for i++; i < len(s) && s[i] != '`'; i++ {
			}
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// use records the packages a Go expression qualifies names with ("time.",
// "xsd."), which must be imported.
func (f *file) use(expr string) {
	for name := range importPaths {
		if strings.Contains(expr, name+".") {
			i := strings.Index(expr, name+".")
			if i == 0 || !isIdentByte(expr[i-1]) {
				f.imports[name] = true
			}
		}
	}
}

// need records packages by name.
func (f *file) need(names ...string) {
	for _, n := range names {
		f.imports[n] = true
	}
}

func isIdentByte(b byte) bool {
	return b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}

// comment writes a comment of text (several paragraphs, any lines) with
// prefix on each line.
func (f *file) comment(prefix, text string) {
	for _, line := range commentLines(text) {
		if line == "" {
			f.p("%s//", prefix)
		} else {
			f.p("%s// %s", prefix, line)
		}
	}
}

// commentLines splits documentation into lines: paragraphs kept, each
// line's surrounding white space trimmed, runs of blank lines made one, a
// line that would close a comment or hold control characters cleaned.
func commentLines(text string) []string {
	var out []string
	blank := false
	for _, line := range strings.Split(strings.ReplaceAll(text, "\r", ""), "\n") {
		line = strings.TrimSpace(strings.Map(func(r rune) rune {
			if r < 0x20 && r != '\t' || r == 0x7f || r == '\u2028' || r == '\u2029' || r == '\ufeff' {
				return ' '
			}
			return r
		}, line))
		if line == "" {
			if len(out) > 0 {
				blank = true
			}
			continue
		}
		if blank {
			out = append(out, "")
			blank = false
		}
		out = append(out, line)
	}
	return out
}

// source returns the file's formatted source with its header and imports.
func (f *file) source(pkg, header string) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("// " + header + "\n\n")
	b.WriteString("package " + pkg + "\n\n")
	if len(f.imports) > 0 {
		var std, mod []string
		for n := range f.imports {
			if p := importPaths[n]; strings.Contains(p, ".") {
				mod = append(mod, p)
			} else {
				std = append(std, p)
			}
		}
		sort.Strings(std)
		sort.Strings(mod)
		b.WriteString("import (\n")
		for _, p := range std {
			b.WriteString("\t" + strconv.Quote(p) + "\n")
		}
		if len(std) > 0 && len(mod) > 0 {
			b.WriteString("\n")
		}
		for _, p := range mod {
			b.WriteString("\t" + strconv.Quote(p) + "\n")
		}
		b.WriteString(")\n\n")
	}
	b.Write(f.body.Bytes())
	out, err := format.Source(b.Bytes())
	if err != nil {
		return b.Bytes(), fmt.Errorf("gen: %s: %w", f.name, err)
	}
	return out, nil
}

// goString returns s as a Go string literal.
func goString(s string) string { return strconv.Quote(s) }

// errorfMessage is the arguments of an Errorf call that says msg, a constant
// message holding a contract's text: the message as a Go string, after a
// "%s" format when it holds a percent sign (a namespace may), which would
// otherwise be read as a verb.
func errorfMessage(msg string) string {
	if strings.Contains(msg, "%") {
		return `"%s", ` + goString(msg)
	}
	return goString(msg)
}
