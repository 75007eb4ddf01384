package smtp_test

import (
	"context"
	"errors"
	"net"
	"net/mail"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soapsmtp "github.com/soapwire/soapwire/bindings/smtp"
	"github.com/soapwire/soapwire/core"
)

// countedServer starts a server whose accepted connections are counted.
func countedServer(t *testing.T, opts ...soapsmtp.ServerOption) (*testServer, *countingListener) {
	t.Helper()
	mb, err := soapsmtp.OpenMaildir(t.TempDir())
	require.NoError(t, err)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	cl := &countingListener{Listener: l}
	return startServerWith(t, mb, cl, opts...), cl
}

// TestSenderRefusesBeforeSending: header injection and unusable addresses
// are refused before any connection is made.
func TestSenderRefusesBeforeSending(t *testing.T) {
	ts, conns := countedServer(t)
	s := newSender(t, ts.addr)
	tests := []struct {
		name string
		edit func(m *core.Message)
		want error
	}{
		{"ToCRLF", func(m *core.Message) { m.To = "mailto:" + ts.box + "\r\nBcc: victim@example.org" }, soapsmtp.ErrHeaderInjection},
		{"ToEncodedCRLF", func(m *core.Message) { m.To = "mailto:" + ts.box + "%0D%0ABcc:%20victim@example.org" }, soapsmtp.ErrHeaderInjection},
		{"ToNameLF", func(m *core.Message) { m.To = "mailto:%22x%0Ay%22%20%3C" + ts.box + "%3E" }, soapsmtp.ErrHeaderInjection},
		{"SubjectLF", func(m *core.Message) { m.SetMeta(soapsmtp.MetaSubject, "order\nBcc: victim@example.org") }, soapsmtp.ErrHeaderInjection},
		{"ActionCR", func(m *core.Message) { m.Action = "urn:x\rBcc: victim@example.org" }, soapsmtp.ErrHeaderInjection},
		{"Action11CRLF", func(m *core.Message) {
			m.Envelope.Version = core.V11
			m.Action = "urn:x\r\nBcc: victim@example.org"
		}, soapsmtp.ErrHeaderInjection},
		{"ToNotMailto", func(m *core.Message) { m.To = "https://example.org/soap" }, soapsmtp.ErrAddress},
		{"ToList", func(m *core.Message) { m.To = "mailto:a@example.org,b@example.org" }, soapsmtp.ErrAddress},
		{"ToEmpty", func(m *core.Message) { m.To = "" }, soapsmtp.ErrAddress},
		{"ToNonASCII", func(m *core.Message) { m.To = "mailto:müller@example.org" }, soapsmtp.ErrAddress},
		{"LongAction", func(m *core.Message) { m.Action = "urn:" + strings.Repeat("a", 1000) }, soapsmtp.ErrHeaderTooLong},
		{"LongSubject", func(m *core.Message) { m.SetMeta(soapsmtp.MetaSubject, strings.Repeat("s", 300)) }, soapsmtp.ErrHeaderTooLong},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := ping(core.V12, "x")
			m.To = ts.mailto
			tt.edit(m)
			require.ErrorIs(t, s.Send(ctxT(t), m), tt.want)
		})
	}
	assert.Zero(t, conns.n.Load(), "nothing refused may reach the server")
	assert.Empty(t, files(t, ts.dir, soapsmtp.FolderNew))

	for _, from := range []string{"a@example.org\r\nBcc: v@example.org", "not an address", "a@example.org, b@example.org"} {
		_, err := soapsmtp.NewSender(ts.addr, from)
		assert.Error(t, err, from)
	}
}

