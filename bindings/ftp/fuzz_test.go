package ftp_test

import (
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soapftp "github.com/soapwire/soapwire/bindings/ftp"
)

// FuzzFileName: whatever the message id, its file name is safe, accepted by
// the Poller, stable, and ends in .xml.
func FuzzFileName(f *testing.F) {
	for _, s := range []string{"", "urn:uuid:4f1c7c3e-8f0b-4d7e-9a2b-1c2d3e4f5a6b", "../../x", "a..b", ".", "-", "a.", "\x00", "ü", strings.Repeat("ab.", 80)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		name := soapftp.FileName(id)
		require.NoError(t, soapftp.CheckName(name), "FileName(%q) = %q", id, name)
		kind, reason := soapftp.Classify(name)
		require.Equal(t, "accept", kind, "FileName(%q) = %q: %s", id, name, reason)
		require.Equal(t, name, soapftp.FileName(id), "not stable")
		require.True(t, strings.HasSuffix(name, soapftp.Suffix))
		require.LessOrEqual(t, len(name), 140)
		// A claim on it parses back.
		at := time.UnixMilli(1700000000000)
		_, _, got, ok := soapftp.ParseClaim(soapftp.FormatClaim(at, "0123abcd", name))
		require.True(t, ok)
		require.Equal(t, name, got)
	})
}

// FuzzClassify: a name the Poller accepts is a single, safe path element.
func FuzzClassify(f *testing.F) {
	for _, s := range []string{"a.xml", "../a.xml", "/a.xml", `a\b.xml`, ".a.xml", "-a.xml", " a.xml", "a.xml ", "a\x01.xml", "\xff.xml", "a..xml", "..", ".", "", "a.txt", "a\u2028.xml", "a\u0085.xml"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		kind, reason := soapftp.Classify(name)
		err := soapftp.CheckName(name)
		switch kind {
		case "accept":
			require.NoError(t, err)
			assert.Empty(t, reason)
			assert.True(t, utf8.ValidString(name))
			assert.NotContains(t, name, "/")
			assert.NotContains(t, name, `\`)
			assert.NotContains(t, name, "..")
			assert.True(t, strings.HasSuffix(name, soapftp.Suffix))
			assert.LessOrEqual(t, len(name), soapftp.MaxNameLen)
			assert.False(t, strings.HasPrefix(name, ".") || strings.HasPrefix(name, "-") || strings.HasPrefix(name, " "))
			for _, r := range name {
				assert.False(t, unicode.IsControl(r), "control character %U", r)
			}
		case "ignore":
			assert.True(t, strings.HasPrefix(name, "."))
			assert.NotContains(t, name, "/")
		case "skip":
			assert.NotEmpty(t, reason)
		default:
			t.Fatalf("kind %q", kind)
		}
	})
}

// FuzzParseClaim: a work-folder name parses only when it is exactly what
// FormatClaim writes for an accepted name.
func FuzzParseClaim(f *testing.F) {
	for _, s := range []string{"1700000000000.0123abcd.a.xml", "0.00000000.a.xml", "01.0123abcd.a.xml", "1.0123ABCD.a.xml", "1.0123abcd.../x.xml", "1.0123abcd.", "x.y.z", "99999999999999999999.0123abcd.a.xml", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		at, owner, name, ok := soapftp.ParseClaim(s)
		if !ok {
			return
		}
		kind, _ := soapftp.Classify(name)
		require.Equal(t, "accept", kind, "claim %q holds %q", s, name)
		require.Equal(t, s, soapftp.FormatClaim(at, owner, name), "not canonical")
	})
}

// FuzzParseAddress: an accepted address is an absolute, clean folder with
// no "..", backslash or control character, and round-trips.
func FuzzParseAddress(f *testing.F) {
	for _, s := range []string{"ftp://h/x", "ftp://h:21/a/../b", "ftp://u:p@h/x", "ftp://h/%2e%2e/x", "ftp://h/a%0d%0a", "ftp://[::1]/", "FTP://H/X?", "ftp:x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := soapftp.ParseAddress(s)
		if err != nil {
			require.ErrorIs(t, err, soapftp.ErrAddress)
			return
		}
		require.True(t, strings.HasPrefix(a.Dir, "/"), a.Dir)
		for _, el := range strings.Split(a.Dir, "/") {
			require.NotEqual(t, "..", el, a.Dir)
		}
		require.NotContains(t, a.Dir, `\`)
		for _, r := range a.Dir {
			require.False(t, r < 0x20 || r == 0x7f, "control character in %q", a.Dir)
		}
		b, err := soapftp.ParseAddress(a.String())
		require.NoError(t, err, "round trip of %q (from %q)", a.String(), s)
		require.Equal(t, a, b)
	})
}

// FuzzListPath: the path the embedded server lists for a LIST or NLST
// parameter is the parameter's tail after the leading ls options, never
// starting with a space or an option.
func FuzzListPath(f *testing.F) {
	for _, s := range []string{"", "dir", "-la", "-la dir", "  -l   -a  my dir ", "-l\tdir", "-", "--", "- x", "a -l", "/in box"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, param string) {
		got := soapftp.ListPath(param)
		if !strings.HasSuffix(param, got) {
			t.Fatalf("%q: %q is not its tail", param, got)
		}
		if strings.HasPrefix(got, " ") || strings.HasPrefix(got, "-") {
			t.Fatalf("%q: %q starts with a space or an option", param, got)
		}
		if trimmed := strings.TrimLeft(param, " "); !strings.HasPrefix(trimmed, "-") && got != trimmed {
			t.Fatalf("%q: no options, but %q", param, got)
		}
	})
}
