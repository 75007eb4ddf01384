package unixsock_test

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/examples/custom-binding/unixsock"
)

var echoBody = `<t:Ping xmlns:t="urn:test">hi</t:Ping>`

// echo answers with the request's body.
func echo(_ context.Context, m *core.Message) (*core.Message, error) {
	var v struct {
		Text string `xml:",chardata"`
	}
	if err := m.Body().Decode(&v); err != nil {
		return nil, err
	}
	return m.Reply(core.RawBody([]byte(`<t:Pong xmlns:t="urn:test">` + v.Text + `</t:Pong>`))), nil
}

// TestRefusals: what a Server and an Inbox answer to frames they will not
// take, and what they log. Every refusal is an 'E' frame whose text says
// what was wrong, or, for an envelope a Server cannot read, a Sender fault.
func TestRefusals(t *testing.T) {
	var logs syncBuffer
	log, limits := logTo(&logs), unixsock.WithLimits(core.Limits{MaxBytes: 1024})
	server := startServer(t, core.HandlerFunc(echo), log, limits)
	in, inbox := startInbox(t, shortDir(t), log, limits)
	wsa := `<wsa:Action xmlns:wsa="` + core.NamespaceAddressing + `">urn:a</wsa:Action>`
	long := strings.Repeat("a", unixsock.MaxActionLen+1)

	tests := []struct {
		name   string
		to     string // server or inbox
		data   []byte
		kind   byte   // the answer's kind
		reason string // in the answer's payload
		log    string
	}{
		{"not a frame", server, []byte("POST / HTTP/1.1\r\nHost: x\r\n\r\n"), 'E', "not a frame", "unixsock: refused"},
		{"unknown kind", server, rawFrame('X', "", envelope("", echoBody)), 'E', "unknown frame kind 'X'", "unixsock: refused"},
		{"action too long", server, rawFrame('C', long, envelope("", echoBody)), 'E', "action of 4097 bytes", "unixsock: refused"},
		{"control character in action", server, rawFrame('C', "urn:a\nX-Injected: 1", envelope("", echoBody)), 'E', "control character", "unixsock: refused"},
		{"action not UTF-8", server, rawFrame('C', "urn:\xff", envelope("", echoBody)), 'E', "not UTF-8", "unixsock: refused"},
		{"too large for the server", server, rawFrame('C', "", envelope("", strings.Repeat("<x/>", 300))), 'E', "over the limit of 1024", "unixsock: refused"},
		{"send to a server", server, rawFrame('S', "", envelope("", echoBody)), 'E', "answers calls", "unixsock: refused"},
		{"malformed envelope to a server", server, rawFrame('C', "", envelope("", "<a:b/>")), 'R', "unbound", "unixsock: answered with a fault"},
		{"not SOAP to a server", server, rawFrame('C', "", []byte("hello")), 'R', "Sender", "unixsock: answered with a fault"},
		{"action mismatch at a server", server, rawFrame('C', "urn:b", envelope(wsa, echoBody)), 'R', "does not match wsa:Action", "unixsock: answered with a fault"},
		{"too large for the inbox", inbox, rawFrame('S', "", envelope("", strings.Repeat("<x/>", 300))), 'E', "over the limit of 1024", "unixsock: refused"},
		{"call to an inbox", inbox, rawFrame('C', "", envelope("", echoBody)), 'E', "is an inbox", "unixsock: refused"},
		{"malformed envelope to an inbox", inbox, rawFrame('S', "", envelope("", "<a:b/>")), 'E', "envelope refused: ", "unixsock: refused"},
		{"DOCTYPE to an inbox", inbox, rawFrame('S', "", append([]byte(`<!DOCTYPE x [<!ENTITY a "b">]>`), envelope("", echoBody)...)), 'E', "envelope refused: ", "unixsock: refused"},
		{"content after the envelope", inbox, rawFrame('S', "", append(envelope("", echoBody), "<more/>"...)), 'E', "envelope refused: ", "unixsock: refused"},
		{"action mismatch at an inbox", inbox, rawFrame('S', "urn:b", envelope(wsa, echoBody)), 'E', "does not match wsa:Action", "unixsock: refused"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(logs.String())
			got, err := rawExchange(t, tt.to, tt.data)
			require.NoError(t, err, "no answer")
			assert.Equal(t, string(tt.kind), string(got.kind), "answer kind (payload %q)", got.payload)
			assert.Contains(t, got.payload, tt.reason)
			if tt.kind == 'R' {
				assert.Equal(t, core.FaultAction, got.action)
				m, err := core.ReadMessage(strings.NewReader(got.payload), core.Limits{})
				require.NoError(t, err)
				f := m.Fault()
				require.NotNil(t, f, "a fault")
				assert.Equal(t, core.CodeSender, f.Code)
				if strings.Contains(tt.name, "action mismatch") {
					assert.True(t, f.HasSubcode(xml.Name{Space: core.NamespaceAddressing, Local: "ActionMismatch"}), "subcodes %v", f.Subcodes)
					assert.Contains(t, string(f.Detail), "ProblemAction")
				}
			}
			assert.Eventually(t, func() bool { return strings.Contains(logs.String()[before:], tt.log) }, 5*time.Second, 5*time.Millisecond,
				"log %q missing from:\n%s", tt.log, logs.String()[before:])
		})
	}
	assert.Zero(t, in.Len(), "a refused message was queued")
	for _, sub := range []string{"tmp", "queue"} {
		files, err := os.ReadDir(filepath.Join(in.Dir(), sub))
		require.NoError(t, err)
		assert.Empty(t, files, "%s/ after refusals", sub)
	}
}

