package smtp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"

	"net"
	"net/textproto"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
)

// scriptServer is an SMTP server for the client's tests. It answers each
// command line with answer(line) (a DATA's "354" is followed by reading the
// data up to its dot). Without pipelining it records a violation whenever a
// command arrives before the reply to the one before (the client sent it in
// the same write).
type scriptServer struct {
	addr       string
	pipelining bool
	ext        string // more EHLO lines ("AUTH LOGIN")
	answer     func(cmd string) string

	mu         sync.Mutex
	log        []string // commands, and "DATA:<the data as sent>"
	violations int
	sessions   int
	closedBy   []string // how each session ended: "QUIT", "EOF"
}

func newScriptServer(t *testing.T, pipelining bool, answer func(cmd string) string) *scriptServer {
	return newScriptServerExt(t, pipelining, "", answer)
}

func newScriptServerExt(t *testing.T, pipelining bool, ext string, answer func(cmd string) string) *scriptServer {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ss := &scriptServer{addr: l.Addr().String(), pipelining: pipelining, ext: ext, answer: answer}
	var wg sync.WaitGroup
	t.Cleanup(func() { l.Close(); wg.Wait() })
	wg.Go(func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			wg.Go(func() { ss.serve(c) })
		}
	})
	return ss
}

func (ss *scriptServer) serve(c net.Conn) {
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	ss.mu.Lock()
	ss.sessions++
	ss.mu.Unlock()
	end := func(how string) {
		ss.mu.Lock()
		ss.closedBy = append(ss.closedBy, how)
		ss.mu.Unlock()
	}
	br := bufio.NewReader(c)
	c.Write([]byte("220 script ESMTP\r\n"))
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			end("EOF")
			return
		}
		line = strings.TrimRight(line, "\r\n")
		ss.mu.Lock()
		ss.log = append(ss.log, line)
		if !ss.pipelining && br.Buffered() > 0 {
			ss.violations++
		}
		ss.mu.Unlock()
		verb := strings.ToUpper(strings.Fields(line + " x")[0])
		var reply string
		switch verb {
		case "EHLO":
			reply = "250-script\r\n"
			if ss.ext != "" {
				reply += "250-" + ss.ext + "\r\n"
			}
			if ss.pipelining {
				reply += "250-PIPELINING\r\n"
			}
			reply += "250 SIZE 1000000"
		case "QUIT":
			c.Write([]byte("221 2.0.0 bye\r\n"))
			end("QUIT")
			return
		default:
			reply = ss.answer(line)
		}
		c.Write([]byte(reply + "\r\n"))
		if verb == "DATA" && strings.HasPrefix(reply, "354") {
			data, err := textproto.NewReader(br).ReadDotBytes()
			if err != nil {
				end("EOF")
				return
			}
			ss.mu.Lock()
			ss.log = append(ss.log, "DATA:"+string(data))
			ss.mu.Unlock()
			c.Write([]byte("250 2.0.0 OK: queued as x\r\n"))
		}
	}
}

func (ss *scriptServer) snapshot() (log []string, violations, sessions int, closedBy []string) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return append([]string(nil), ss.log...), ss.violations, ss.sessions, append([]string(nil), ss.closedBy...)
}

func acceptAll(cmd string) string {
	switch strings.ToUpper(cmd[:4]) {
	case "DATA":
		return "354 go ahead"
	case "RSET":
		return "250 2.0.0 reset"
	}
	return "250 2.0.0 OK"
}

