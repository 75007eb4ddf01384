package smtp_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	gosmtp "github.com/emersion/go-smtp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soapsmtp "github.com/soapwire/soapwire/bindings/smtp"
)

// dialFrom connects to addr from the loopback address ip (127.0.0.x: one
// machine, several client addresses).
func dialFrom(t *testing.T, ip, addr string) net.Conn {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 5 * time.Second}
	c, err := d.Dial("tcp", addr)
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	return c
}

// dripResult is what a dripping client saw.
type dripResult struct {
	lines  []string      // the server's lines
	first  time.Time     // its first byte after the greeting
	closed time.Duration // from the first byte to the server closing
}

// drip connects from ip, reads the greeting, then sends text a byte every
// every (after the bytes of prefix, sent at once), until the server
// closes the connection or stop is closed.
func drip(t *testing.T, ip, addr, prefix, text string, every time.Duration, stop <-chan struct{}) dripResult {
	var res dripResult
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 5 * time.Second}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Errorf("drip: %v", err)
		return res
	}
	defer c.Close()
	r := bufio.NewReader(c)
	line, err := r.ReadString('\n')
	if err != nil {
		return res
	}
	res.lines = append(res.lines, strings.TrimSpace(line))
	if !strings.HasPrefix(line, "220") {
		return res // refused at connect
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				res.closed = time.Since(res.first)
				return
			}
			res.lines = append(res.lines, strings.TrimSpace(line))
		}
	}()
	res.first = time.Now()
	if _, err := io.WriteString(c, prefix); err != nil {
		<-done
		return res
	}
	for i := 0; ; i = (i + 1) % len(text) {
		if _, err := c.Write([]byte{text[i]}); err != nil {
			break
		}
		select {
		case <-done:
			return res
		case <-stop:
			c.Close()
			<-done
			return res
		case <-time.After(every):
		}
	}
	<-done
	return res
}

// sendFrom submits one small mail from the loopback address ip and returns
// the code of the first refusal, or 0 when the mail was taken.
func sendFrom(t *testing.T, ip, addr, box string) int {
	t.Helper()
	c := dialFrom(t, ip, addr)
	cl := gosmtp.NewClient(c)
	defer cl.Close()
	err := func() error {
		if err := cl.Hello("fresh.example.test"); err != nil {
			return err
		}
		if err := cl.Mail("fresh@example.test", nil); err != nil {
			return err
		}
		if err := cl.Rcpt(box, nil); err != nil {
			return err
		}
		w, err := cl.Data()
		if err != nil {
			return err
		}
		if _, err := io.WriteString(w, "From: fresh@example.test\r\nContent-Type: text/xml\r\n\r\n"+
			`<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><p:ping xmlns:p="urn:test">fresh</p:ping></s:Body></s:Envelope>`+"\r\n"); err != nil {
			return err
		}
		return w.Close()
	}()
	if err == nil {
		return 0
	}
	return smtpCode(err)
}

// TestDripsCannotLockOut: 100 connections from one address dripping a
// byte at a time hold at most their address's share of the sessions, are
// cut with 421 within grace of their first byte (WithMinDataRate), and
// meanwhile a sender from another address gets its mail through at once;
// the drips' own address is told 421 4.7.0, and the refusals and cuts are
// logged a few lines in all.
func TestDripsCannotLockOut(t *testing.T) {
	const (
		drips = 100
		idle  = 20 * time.Second // WithIOTimeout: a drip's byte every 500 ms renews nothing
		grace = 2 * time.Second  // WithMinDataRate's
		every = 500 * time.Millisecond
	)
	logs := &logRecorder{}
	dir := t.TempDir()
	ts := startServer(t, dir, soapsmtp.WithIOTimeout(idle), soapsmtp.WithMinDataRate(500, grace), soapsmtp.WithLogger(logs.logger()))

	stop := make(chan struct{})
	results := make([]dripResult, drips)
	var wg sync.WaitGroup
	for i := range drips {
		wg.Go(func() { results[i] = drip(t, "127.0.0.1", ts.addr, "", "EHLO drip.example.test\r\n", every, stop) })
	}
	t.Cleanup(func() { close(stop); wg.Wait() })
	// wait for the drips to hold their share of the sessions
	require.Eventually(t, func() bool { return logs.count("too many sessions from one address") > 0 }, 10*time.Second, 5*time.Millisecond)

	start := time.Now()
	require.Equal(t, 0, sendFrom(t, "127.0.0.2", ts.addr, ts.box), "a sender from another address gets through")
	took := time.Since(start)
	assert.Less(t, took, grace, "…at once, while the drips still hold their sessions")
	assert.Equal(t, 421, sendFrom(t, "127.0.0.1", ts.addr, ts.box), "the drips' address is refused while they hold its share")

	wg.Wait() // every drip ends: cut, or refused at connect
	held, refused := 0, 0
	for i, r := range results {
		require.NotEmpty(t, r.lines, "drip %d saw nothing", i)
		switch {
		case strings.HasPrefix(r.lines[0], "421 4.7.0"):
			refused++
		case strings.HasPrefix(r.lines[0], "220"):
			held++
			last := r.lines[len(r.lines)-1]
			assert.True(t, strings.HasPrefix(last, "421 4.4.2"), "drip %d: cut with 421: %q", i, r.lines)
			// the bound: grace after its first byte (and 1 s per 500
			// bytes, a few here); slack for a loaded machine
			assert.Less(t, r.closed, 3*grace, "drip %d was cut after %s", i, r.closed)
		default:
			t.Errorf("drip %d: %q", i, r.lines)
		}
	}
	assert.Equal(t, soapsmtp.DefaultMaxSessionsPerIP, held, "one address holds half the sessions")
	assert.Equal(t, drips-held, refused)
	assert.Equal(t, 0, sendFrom(t, "127.0.0.1", ts.addr, ts.box), "once the drips are cut, their address is served again")
	assert.LessOrEqual(t, logs.count("session too slow or silent"), 3, "the cuts are logged a few lines in all")
	assert.LessOrEqual(t, logs.count("too many sessions from one address"), 3, "the refusals too")
	assert.Len(t, files(t, dir, soapsmtp.FolderNew), 2, "the two fresh mails, nothing of the drips")
}