// TestTransportRefused: a refusal reaches the caller as an error wrapping
// ErrRefused, with the peer's reason; a message the Transport itself cannot
// frame is refused before anything is sent.
func TestTransportRefused(t *testing.T) {
	small := unixsock.WithLimits(core.Limits{MaxBytes: 1024})
	server := startServer(t, core.HandlerFunc(echo), small)
	_, inbox := startInbox(t, shortDir(t), small)
	big := core.NewMessage(core.V12, core.RawBody([]byte(`<t:Ping xmlns:t="urn:test">`+strings.Repeat("x", 64<<10)+`</t:Ping>`)))
	tr := unixsock.NewTransport(server)

	tests := []struct {
		name string
		call func() error
		want error
		text string
	}{
		{"call too large", func() error { _, err := tr.RoundTrip(t.Context(), big); return err }, unixsock.ErrRefused, "over the limit of 1024"},
		{"send too large", func() error { big.To = inbox; return tr.Send(t.Context(), big) }, unixsock.ErrRefused, "over the limit of 1024"},
		{"send to a server", func() error { m := request("x"); m.To = server; return tr.Send(t.Context(), m) }, unixsock.ErrRefused, "answers calls"},
		{"call to an inbox", func() error { _, err := unixsock.NewTransport(inbox).RoundTrip(t.Context(), request("x")); return err }, unixsock.ErrRefused, "is an inbox"},
		{"action with a newline", func() error {
			m := request("x")
			m.Action = "urn:a\r\nb"
			_, err := tr.RoundTrip(t.Context(), m)
			return err
		}, unixsock.ErrProtocol, "control character"},
		{"action too long", func() error {
			m := request("x")
			m.Action = strings.Repeat("a", unixsock.MaxActionLen+1)
			_, err := tr.RoundTrip(t.Context(), m)
			return err
		}, unixsock.ErrProtocol, "action of 4097 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			require.ErrorIs(t, err, tt.want)
			assert.Contains(t, err.Error(), tt.text)
		})
	}
}