func testMessage(text string) *core.Message {
	m := core.NewMessage(core.V12, core.RawBody([]byte(`<p:t xmlns:p="urn:test">`+text+`</p:t>`)))
	m.To, m.Action = "mailto:soap@example.test", "urn:test"
	return m
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// TestClientWithoutPipelining: a server that does not offer PIPELINING
// gets one command at a time (and DATA, not BDAT, though it offers
// CHUNKING), and the mails arrive whole.
func TestClientWithoutPipelining(t *testing.T) {
	ss := newScriptServerExt(t, false, "CHUNKING", acceptAll)
	s, err := NewSender(ss.addr, "sender@example.test")
	require.NoError(t, err)
	for i := range 3 {
		require.NoError(t, s.Send(testCtx(t), testMessage(strings.Repeat("x", i*500))))
	}
	require.NoError(t, s.Close())
	log, violations, sessions, _ := ss.snapshot()
	assert.Zero(t, violations, "commands sent before the reply to the one before: %q", log)
	assert.Equal(t, 1, sessions)
	var mails int
	for _, l := range log {
		if strings.HasPrefix(l, "DATA:") {
			mails++
			assert.True(t, strings.HasSuffix(l, "</soap:Envelope>\n"), "%q", l)
		}
	}
	assert.Equal(t, 3, mails)
	assert.NotEmpty(t, findPrefix(log, "MAIL FROM:<sender@example.test> SIZE="), "SIZE declared: %q", log)
}

func findPrefix(log []string, prefix string) string {
	for _, l := range log {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}

// TestClientPipelines: against the real server (go-smtp, which offers
// PIPELINING and CHUNKING), MAIL, RCPT and BDAT with the whole mail leave
// in one write: the server reads them in one piece.
func TestClientPipelines(t *testing.T) {
	mb, err := OpenMaildir(t.TempDir())
	require.NoError(t, err)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	rl := &readLog{Listener: l}
	ctx, cancel := context.WithCancel(t.Context())
	srv := NewServer(l.Addr().String(), mb, WithAddresses("soap@example.test"))
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, rl) }()
	t.Cleanup(func() { cancel(); <-done })

	s, err := NewSender(l.Addr().String(), "sender@example.test")
	require.NoError(t, err)
	defer s.Close()
	require.NoError(t, s.Send(testCtx(t), testMessage("one")))
	require.NoError(t, s.Send(testCtx(t), testMessage("two")))
	reads := rl.reads()
	var together int
	for _, r := range reads {
		if strings.HasPrefix(r, "MAIL FROM:<sender@example.test>") && strings.Contains(r, "\r\nRCPT TO:<soap@example.test>\r\nBDAT ") &&
			strings.HasSuffix(r, "</soap:Envelope>\r\n") {
			together++
		}
	}
	assert.Equal(t, 2, together, "MAIL, RCPT, BDAT and the mail in one read, for each mail: %q", reads)

	// A mail over maxBDAT waits for the replies to MAIL and RCPT: DATA.
	require.NoError(t, s.Send(testCtx(t), testMessage(strings.Repeat("x", maxBDAT))))
	var data int
	for _, r := range rl.reads()[len(reads):] {
		if strings.HasPrefix(r, "MAIL FROM:<sender@example.test>") && strings.HasSuffix(r, "\r\nRCPT TO:<soap@example.test>\r\nDATA\r\n") {
			data++
		}
	}
	assert.Equal(t, 1, data, "MAIL, RCPT and DATA in one read for the large mail")
	names, err := listNames(mb.Path(FolderNew, ""))
	require.NoError(t, err)
	assert.Len(t, names, 3)
}

// readLog records what a server's sessions read.
type readLog struct {
	net.Listener
	mu  sync.Mutex
	log []string
}

func (rl *readLog) Accept() (net.Conn, error) {
	c, err := rl.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &loggedConn{Conn: c, rl: rl}, nil
}

func (rl *readLog) reads() []string {
	rl.mu.Lock()
	defer rl.mu.Unlock()
	return append([]string(nil), rl.log...)
}

type loggedConn struct {
	net.Conn
	rl *readLog
}

func (c *loggedConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.rl.mu.Lock()
		c.rl.log = append(c.rl.log, string(p[:n]))
		c.rl.mu.Unlock()
	}
	return n, err
}