// TestSessionPace: input at or above WithMinDataRate passes however long
// it takes; input that falls behind is cut, in the middle of a mail's data
// too (451 for the mail, then 421), and nothing of it is stored.
func TestSessionPace(t *testing.T) {
	t.Run("SlowButSteadyMail", func(t *testing.T) {
		dir := t.TempDir()
		ts := startServer(t, dir, soapsmtp.WithIOTimeout(time.Second), soapsmtp.WithMinDataRate(1000, 500*time.Millisecond))
		conn, r := session(t, ts.addr)
		expectReply(t, r, "220")
		for _, c := range []struct{ cmd, code string }{
			{"EHLO client.example.test", "250"}, {"MAIL FROM:<a@example.test>", "250"},
			{"RCPT TO:<" + ts.box + ">", "250"}, {"DATA", "354"},
		} {
			_, err := fmt.Fprintf(conn, "%s\r\n", c.cmd)
			require.NoError(t, err)
			expectReply(t, r, c.code)
		}
		// 16 KB at about 4 KB/s: four times the grace, four times the rate
		_, err := io.WriteString(conn, "From: a@example.test\r\nContent-Type: text/xml\r\n\r\n"+
			`<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><p:ping xmlns:p="urn:test">`)
		require.NoError(t, err)
		line := strings.Repeat("x", 1022) + "\r\n"
		for range 16 {
			time.Sleep(250 * time.Millisecond)
			_, err := io.WriteString(conn, line)
			require.NoError(t, err)
		}
		_, err = io.WriteString(conn, "</p:ping></s:Body></s:Envelope>\r\n.\r\n")
		require.NoError(t, err)
		expectReply(t, r, "250 ")
		assert.Len(t, files(t, dir, soapsmtp.FolderNew), 1)
	})
	t.Run("DripInData", func(t *testing.T) {
		dir := t.TempDir()
		logs := &logRecorder{}
		ts := startServer(t, dir, soapsmtp.WithIOTimeout(10*time.Second), soapsmtp.WithMinDataRate(500, 500*time.Millisecond), soapsmtp.WithLogger(logs.logger()))
		res := drip(t, "127.0.0.1", ts.addr, "EHLO c.example.test\r\nMAIL FROM:<a@example.test>\r\nRCPT TO:<"+ts.box+">\r\nDATA\r\n",
			"From: a@example.test\r\n", 200*time.Millisecond, nil)
		require.NotEmpty(t, res.lines)
		assert.True(t, strings.HasPrefix(res.lines[len(res.lines)-1], "421 4.4.2"), "%q", res.lines)
		assert.Contains(t, strings.Join(res.lines, "\n"), "451 4.4.2", "the mail in progress is refused")
		assert.Less(t, res.closed, 5*time.Second, "cut within the grace (and 1 s per 500 bytes), not after WithIOTimeout")
		for _, folder := range []string{soapsmtp.FolderNew, soapsmtp.FolderWork} {
			assert.Empty(t, files(t, dir, folder))
		}
		assert.Equal(t, 0, logs.count("smtp: mail not received"), "a cut session is logged by the Server's limited line")
		assert.Equal(t, 1, logs.count("session too slow or silent"))
	})
	t.Run("PerAddress", func(t *testing.T) {
		ts := startServer(t, t.TempDir(), soapsmtp.WithMaxSessions(4), soapsmtp.WithMaxSessionsPerIP(1))
		a := dialFrom(t, "127.0.0.1", ts.addr)
		ra := bufio.NewReader(a)
		expectReply(t, ra, "220")
		b := dialFrom(t, "127.0.0.1", ts.addr)
		expectReply(t, bufio.NewReader(b), "421 4.7.0")
		c := dialFrom(t, "127.0.0.3", ts.addr)
		expectReply(t, bufio.NewReader(c), "220")
		_, err := io.WriteString(a, "QUIT\r\n")
		require.NoError(t, err)
		expectReply(t, ra, "221")
		require.Eventually(t, func() bool {
			d := dialFrom(t, "127.0.0.1", ts.addr)
			line, _ := bufio.NewReader(d).ReadString('\n')
			return strings.HasPrefix(line, "220")
		}, 5*time.Second, 20*time.Millisecond, "the address's session is free again")
	})
}