// TestAddresses: what is and is not an address.
func TestAddresses(t *testing.T) {
	tests := []struct {
		addr, path string
		ok         bool
	}{
		{"unix:/run/x.sock", "/run/x.sock", true},
		{"unix:relative.sock", "relative.sock", true},
		{"unix:", "", false},
		{"/run/x.sock", "", false},
		{"nats:orders", "", false},
		{"unix:/run/\x00.sock", "", false},
		{"unix:/" + strings.Repeat("a", 103), "", false},
	}
	for _, tt := range tests {
		t.Run(tt.addr, func(t *testing.T) {
			path, err := unixsock.ParseAddress(tt.addr)
			if !tt.ok {
				require.ErrorIs(t, err, unixsock.ErrAddress)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.path, path)
			assert.Equal(t, tt.addr, unixsock.Address(path))
		})
	}
	t.Run("send with no address", func(t *testing.T) {
		err := unixsock.NewTransport("").Send(t.Context(), request("x"))
		require.ErrorIs(t, err, unixsock.ErrAddress)
	})
	t.Run("call with no address", func(t *testing.T) {
		_, err := unixsock.NewTransport("").RoundTrip(t.Context(), request("x"))
		require.ErrorIs(t, err, unixsock.ErrAddress)
	})
	t.Run("nobody listening", func(t *testing.T) {
		addr := unixsock.Address(filepath.Join(shortDir(t), "none.sock"))
		_, err := unixsock.NewTransport(addr).RoundTrip(t.Context(), request("x"))
		require.Error(t, err)
		assert.Contains(t, err.Error(), "unixsock: round trip")
	})
}

// TestListen: a socket file left by a dead process is replaced; a socket
// someone listens on is not taken over.
func TestListen(t *testing.T) {
	dir := shortDir(t)
	addr := unixsock.Address(filepath.Join(dir, "s.sock"))
	ln, err := unixsock.Listen(addr)
	require.NoError(t, err)
	_, err = unixsock.Listen(addr)
	require.Error(t, err, "a second listener on a live socket")
	assert.Contains(t, err.Error(), "someone is listening there already")
	ln.(*net.UnixListener).SetUnlinkOnClose(false) // as a crashed process leaves it
	require.NoError(t, ln.Close())
	_, err = os.Lstat(filepath.Join(dir, "s.sock"))
	require.NoError(t, err, "the stale socket file is there")
	ln, err = unixsock.Listen(addr)
	require.NoError(t, err, "a stale socket is replaced")
	require.NoError(t, ln.Close())
	_, err = unixsock.Listen("tcp:127.0.0.1:1")
	require.ErrorIs(t, err, unixsock.ErrAddress)
}

// TestSlowAndTruncatedPeers: a peer that stops in the middle of a frame is
// cut off after WithIOTimeout, and one that hangs up in the middle is logged;
// neither is answered, stored or able to hold the server.
func TestSlowAndTruncatedPeers(t *testing.T) {
	var logs syncBuffer
	log, timeout := logTo(&logs), unixsock.WithIOTimeout(100*time.Millisecond)
	server := startServer(t, core.HandlerFunc(echo), log, timeout)
	in, inbox := startInbox(t, shortDir(t), log, timeout)
	peers := []struct {
		name, addr string
		frame      []byte
	}{
		{"server", server, rawFrame('C', "urn:a", envelope("", echoBody))},
		{"inbox", inbox, rawFrame('S', "urn:a", envelope("", echoBody))},
	}
	for _, p := range peers {
		for _, cut := range []int{4, 9, 12, len(p.frame) - 1} {
			for _, hangUp := range []bool{false, true} {
				name := fmt.Sprintf("%s/slow/%d", p.name, cut)
				if hangUp {
					name = fmt.Sprintf("%s/truncated/%d", p.name, cut)
				}
				t.Run(name, func(t *testing.T) {
					path, _ := unixsock.ParseAddress(p.addr)
					conn, err := net.Dial("unix", path)
					require.NoError(t, err)
					defer conn.Close()
					_, err = conn.Write(p.frame[:cut])
					require.NoError(t, err)
					if hangUp {
						require.NoError(t, conn.(*net.UnixConn).CloseWrite())
					}
					require.NoError(t, conn.SetReadDeadline(time.Now().Add(10*time.Second)))
					n, err := conn.Read(make([]byte, 16))
					assert.Zero(t, n, "an answer to half a frame")
					assert.True(t, errors.Is(err, io.EOF) || isReset(err), "the server should hang up, got %v", err)
				})
			}
		}
	}
	assert.Contains(t, logs.String(), "peer too slow")
	assert.Contains(t, logs.String(), "frame cut short")
	assert.Zero(t, in.Len())
}

// isReset reports a connection reset by the peer.
func isReset(err error) bool {
	return errors.Is(err, syscall.ECONNRESET)
}