// TestClientPipelinedRefusals: a refusal in the middle of a pipelined
// group is reported for the command refused, the replies after it are
// read, and the session goes on after RSET; a server that takes DATA after
// refusing the recipient has its session closed without data.
func TestClientPipelinedRefusals(t *testing.T) {
	tests := []struct {
		name     string
		answer   func(string) string
		cmd      string
		code     int
		enhanced string
		reused   bool // the session serves the next mail
	}{
		{"MAIL", func(c string) string {
			switch c[:4] {
			case "MAIL":
				return "552 5.3.4 too big"
			case "RCPT", "DATA":
				return "503 5.5.1 bad sequence"
			}
			return acceptAll(c)
		}, "MAIL", 552, "5.3.4", true},
		{"RCPT", func(c string) string {
			switch c[:4] {
			case "RCPT":
				return "550 5.1.1 no such mailbox"
			case "DATA":
				return "554 5.5.1 no valid recipients"
			}
			return acceptAll(c)
		}, "RCPT", 550, "5.1.1", true},
		{"DATA", func(c string) string {
			if c[:4] == "DATA" {
				return "451 4.3.0 try later"
			}
			return acceptAll(c)
		}, "DATA", 451, "4.3.0", true},
		{"DATAAfterRefusal", func(c string) string {
			if c[:4] == "RCPT" {
				return "550 5.1.1 no such mailbox"
			}
			return acceptAll(c) // DATA: 354, wrongly
		}, "RCPT", 550, "5.1.1", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var refuse sync.Mutex
			refusing := true
			ss := newScriptServer(t, true, func(c string) string {
				refuse.Lock()
				defer refuse.Unlock()
				if refusing {
					return tt.answer(c)
				}
				return acceptAll(c)
			})
			s, err := NewSender(ss.addr, "sender@example.test", WithRetry(1, 0))
			require.NoError(t, err)
			defer s.Close()
			err = s.Send(testCtx(t), testMessage("x"))
			var se *StatusError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, tt.cmd, se.Command)
			assert.Equal(t, tt.code, se.Code)
			assert.Equal(t, tt.enhanced, se.Enhanced)
			refuse.Lock()
			refusing = false
			refuse.Unlock()
			require.NoError(t, s.Send(testCtx(t), testMessage("y")))
			log, _, sessions, closedBy := ss.snapshot()
			if tt.reused {
				assert.Equal(t, 1, sessions, "%q", log)
				assert.Contains(t, log, "RSET")
			} else {
				assert.Equal(t, 2, sessions, "%q", log)
				require.Eventually(t, func() bool {
					_, _, _, closedBy = ss.snapshot()
					return len(closedBy) > 0
				}, 10*time.Second, time.Millisecond)
				assert.Equal(t, []string{"EOF"}, closedBy, "the first session closed without data")
			}
			var mails []string
			for _, l := range log {
				if strings.HasPrefix(l, "DATA:") {
					mails = append(mails, l)
				}
			}
			require.Len(t, mails, 1, "only the second mail's data was sent")
			assert.Contains(t, mails[0], ">y</p:t>")
		})
	}
}

// TestClientReplyLimits: an endless or malformed reply is an error, not a
// hang or unbounded memory.
func TestClientReplyLimits(t *testing.T) {
	for name, in := range map[string]string{
		"LongLine":       "250 " + strings.Repeat("x", maxReplyLine) + "\r\n",
		"ManyLines":      strings.Repeat("250-x\r\n", maxReplyLines+1) + "250 x\r\n",
		"NoCode":         "hello\r\n",
		"MixedCodes":     "250-a\r\n251 b\r\n",
		"BadSeparator":   "250+x\r\n",
		"CutShort":       "250-a\r\n",
		"CodeOutOfRange": "650 x\r\n",
	} {
		t.Run(name, func(t *testing.T) {
			cl := &client{br: bufio.NewReaderSize(strings.NewReader(in), maxReplyLine)}
			_, err := cl.readReply()
			assert.Error(t, err)
		})
	}
	cl := &client{br: bufio.NewReaderSize(strings.NewReader("250-first\r\n250-2.0.0 second\r\n250 2.1.0 third\r\n550 5.1.1 gone\r\n354\r\n"), maxReplyLine)}
	r, err := cl.readReply()
	require.NoError(t, err)
	assert.Equal(t, reply{code: 250, text: "first\n2.0.0 second\n2.1.0 third"}, r)
	r, err = cl.readReply()
	require.NoError(t, err)
	assert.Equal(t, reply{code: 550, enhanced: "5.1.1", text: "gone"}, r)
	r, err = cl.readReply()
	require.NoError(t, err)
	assert.Equal(t, reply{code: 354}, r)
}

