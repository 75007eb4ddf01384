package main_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// replyServer answers every request with a SOAP 1.1 envelope holding body.
func replyServer(t *testing.T, body string) string {
	t.Helper()
	env := `<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body>` + body + `</s:Body></s:Envelope>`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/xml; charset=utf-8")
		fmt.Fprint(w, env)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// fanOut is a reply of a few hundred bytes whose shared references stand
// for fan^levels values: multiRef i holds fan references to multiRef i+1,
// the last holds fan leaves.
func fanOut(levels, fan int) string {
	var b strings.Builder
	b.WriteString(`<m:addResponse xmlns:m="urn:example:calc"><return href="#r1"/></m:addResponse>`)
	for i := 1; i <= levels; i++ {
		fmt.Fprintf(&b, `<multiRef id="r%d">`, i)
		for range fan {
			if i < levels {
				fmt.Fprintf(&b, `<v href="#r%d"/>`, i+1)
			} else {
				b.WriteString(`<v>1</v>`)
			}
		}
		b.WriteString(`</multiRef>`)
	}
	return b.String()
}

// TestCallReplyBounds: call prints a reply's values only within bounds: a
// reply nested deeper than 64 (literally, or by a reference cycle), or
// holding more than 100 000 values (literally, or by shared references that
// a small reply multiplies), ends the command with exit 1 and one line
// naming the bound and --xml, in the text and the JSON output alike (the
// JSON is not printed; text values may be, up to the bound). --xml prints
// such a reply as it came.
func TestCallReplyBounds(t *testing.T) {
	const (
		tooDeep = "reading the reply: values nested deeper than 64 (use --xml)"
		tooMany = "reading the reply: more than 100000 values (use --xml)"
		// the decoder's own bound on the elements it keeps
		tooManyElements = "reading the reply: soapenc: Limit: body has more than 100000 elements (use --xml)"
	)
	nest := func(n int) string {
		return `<m:addResponse xmlns:m="urn:example:calc"><return>` + strings.Repeat("<a>", n) + "1" + strings.Repeat("</a>", n) + `</return></m:addResponse>`
	}
	many := func(n int) string {
		return `<m:addResponse xmlns:m="urn:example:calc"><return>` + strings.Repeat("<v>1</v>", n) + `</return></m:addResponse>`
	}
	cycle := `<m:addResponse xmlns:m="urn:example:calc"><return href="#c"/></m:addResponse><multiRef id="c"><next href="#c"/></multiRef>`
	for _, tc := range []struct {
		name, body, stderr string
	}{
		{"nested 65 deep", nest(65), tooDeep},
		{"a reference cycle", cycle, tooDeep},
		{"100001 values", many(100_001), tooManyElements},
		{"shared references for 111110 values", fanOut(5, 10), tooMany},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url := replyServer(t, tc.body)
			for _, out := range []string{"text", "json"} {
				args := []string{"call", "--ns", calcNS, url, "add", "a=1"}
				if out == "json" {
					args = []string{"call", "--json", "--ns", calcNS, url, "add", "a=1"}
				}
				res := soapwire(t, args...)
				require.Equal(t, 1, res.code, "%s output: %s", out, res)
				assert.Equal(t, "soapwire call: "+tc.stderr+"\n", res.stderr, "%s output", out)
				if out == "json" {
					assert.Empty(t, res.stdout, "JSON is printed whole or not at all")
				} else { // values are printed as they are read: some may come before the bound is met
					assert.LessOrEqual(t, len(lines(res.stdout)), 100_000)
				}
			}
			res := soapwire(t, "call", "--xml", "--ns", calcNS, url, "add", "a=1")
			require.Equal(t, 0, res.code, "%s", res)
			assert.Contains(t, res.stdout, "<m:addResponse")
		})
	}
	t.Run("within the bounds", func(t *testing.T) {
		for _, tc := range []struct {
			body   string
			values int
		}{{nest(64), 1}, {many(99_998), 99_998}, {fanOut(4, 10), 10_000}} {
			res := soapwire(t, "call", "--ns", calcNS, replyServer(t, tc.body), "add", "a=1")
			require.Equal(t, 0, res.code, "%s", res)
			assert.Len(t, lines(res.stdout), tc.values)
		}
	})
}
