package smtp_test

import (
	"bufio"
	"context"
	"crypto/tls"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	gosmtp "github.com/emersion/go-smtp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soapsmtp "github.com/soapwire/soapwire/bindings/smtp"
	"github.com/soapwire/soapwire/core"
)

// TestServerRefusals checks each refusal's reply code, and that nothing
// refused reaches new/.
func TestServerRefusals(t *testing.T) {
	mail := func(n int) string {
		return "From: a@example.test\r\nContent-Type: application/soap+xml\r\n\r\n" + strings.Repeat(strings.Repeat("x", 70)+"\r\n", n/72+1)
	}
	tests := []struct {
		name string
		send func(ts *testServer) error
		code int
	}{
		{"UnknownRecipient", func(ts *testServer) error {
			return rawMail(ts.addr, "a@example.test", []string{"nobody@example.test"}, mail(10))
		}, 550},
		{"OtherDomain", func(ts *testServer) error {
			return rawMail(ts.addr, "a@example.test", []string{strings.Replace(ts.box, "example.test", "example.org", 1)}, mail(10))
		}, 550},
		{"OversizeUndeclared", func(ts *testServer) error {
			return rawMail(ts.addr, "a@example.test", []string{ts.box}, mail(8<<10))
		}, 552},
		{"OversizeDeclared", func(ts *testServer) error {
			c, err := gosmtp.Dial(ts.addr)
			if err != nil {
				return err
			}
			defer c.Close()
			return c.Mail("a@example.test", &gosmtp.MailOptions{Size: 8 << 10})
		}, 552},
		{"TooManyRecipients", func(ts *testServer) error {
			return rawMail(ts.addr, "a@example.test", []string{ts.box, ts.box, ts.box, ts.box}, mail(10))
		}, 452},
		{"LongDataLine", func(ts *testServer) error {
			return rawMail(ts.addr, "a@example.test", []string{ts.box}, "Subject: x\r\n\r\n"+strings.Repeat("y", 1500)+"\r\n")
		}, 500},
		{"LongCommandLine", func(ts *testServer) error {
			return rawMail(ts.addr, "a"+strings.Repeat("b", 1500)+"@example.test", []string{ts.box}, mail(10))
		}, 500},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			logs := &logRecorder{}
			ts := startServer(t, t.TempDir(),
				soapsmtp.WithMaxMessageBytes(4<<10), soapsmtp.WithMaxRecipients(3),
				soapsmtp.WithMaxLineLength(1000), soapsmtp.WithLogger(logs.logger()))
			err := tt.send(ts)
			require.Error(t, err)
			assert.Equal(t, tt.code, smtpCode(err), "reply code: %v", err)
			assert.Empty(t, files(t, ts.dir, soapsmtp.FolderNew), "a refused mail reached new/")
			assert.Empty(t, files(t, ts.dir, soapsmtp.FolderTmp), "a refused mail left a file in tmp/")
		})
	}
}

// TestServerAcceptsDomainAndCase: "@domain" accepts a whole domain, and
// addresses compare case-insensitively.
func TestServerAcceptsDomainAndCase(t *testing.T) {
	ts := startServer(t, t.TempDir(), soapsmtp.WithAddresses("@soap.example.test"))
	for _, rcpt := range []string{"anyone@soap.example.test", strings.ToUpper(ts.box)} {
		require.NoError(t, rawMail(ts.addr, "a@example.test", []string{rcpt}, "Subject: x\r\n\r\nhi\r\n"), rcpt)
	}
	assert.Len(t, files(t, ts.dir, soapsmtp.FolderNew), 2)
}