// dotWriterBytes is what net/textproto's DotWriter (go-smtp's client's)
// writes for data.
func dotWriterBytes(data []byte) []byte {
	var b bytes.Buffer
	w := textproto.NewWriter(bufio.NewWriter(&b))
	dw := w.DotWriter()
	dw.Write(data)
	dw.Close()
	return b.Bytes()
}

func TestAppendDotStuffed(t *testing.T) {
	for _, in := range []string{"", "a", "a\n", "a\r\n", ".a\n.b", "a\r", "a\r\r\n.", "\n.\n", ".\r\n.\r\n", "x\ry\n.z"} {
		assert.Equal(t, string(dotWriterBytes([]byte(in))), string(appendDotStuffed(nil, []byte(in))), "%q", in)
	}
	assert.Equal(t, "pre\r\n.\r\n", string(appendDotStuffed([]byte("pre"), nil)), "appends")
}

// FuzzAppendDotStuffed: the data goes on the wire exactly as
// net/textproto's DotWriter would write it, and reads back (ReadDotBytes)
// as the data with CRLF line ends.
func FuzzAppendDotStuffed(f *testing.F) {
	for _, s := range []string{"", ".", "a\r\nb", "..\n.\r\r\n", "x\r"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got := appendDotStuffed(nil, data)
		require.Equal(t, dotWriterBytes(data), got)
		// BDAT's form is the same without the doubled dots and the end.
		plain := appendMessage(nil, data, false)
		var stuffed []byte
		for i, c := range plain {
			if c == '.' && (i == 0 || plain[i-1] == '\n') {
				stuffed = append(stuffed, '.')
			}
			stuffed = append(stuffed, c)
		}
		require.Equal(t, string(got), string(stuffed)+".\r\n")
		_, err := textproto.NewReader(bufio.NewReader(bytes.NewReader(got))).ReadDotBytes()
		require.NoError(t, err)
	})
}

// FuzzReadReply: no input makes the reply reader panic or read past its
// bounds.
func FuzzReadReply(f *testing.F) {
	for _, s := range []string{"250 ok\r\n", "250-a\r\n250 b\r\n", "550 5.1.1 x\r\n", "354\r\n", "2\r\n", "999 x\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cl := &client{br: bufio.NewReaderSize(bytes.NewReader(data), maxReplyLine)}
		for range 4 {
			r, err := cl.readReply()
			if err != nil {
				return
			}
			require.True(t, r.code >= 200 && r.code <= 599)
			require.LessOrEqual(t, len(r.text), len(data))
		}
	})
}

// TestClientAuthLogin: with only AUTH LOGIN offered, the client answers
// its challenges; with no AUTH offered, ErrNoAuth.
func TestClientAuthLogin(t *testing.T) {
	b := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	var mu sync.Mutex
	authed := false
	ss := newScriptServerExt(t, true, "AUTH LOGIN", func(c string) string {
		mu.Lock()
		defer mu.Unlock()
		switch c {
		case "AUTH LOGIN " + b("alice"):
			return "334 " + b("Password:")
		case b("pw"):
			authed = true
			return "235 2.7.0 ok"
		}
		if strings.HasPrefix(c, "MAIL") && !authed {
			return "530 5.7.0 auth first"
		}
		return acceptAll(c)
	})
	s, err := NewSender(ss.addr, "sender@example.test", WithCredentials("alice", "pw"))
	require.NoError(t, err)
	defer s.Close()
	require.NoError(t, s.Send(testCtx(t), testMessage("x")))

	plain := newScriptServer(t, true, acceptAll)
	s2, err := NewSender(plain.addr, "sender@example.test", WithCredentials("alice", "pw"))
	require.NoError(t, err)
	defer s2.Close()
	require.ErrorIs(t, s2.Send(testCtx(t), testMessage("x")), ErrNoAuth)
}