// TestSenderPermanentRefusal: a 5xx is a *StatusError at once, not tried
// again, and the session stays usable.
func TestSenderPermanentRefusal(t *testing.T) {
	logs := &logRecorder{}
	ts, conns := countedServer(t, soapsmtp.WithLogger(logs.logger()), soapsmtp.WithMaxMessageBytes(4<<10))
	s := newSender(t, ts.addr)
	tests := []struct {
		name, cmd string
		code      int
		enhanced  string
		edit      func(m *core.Message)
	}{
		{"UnknownRecipient", "RCPT", 550, "5.1.1", func(m *core.Message) { m.To = "mailto:nobody@example.test" }},
		{"Oversize", "MAIL", 552, "5.3.4", func(m *core.Message) {
			m.Envelope.Body = core.RawBody([]byte(`<p:big xmlns:p="urn:test">` + strings.Repeat("x", 8<<10) + `</p:big>`))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := ping(core.V12, "x")
			m.To = ts.mailto
			tt.edit(m)
			err := s.Send(ctxT(t), m)
			require.ErrorIs(t, err, soapsmtp.ErrRefused)
			var se *soapsmtp.StatusError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, tt.cmd, se.Command)
			assert.Equal(t, tt.code, se.Code)
			assert.Equal(t, tt.enhanced, se.Enhanced)
			assert.False(t, se.Temporary())
		})
	}
	assert.Equal(t, 1, logs.count("RCPT refused"), "a 5xx is not tried again")
	m := ping(core.V12, "after")
	m.To = ts.mailto
	require.NoError(t, s.Send(ctxT(t), m))
	assert.EqualValues(t, 1, conns.n.Load(), "one session served the refusals and the mail after them")
}

// breakMaildir turns tmp/ into a file, so deliveries fail with 451; the
// returned func repairs it.
func breakMaildir(t *testing.T, dir string) (repair func()) {
	t.Helper()
	tmp := filepath.Join(dir, soapsmtp.FolderTmp)
	require.NoError(t, os.Remove(tmp))
	require.NoError(t, os.WriteFile(tmp, nil, 0o600))
	var once sync.Once
	return func() {
		once.Do(func() {
			os.Remove(tmp)
			os.Mkdir(tmp, 0o700)
		})
	}
}

// TestSenderRetriesTemporary: a 4xx is tried again with backoff; one that
// lasts through the tries is a *StatusError with ErrTemporary.
func TestSenderRetriesTemporary(t *testing.T) {
	t.Run("Recovers", func(t *testing.T) {
		logs := &logRecorder{}
		ts := startServer(t, t.TempDir(), soapsmtp.WithLogger(logs.logger()))
		repair := breakMaildir(t, ts.dir)
		logs.setHook(func(msg string) {
			if strings.Contains(msg, "mail not stored") {
				repair() // the disk is back after the first 451
			}
		})
		slogs := &logRecorder{}
		s := newSender(t, ts.addr, soapsmtp.WithRetry(5, 20*time.Millisecond), soapsmtp.WithLogger(slogs.logger()))
		m := ping(core.V12, "again")
		m.To = ts.mailto
		require.NoError(t, s.Send(ctxT(t), m))
		assert.Equal(t, 1, slogs.count("retrying"))
		assert.Len(t, files(t, ts.dir, soapsmtp.FolderNew), 1)
	})
	t.Run("GivesUp", func(t *testing.T) {
		logs := &logRecorder{}
		ts := startServer(t, t.TempDir(), soapsmtp.WithLogger(logs.logger()))
		breakMaildir(t, ts.dir)
		s := newSender(t, ts.addr, soapsmtp.WithRetry(3, 5*time.Millisecond))
		m := ping(core.V12, "never")
		m.To = ts.mailto
		err := s.Send(ctxT(t), m)
		require.ErrorIs(t, err, soapsmtp.ErrTemporary)
		var se *soapsmtp.StatusError
		require.ErrorAs(t, err, &se)
		assert.Equal(t, 451, se.Code)
		assert.Equal(t, "DATA", se.Command)
		assert.Equal(t, 3, logs.count("mail not stored"), "tries")
	})
}