// TestServerWritesBefore250: when the client hears 250 the mail is already
// in new/ (synced: see Maildir.Deliver and TestBatchCommit), tmp/ is empty,
// and the 250 names the file; in either sync mode.
func TestServerWritesBefore250(t *testing.T) {
	for _, mode := range []soapsmtp.SyncMode{soapsmtp.SyncFiles, soapsmtp.SyncFilesystem, soapsmtp.SyncJournal} {
		t.Run(mode.String(), func(t *testing.T) {
			mb, err := soapsmtp.OpenMaildir(t.TempDir(), soapsmtp.WithSyncMode(mode))
			require.NoError(t, err)
			ts := startServerOn(t, mb)
			s := newSender(t, ts.addr)
			m := ping(core.V12, "durable")
			m.To = ts.mailto
			require.NoError(t, s.Send(ctxT(t), m))
			names := files(t, ts.dir, soapsmtp.FolderNew)
			require.Len(t, names, 1)
			assert.Empty(t, files(t, ts.dir, soapsmtp.FolderTmp))
			assert.Contains(t, m.Meta[soapsmtp.MetaQueuedAs], names[0], "the 250 reply names the Maildir file")
			raw, err := os.ReadFile(filepath.Join(ts.dir, soapsmtp.FolderNew, names[0]))
			require.NoError(t, err)
			assert.True(t, strings.HasPrefix(string(raw), "Return-Path: <sender@example.test>\r\nDelivered-To: "+ts.box+"\r\nReceived: from client.example.test"), "trace headers:\n%s", raw)
		})
	}
}

// TestServerSessionLimits: a session beyond WithMaxSessions is answered 421
// at once; a session over WithSessionTimeout is answered 421 and closed,
// and one silent beyond WithIOTimeout too.
func TestServerSessionLimits(t *testing.T) {
	t.Run("Concurrent", func(t *testing.T) {
		ts := startServer(t, t.TempDir(), soapsmtp.WithMaxSessions(2), soapsmtp.WithMaxSessionsPerIP(-1)) // the total bound alone
		var open []*gosmtp.Client
		for range 2 {
			c, err := gosmtp.Dial(ts.addr)
			require.NoError(t, err)
			t.Cleanup(func() { c.Close() })
			require.NoError(t, c.Noop(), "a session within the limit")
			open = append(open, c)
		}
		line := greeting(t, ts.addr)
		assert.True(t, strings.HasPrefix(line, "421 4.3.2"), "third session: %q", line)
		require.NoError(t, open[0].Quit())
		require.Eventually(t, func() bool { return strings.HasPrefix(greeting(t, ts.addr), "220") },
			5*time.Second, 20*time.Millisecond, "a session is free again after QUIT")
	})
	t.Run("SessionTimeout", func(t *testing.T) {
		ts := startServer(t, t.TempDir(), soapsmtp.WithSessionTimeout(200*time.Millisecond))
		_, r := session(t, ts.addr)
		expectReply(t, r, "220")
		// Say nothing: the session's time runs out.
		expectReply(t, r, "421")
		_, err := r.ReadString('\n')
		assert.Error(t, err, "the server closed the session")
	})
	t.Run("IOTimeout", func(t *testing.T) {
		ts := startServer(t, t.TempDir(), soapsmtp.WithIOTimeout(200*time.Millisecond))
		conn, r := session(t, ts.addr)
		expectReply(t, r, "220")
		_, err := conn.Write([]byte("EHLO client.example.test\r\n"))
		require.NoError(t, err)
		expectReply(t, r, "250 ")
		// Silence between commands, past the IO timeout.
		expectReply(t, r, "421 4.4.2")
		_, err = r.ReadString('\n')
		assert.Error(t, err, "the server closed the session")
	})
	t.Run("DataBreaksOff", func(t *testing.T) {
		logs := &logRecorder{}
		dir := t.TempDir()
		ts := startServer(t, dir, soapsmtp.WithLogger(logs.logger()))
		conn, r := session(t, ts.addr)
		expectReply(t, r, "220")
		for _, c := range []struct{ cmd, code string }{
			{"EHLO client.example.test", "250"}, {"MAIL FROM:<a@example.test>", "250"},
			{"RCPT TO:<" + ts.box + ">", "250"}, {"DATA", "354"},
		} {
			_, err := conn.Write([]byte(c.cmd + "\r\n"))
			require.NoError(t, err)
			expectReply(t, r, c.code)
		}
		_, err := conn.Write([]byte("From: a@example.test\r\nContent-Type: text/xml\r\n\r\n<s:Envelope xmlns:s="))
		require.NoError(t, err)
		require.NoError(t, conn.Close(), "the client goes away in the middle of the data")
		require.Eventually(t, func() bool { return logs.count("smtp: mail not received") == 1 }, 5*time.Second, 10*time.Millisecond,
			"the broken transfer is logged")
		for _, folder := range []string{soapsmtp.FolderNew, soapsmtp.FolderWork, "tmp"} {
			assert.Empty(t, files(t, dir, folder), "nothing of the broken mail in %s/", folder)
		}
	})
}

