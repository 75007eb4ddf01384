package file_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	soapfile "github.com/soapwire/soapwire/bindings/file"
	"github.com/soapwire/soapwire/core"
)

const testNS = "urn:soapwire:file-test"

func ctx(t testing.TB) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return c
}

// poller returns a Poller on dir with a short poll interval, its folders
// made.
func poller(t testing.TB, dir string, opts ...soapfile.PollerOption) *soapfile.Poller {
	t.Helper()
	base := []soapfile.PollerOption{soapfile.WithPollInterval(5 * time.Millisecond), soapfile.WithMaxPollInterval(50 * time.Millisecond)}
	p, err := soapfile.NewPoller(dir, append(base, opts...)...)
	require.NoError(t, err)
	require.NoError(t, p.MakeLayout(ctx(t)))
	t.Cleanup(func() { p.Close() })
	return p
}

// sender returns a Sender rooted at root.
func sender(t testing.TB, root string) *soapfile.Sender {
	t.Helper()
	s, err := soapfile.NewSender(root)
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return s
}

// ping returns a message with a Ping body holding text.
func ping(v core.Version, text string) *core.Message {
	m := core.NewMessage(v, core.RawBody([]byte(fmt.Sprintf(`<t:Ping xmlns:t="%s">%s</t:Ping>`, testNS, text))))
	m.ID = core.NewMessageID()
	m.Action = testNS + "/Ping"
	return m
}

func envelope(t testing.TB, m *core.Message) []byte {
	t.Helper()
	var b bytes.Buffer
	_, err := m.WriteTo(&b)
	require.NoError(t, err)
	return b.Bytes()
}

// names lists the names in a folder.
func names(t testing.TB, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// drop writes a file into a folder atomically.
func drop(t testing.TB, dir, name string, data []byte) {
	t.Helper()
	tmp := filepath.Join(dir, ".drop-"+name)
	require.NoError(t, os.WriteFile(tmp, data, 0o644))
	require.NoError(t, os.Rename(tmp, filepath.Join(dir, name)))
}