// TestSenderReusesSessions: mails share pooled sessions, at most
// WithMaxSessions at once, and a session the server closed is replaced
// without an error.
func TestSenderReusesSessions(t *testing.T) {
	t.Run("Sequential", func(t *testing.T) {
		ts, conns := countedServer(t)
		sendN(t, newSender(t, ts.addr), ts, 10)
		assert.EqualValues(t, 1, conns.n.Load())
	})
	t.Run("Concurrent", func(t *testing.T) {
		ts, conns := countedServer(t)
		s := newSender(t, ts.addr, soapsmtp.WithMaxSessions(3))
		var wg sync.WaitGroup
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 5 {
					m := ping(core.V12, "c")
					m.To = ts.mailto
					assert.NoError(t, s.Send(ctxT(t), m))
				}
			}()
		}
		wg.Wait()
		assert.LessOrEqual(t, conns.n.Load(), int64(3))
		assert.Len(t, files(t, ts.dir, soapsmtp.FolderNew), 40)
	})
	t.Run("ServerClosedIdleSession", func(t *testing.T) {
		ts, conns := countedServer(t, soapsmtp.WithIOTimeout(100*time.Millisecond))
		s := newSender(t, ts.addr, soapsmtp.WithRetry(1, 0)) // no retry: the stale session must be replaced, not retried
		sendN(t, s, ts, 1)
		time.Sleep(300 * time.Millisecond) // the server drops the idle session
		sendN(t, s, ts, 1)
		assert.EqualValues(t, 2, conns.n.Load())
	})
}

// TestSenderContext: ctx's deadline and cancellation stop a Send that
// waits on a server.
func TestSenderContext(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { l.Close() })
	var held []net.Conn
	var mu sync.Mutex
	go func() { // accepts and never greets
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			held = append(held, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range held {
			c.Close()
		}
	})
	s := newSender(t, l.Addr().String())
	m := ping(core.V12, "stalled")
	m.To = "mailto:soap@example.test"

	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	err = s.Send(ctx, m)
	require.ErrorIs(t, err, context.DeadlineExceeded)

	ctx, cancel = context.WithCancel(t.Context())
	time.AfterFunc(100*time.Millisecond, cancel)
	err = s.Send(ctx, m)
	require.ErrorIs(t, err, context.Canceled)
}

// TestSenderMailForm: the mail is RFC 5322 + MIME as the W3C Email
// Binding has it, with the loop headers.
func TestSenderMailForm(t *testing.T) {
	ts := startServer(t, t.TempDir())
	s := newSender(t, ts.addr)
	tests := []struct {
		name      string
		version   core.Version
		relatesTo string
		body      string
		ctype     string
		cte       string
	}{
		{"SOAP12", core.V12, "", "short", `application/soap+xml; action="urn:test:ping"; charset=utf-8`, "7bit"},
		{"SOAP11Reply", core.V11, "urn:uuid:11111111-2222-4333-8444-555555555555", "short", "text/xml; charset=utf-8", "7bit"},
		{"LongLine", core.V12, "", strings.Repeat("long=line ", 200), `application/soap+xml; action="urn:test:ping"; charset=utf-8`, "quoted-printable"},
		{"NonASCII", core.V11, "", "l\u00e4nger", "text/xml; charset=utf-8", "8bit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, f := range files(t, ts.dir, soapsmtp.FolderNew) {
				os.Remove(filepath.Join(ts.dir, soapsmtp.FolderNew, f))
			}
			m := ping(tt.version, tt.body)
			m.To, m.RelatesTo = ts.mailto, tt.relatesTo
			require.NoError(t, s.Send(ctxT(t), m))
			names := files(t, ts.dir, soapsmtp.FolderNew)
			require.Len(t, names, 1)
			f, err := os.Open(filepath.Join(ts.dir, soapsmtp.FolderNew, names[0]))
			require.NoError(t, err)
			defer f.Close()
			msg, err := mail.ReadMessage(f)
			require.NoError(t, err)
			h := msg.Header
			assert.Equal(t, "<sender@example.test>", h.Get("From"))
			assert.Equal(t, "<"+ts.box+">", h.Get("To"))
			assert.Equal(t, "urn:test:ping", h.Get("Subject"))
			_, err = h.Date()
			assert.NoError(t, err, "Date")
			assert.Equal(t, soapsmtp.MessageIDHeader(m.ID), h.Get("Message-ID"))
			assert.Equal(t, "1.0", h.Get("MIME-Version"))
			assert.Equal(t, tt.ctype, h.Get("Content-Type"))
			assert.Equal(t, "sender@example.test", h.Get("X-Loop"))
			assert.Equal(t, tt.cte, h.Get("Content-Transfer-Encoding"))
			if tt.version == core.V11 {
				assert.Equal(t, `"urn:test:ping"`, h.Get("SOAPAction"))
			} else {
				assert.Empty(t, h["Soapaction"])
			}
			if tt.relatesTo != "" {
				want := soapsmtp.MessageIDHeader(tt.relatesTo)
				assert.Equal(t, want, h.Get("In-Reply-To"))
				assert.Equal(t, want, h.Get("References"))
				assert.Equal(t, "auto-replied", h.Get("Auto-Submitted"))
				assert.Equal(t, want, m.Meta[soapsmtp.MetaInReplyTo])
			} else {
				assert.Empty(t, h["In-Reply-To"])
				assert.Empty(t, h["Auto-Submitted"], "a request must be answerable")
			}
			// And it reads back.
			d, err := newReceiver(t, ts.mb).Receive(ctxT(t))
			require.NoError(t, err)
			assert.Equal(t, m.ID, d.Message().ID)
			assert.Contains(t, bodyText(t, d.Message()), strings.TrimSpace(tt.body))
			require.NoError(t, d.Ack(ctxT(t)))
		})
	}
}