// greeting connects to addr and returns the server's first line.
func greeting(t *testing.T, addr string) string {
	t.Helper()
	conn, r := session(t, addr)
	defer conn.Close()
	line, err := r.ReadString('\n')
	require.NoError(t, err)
	return line
}

// session connects to addr, with a deadline, closed when the test ends.
func session(t *testing.T, addr string) (net.Conn, *bufio.Reader) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	t.Cleanup(func() { conn.Close() })
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	return conn, bufio.NewReader(conn)
}

// expectReply reads a reply, its continuation lines ("250-…") included,
// and requires its last line to start with code.
func expectReply(t *testing.T, r *bufio.Reader, code string) {
	t.Helper()
	line, err := r.ReadString('\n')
	for err == nil && len(line) > 3 && line[3] == '-' {
		line, err = r.ReadString('\n')
	}
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(line, code), "want %s, got %q", code, line)
}

// TestServerAuth: WithAuth offers PLAIN and LOGIN and requires one of them
// before MAIL.
func TestServerAuth(t *testing.T) {
	check := func(_ context.Context, user, pass string) bool { return user == "alice" && pass == "s3cret" }
	tests := []struct {
		name string
		auth sasl.Client
		code int // of the refusal, 0: accepted
	}{
		{"None", nil, 530},
		{"PlainWrong", sasl.NewPlainClient("", "alice", "wrong"), 535},
		{"PlainOtherIdentity", sasl.NewPlainClient("bob", "alice", "s3cret"), 535},
		{"LoginWrong", sasl.NewLoginClient("alice", "nope"), 535},
		{"Plain", sasl.NewPlainClient("", "alice", "s3cret"), 0},
		{"Login", sasl.NewLoginClient("alice", "s3cret"), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := startServer(t, t.TempDir(), soapsmtp.WithAuth(check))
			c, err := gosmtp.Dial(ts.addr)
			require.NoError(t, err)
			t.Cleanup(func() { c.Close() })
			ok, mechs := c.Extension("AUTH")
			require.True(t, ok, "AUTH advertised")
			assert.Equal(t, "PLAIN LOGIN", mechs)
			if tt.auth != nil {
				err = c.Auth(tt.auth)
			}
			if err == nil {
				err = c.Mail("alice@example.test", nil)
			}
			if tt.code != 0 {
				assert.Equal(t, tt.code, smtpCode(err), "%v", err)
				return
			}
			require.NoError(t, err)
			require.NoError(t, c.Rcpt(ts.box, nil))
			w, err := c.Data()
			require.NoError(t, err)
			_, err = w.Write([]byte("Subject: hi\r\n\r\nhello\r\n"))
			require.NoError(t, err)
			require.NoError(t, w.Close())
			names := files(t, ts.dir, soapsmtp.FolderNew)
			require.Len(t, names, 1)
			raw, err := os.ReadFile(filepath.Join(ts.dir, soapsmtp.FolderNew, names[0]))
			require.NoError(t, err)
			assert.Contains(t, string(raw), "with ESMTPA", "Received header of an authenticated session")
		})
	}
}

