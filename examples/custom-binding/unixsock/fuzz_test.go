package unixsock_test

import (
	"bytes"
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/examples/custom-binding/unixsock"
)

// FuzzReadFrame: any bytes give a frame or an error, never a panic; a frame
// that is read writes back as the same bytes.
func FuzzReadFrame(f *testing.F) {
	f.Add(rawFrame('C', "urn:a", envelope("", echoBody)))
	f.Add(rawFrame('S', "", nil))
	f.Add(rawFrame('E', "", []byte("no")))
	f.Add(rawFrame('X', "", nil))
	f.Add(rawFrame('R', "urn:\xff", nil))
	f.Add(rawFrame('R', "a\nb", nil))
	f.Add([]byte("SW"))
	f.Add([]byte("GET / HTTP/1.1\r\n"))
	f.Add([]byte{'S', 'W', 'C', 0xff, 0xff, 0, 0, 0, 0})
	f.Add([]byte{'S', 'W', 'C', 0, 0, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, data []byte) {
		kind, action, n, err := unixsock.ReadFrame(data, 1<<20)
		if err != nil {
			return
		}
		assert.LessOrEqual(t, n, int64(1<<20), "payload over the limit")
		assert.LessOrEqual(t, len(action), unixsock.MaxActionLen)
		head, err := unixsock.AppendHeader(nil, kind, action, int(n))
		require.NoError(t, err, "a frame that was read cannot be written back")
		require.True(t, bytes.HasPrefix(data, head), "header %q does not write back as %q", data[:len(head)], head)
	})
}

// FuzzServer: whatever a peer sends, a Server answers with a well-formed
// frame, or hangs up, promptly; it never panics or hangs.
func FuzzServer(f *testing.F) {
	f.Add(rawFrame('C', "urn:a", envelope("", echoBody)))
	f.Add(rawFrame('C', "", envelope("", "<a:b/>")))
	f.Add(rawFrame('C', "", []byte(`<!DOCTYPE x><x/>`)))
	f.Add(rawFrame('C', "", envelope(`<h:H xmlns:h="urn:h" xmlns:s="`+core.NamespaceV12+`" s:mustUnderstand="true"/>`, echoBody)))
	f.Add(rawFrame('S', "", envelope("", echoBody)))
	f.Add(append(rawFrame('C', "", envelope("", echoBody)), "junk"...))
	f.Add([]byte("SWC"))
	server := startServer(f, core.HandlerFunc(echo), unixsock.WithIOTimeout(200*time.Millisecond))
	path, _ := unixsock.ParseAddress(server)
	f.Fuzz(func(t *testing.T, data []byte) {
		conn, err := net.Dial("unix", path)
		require.NoError(t, err)
		defer conn.Close()
		_, _ = conn.Write(data)
		_ = conn.(*net.UnixConn).CloseWrite()
		require.NoError(t, conn.SetReadDeadline(time.Now().Add(5*time.Second)))
		answer, err := io.ReadAll(conn)
		var ne net.Error
		require.False(t, errors.As(err, &ne) && ne.Timeout(), "the server neither answered nor hung up")
		if len(answer) == 0 {
			return
		}
		kind, action, n, err := unixsock.ReadFrame(answer, 1<<20)
		require.NoError(t, err, "answer %q", answer)
		assert.Contains(t, "RNE", string(kind))
		require.Equal(t, 9+len(action)+int(n), len(answer), "one whole frame")
		if kind == 'R' {
			_, err := core.ReadMessage(bytes.NewReader(answer[len(answer)-int(n):]), core.Limits{})
			assert.NoError(t, err, "a reply that is not SOAP")
		}
	})
}