// TestSenderGivesAnID: a message without an ID gets one, mirrored in the
// Message-ID.
func TestSenderGivesAnID(t *testing.T) {
	ts := startServer(t, t.TempDir())
	m := ping(core.V12, "x")
	m.To = ts.mailto
	require.NoError(t, newSender(t, ts.addr).Send(ctxT(t), m))
	require.NotEmpty(t, m.ID)
	assert.Equal(t, soapsmtp.MessageIDHeader(m.ID), m.Meta[soapsmtp.MetaMessageID])
}

// TestSenderClosed: Send after Close fails with ErrClosed.
func TestSenderClosed(t *testing.T) {
	ts := startServer(t, t.TempDir())
	s := newSender(t, ts.addr)
	sendN(t, s, ts, 1)
	require.NoError(t, s.Close())
	m := ping(core.V12, "late")
	m.To = ts.mailto
	err := s.Send(ctxT(t), m)
	require.ErrorIs(t, err, soapsmtp.ErrClosed)
	assert.False(t, errors.Is(err, soapsmtp.ErrRefused))
}

// TestSenderAuth: WithCredentials authenticates; wrong credentials are a
// *StatusError for AUTH.
func TestSenderAuth(t *testing.T) {
	ts := startServer(t, t.TempDir(), soapsmtp.WithAuth(func(_ context.Context, u, p string) bool { return u == "alice" && p == "pw" }))
	m := ping(core.V12, "x")
	m.To = ts.mailto
	require.NoError(t, newSender(t, ts.addr, soapsmtp.WithCredentials("alice", "pw")).Send(ctxT(t), m))

	err := newSender(t, ts.addr, soapsmtp.WithCredentials("alice", "wrong")).Send(ctxT(t), m)
	var se *soapsmtp.StatusError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, "AUTH", se.Command)
	assert.Equal(t, 535, se.Code)

	err = newSender(t, ts.addr).Send(ctxT(t), m)
	require.ErrorAs(t, err, &se)
	assert.Equal(t, "MAIL", se.Command)
	assert.Equal(t, 530, se.Code)
	assert.Len(t, files(t, ts.dir, soapsmtp.FolderNew), 1)
}