// TestServerSTARTTLS: with WithTLS and WithRequireTLS the server refuses
// MAIL in clear text, and a Sender with WithTLS delivers over STARTTLS
// (a self-signed certificate made for the test).
func TestServerSTARTTLS(t *testing.T) {
	serverTLS, clientTLS := selfSigned(t)
	ts := startServer(t, t.TempDir(), soapsmtp.WithTLS(serverTLS), soapsmtp.WithRequireTLS(),
		soapsmtp.WithAuth(func(_ context.Context, u, p string) bool { return u == "alice" && p == "pw" }))

	t.Run("ClearTextRefused", func(t *testing.T) {
		c, err := gosmtp.Dial(ts.addr)
		require.NoError(t, err)
		t.Cleanup(func() { c.Close() })
		ok, _ := c.Extension("STARTTLS")
		assert.True(t, ok, "STARTTLS advertised")
		ok, _ = c.Extension("AUTH")
		assert.False(t, ok, "AUTH is not offered before STARTTLS")
		assert.Equal(t, 530, smtpCode(c.Mail("a@example.test", nil)))
	})
	t.Run("SenderWithTLS", func(t *testing.T) {
		s := newSender(t, ts.addr, soapsmtp.WithTLS(clientTLS), soapsmtp.WithCredentials("alice", "pw"))
		m := ping(core.V11, "secret")
		m.To = ts.mailto
		require.NoError(t, s.Send(ctxT(t), m))
		names := files(t, ts.dir, soapsmtp.FolderNew)
		require.Len(t, names, 1)
		raw, err := os.ReadFile(filepath.Join(ts.dir, soapsmtp.FolderNew, names[0]))
		require.NoError(t, err)
		assert.Contains(t, string(raw), "with ESMTPSA")
	})
	t.Run("UntrustedCertificate", func(t *testing.T) {
		_, otherCA := selfSigned(t)
		s := newSender(t, ts.addr, soapsmtp.WithTLS(otherCA)) // not retried: a certificate does not get better
		m := ping(core.V12, "x")
		m.To = ts.mailto
		err := s.Send(ctxT(t), m)
		var ce *tls.CertificateVerificationError
		require.ErrorAs(t, err, &ce)
	})
	t.Run("ServerWithoutTLS", func(t *testing.T) {
		plain := startServer(t, t.TempDir())
		s := newSender(t, plain.addr, soapsmtp.WithTLS(clientTLS))
		m := ping(core.V12, "x")
		m.To = plain.mailto
		require.ErrorIs(t, s.Send(ctxT(t), m), soapsmtp.ErrNoTLS)
		assert.Empty(t, files(t, plain.dir, soapsmtp.FolderNew))
	})
}

// TestServerShutdown: Serve returns once ctx is done, answering an idle
// session 421, and the Maildir keeps what was accepted.
func TestServerShutdown(t *testing.T) {
	ts := startServer(t, t.TempDir())
	c, err := gosmtp.Dial(ts.addr)
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	require.NoError(t, c.Noop())
	done := make(chan struct{})
	go func() { ts.shutdown(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return with an idle session open")
	}
	assert.Error(t, c.Noop(), "the idle session was closed")
	_, err = net.DialTimeout("tcp", ts.addr, time.Second)
	assert.Error(t, err, "the listener is closed")
}

// TestServerShutdownIsQuiet: a clean shutdown logs no warning or error:
// with no session ever opened, after sessions that ended, with a session
// that is idle (answered 421 and closed, as it should be) and with a
// session that sent a mail and stays.
func TestServerShutdownIsQuiet(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, ts *testServer)
	}{
		{"NoSession", func(*testing.T, *testServer) {}},
		{"SessionsEnded", func(t *testing.T, ts *testServer) {
			for range 3 {
				require.NoError(t, rawMail(ts.addr, "a@example.test", []string{ts.box}, "Subject: x\r\n\r\nhi\r\n"))
			}
		}},
		{"IdleSession", func(t *testing.T, ts *testServer) {
			c, err := gosmtp.Dial(ts.addr)
			require.NoError(t, err)
			t.Cleanup(func() { c.Close() })
			require.NoError(t, c.Noop())
		}},
		{"PooledSender", func(t *testing.T, ts *testServer) {
			s := newSender(t, ts.addr)
			m := ping(core.V12, "x")
			m.To = ts.mailto
			require.NoError(t, s.Send(ctxT(t), m))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			logs := &logRecorder{}
			ts := startServer(t, t.TempDir(), soapsmtp.WithLogger(logs.logger()))
			tt.setup(t, ts)
			ts.shutdown()
			assert.Empty(t, logs.atLeast(slog.LevelWarn), "warnings at a clean shutdown")
			assert.Equal(t, 1, logs.count("smtp: serving"), "the logger is the server's")
		})
	}
}

// TestServerMaildirFailureIs451: a Maildir that cannot be written is a
// temporary refusal, so the sender keeps the mail and tries again.
func TestServerMaildirFailureIs451(t *testing.T) {
	ts := startServer(t, t.TempDir())
	tmp := filepath.Join(ts.dir, soapsmtp.FolderTmp)
	require.NoError(t, os.Remove(tmp))
	require.NoError(t, os.WriteFile(tmp, nil, 0o600)) // tmp/ is now a file
	err := rawMail(ts.addr, "a@example.test", []string{ts.box}, "Subject: x\r\n\r\nhi\r\n")
	assert.Equal(t, 451, smtpCode(err), "%v", err)
}
