package drop

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/soapwire/soapwire/core"
)

// FuzzReadFile: no file makes readFile or the settle rule panic or hang;
// an error is a *core.Fault; a message read can be read to its end.
func FuzzReadFile(f *testing.F) {
	env := `<e:Envelope xmlns:e="http://www.w3.org/2003/05/soap-envelope"><e:Body><p:x xmlns:p="urn:x"/></e:Body></e:Envelope>`
	for _, seed := range []string{
		env,
		"\xef\xbb\xbf" + env,
		"MIME-Version: 1.0\r\nContent-Type: multipart/related; type=\"application/soap+xml\"; boundary=B\r\n\r\n--B\r\nContent-Type: application/soap+xml\r\n\r\n" + env + "\r\n--B\r\nContent-ID: <a@b>\r\n\r\nxyz\r\n--B--\r\n",
		"Content-Type: multipart/related; type=\"application/xop+xml\"; boundary=B\n\n--B\nContent-Type: application/xop+xml; type=\"application/soap+xml\"\n\n" + env + "\n--B",
		"Content-Type: text/xml\r\n\r\n" + env,
		"Content-Type: multipart/related\r\n\r\n",
		"X: y\r\n",
		"",
		" \n<",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sp := &spool{mem: data, size: int64(len(data))}
		_ = sp.finished()
		lim := core.Limits{MaxBytes: 1 << 20, SpoolDir: t.TempDir()}
		m, err := readFile(bytes.NewReader(data), sp.head(headLen), lim)
		if err != nil {
			var fault *core.Fault
			if !errors.As(err, &fault) {
				t.Fatalf("not a fault: %v", err)
			}
			return
		}
		_ = m.Body().Discard()
		if err := m.Close(); err != nil {
			t.Fatal(err)
		}
		if isMIME(data) && strings.HasPrefix(string(bytes.TrimLeft(data, " \t\r\n")), "<") {
			t.Fatal("a file starting with < is plain")
		}
	})
}
