package ftp_test

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"net/textproto"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jlaffaye/ftp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soapftp "github.com/soapwire/soapwire/bindings/ftp"
	"github.com/soapwire/soapwire/bindings/ftp/ftptest"
)

// rawFTP is a control connection spoken by hand.
type rawFTP struct {
	t    *testing.T
	conn net.Conn
	tp   *textproto.Conn
}

// dialRaw connects to addr and reads the greeting.
func dialRaw(t *testing.T, addr string) *rawFTP {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	r := &rawFTP{t: t, conn: c, tp: textproto.NewConn(c)}
	require.NoError(t, c.SetDeadline(time.Now().Add(20*time.Second)))
	r.expect(220)
	return r
}

// cmd sends a command and returns the reply.
func (r *rawFTP) cmd(format string, args ...any) (int, string) {
	r.t.Helper()
	require.NoError(r.t, r.tp.PrintfLine(format, args...))
	return r.read()
}

func (r *rawFTP) read() (int, string) {
	r.t.Helper()
	code, msg, err := r.tp.ReadResponse(0)
	require.NoError(r.t, err)
	return code, msg
}

func (r *rawFTP) expect(code int) string {
	r.t.Helper()
	got, msg := r.read()
	require.Equal(r.t, code, got, msg)
	return msg
}

// send sends a command and requires the reply code.
func (r *rawFTP) send(code int, format string, args ...any) string {
	r.t.Helper()
	got, msg := r.cmd(format, args...)
	require.Equal(r.t, code, got, "%s: %s", fmt.Sprintf(format, args...), msg)
	return msg
}

func (r *rawFTP) login() {
	r.t.Helper()
	r.send(331, "USER %s", testUser)
	r.send(230, "PASS %s", testPass)
}

// startTLS upgrades the control connection (AUTH TLS) and asks for TLS data
// connections.
func (r *rawFTP) startTLS(cfg *tls.Config) {
	r.t.Helper()
	r.send(234, "AUTH TLS")
	tc := tls.Client(r.conn, cfg)
	require.NoError(r.t, tc.Handshake())
	r.conn, r.tp = tc, textproto.NewConn(tc)
}

// epsv asks for a passive data port.
func (r *rawFTP) epsv() int {
	r.t.Helper()
	msg := r.send(229, "EPSV")
	i, j := strings.Index(msg, "(|||"), strings.LastIndex(msg, "|)")
	require.True(r.t, i >= 0 && j > i, msg)
	port, err := strconv.Atoi(msg[i+4 : j])
	require.NoError(r.t, err)
	return port
}

// dataFrom connects to the data port from local IP src.
func dataFrom(t *testing.T, src string, port int) net.Conn {
	t.Helper()
	d := net.Dialer{Timeout: 5 * time.Second, LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}}
	c, err := d.Dial("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	return c
}

// listenAddrOf finds the local address of the listening TCP socket on port
// in /proc/net/tcp and tcp6 (Linux).
func listenAddrOf(t *testing.T, port int) string {
	t.Helper()
	var found []string
	for _, s := range listeningSockets(t) {
		if s.port == port {
			found = append(found, s.host)
		}
	}
	require.Len(t, found, 1, "one listening socket on port %d", port)
	return found[0]
}

// listenInodeOf is the inode of the one listening socket on port.
func listenInodeOf(t *testing.T, port int) string {
	t.Helper()
	var found []string
	for _, s := range listeningSockets(t) {
		if s.port == port {
			found = append(found, s.inode)
		}
	}
	require.Len(t, found, 1, "one listening socket on port %d", port)
	return found[0]
}

// listeningSocket is one LISTEN line of /proc/net/tcp or tcp6.
type listeningSocket struct {
	host, inode string
	port        int
}

// listeningSockets reads the listening TCP sockets from /proc/net/tcp and
// tcp6 (Linux); the test is skipped elsewhere.
func listeningSockets(t *testing.T) []listeningSocket {
	t.Helper()
	var found []listeningSocket
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Skipf("no %s (not Linux?): the listening address cannot be read: %v", f, err)
		}
		sc := bufio.NewScanner(bytes.NewReader(b))
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) < 10 || fields[3] != "0A" { // 0A: LISTEN
				continue
			}
			host, p, ok := strings.Cut(fields[1], ":")
			if n, err := strconv.ParseUint(p, 16, 16); ok && err == nil {
				found = append(found, listeningSocket{host: host, port: int(n), inode: fields[9]})
			}
		}
	}
	return found
}

// TestServerPassiveOnLoopback: the embedded server's passive data sockets
// listen on its own address (127.0.0.1), not on every interface; PASV
// advertises it; a data connection from another address is refused and
// logged, and the client's own gets the data.
func TestServerPassiveOnLoopback(t *testing.T) {
	lb := &logBuffer{}
	srv := startServer(t, soapftp.WithLogger(lb.logger()))
	require.NoError(t, os.WriteFile(filepath.Join(srv.Root(), "a.xml"), []byte("x"), 0o644))
	r := dialRaw(t, srv.Addr())
	r.login()

	port := r.epsv()
	assert.Equal(t, "0100007F", listenAddrOf(t, port), "EPSV: 127.0.0.1, not 0.0.0.0 or ::")
	epsvInode := listenInodeOf(t, port)

	msg := r.send(227, "PASV")
	assert.Contains(t, msg, "(127,0,0,1,", "PASV advertises the server's address")
	i := strings.LastIndex(msg, "(")
	parts := strings.Split(strings.Trim(msg[i:], "()."), ",")
	require.Len(t, parts, 6, msg)
	p1, _ := strconv.Atoi(parts[4])
	p2, _ := strconv.Atoi(parts[5])
	pasvPort := p1<<8 | p2
	assert.Equal(t, "0100007F", listenAddrOf(t, pasvPort), "PASV: 127.0.0.1")
	assert.NotEqual(t, port, pasvPort)
	// The EPSV socket is gone. (Not checked by dialing its port: on a busy
	// machine another listener may already have been given the freed port.)
	for _, ls := range listeningSockets(t) {
		assert.NotEqual(t, epsvInode, ls.inode, "the EPSV listener was closed by the PASV that replaced it")
	}

	intruder := dataFrom(t, "127.0.0.2", pasvPort) // another host, first in the queue
	client := dataFrom(t, "127.0.0.1", pasvPort)
	require.NoError(t, r.tp.PrintfLine("NLST"))
	r.expect(150)
	got, err := io.ReadAll(client)
	require.NoError(t, err)
	assert.Equal(t, "a.xml\r\n", string(got))
	r.expect(226)
	require.NoError(t, intruder.SetReadDeadline(time.Now().Add(5*time.Second)))
	n, err := intruder.Read(make([]byte, 1))
	assert.Zero(t, n, "the intruder got nothing")
	assert.Error(t, err, "and was disconnected")
	lb.contains(t, "refused a data connection from another address")
	lb.contains(t, "from=127.0.0.2:")
}

// TestServerCommands: the data commands the embedded server runs itself,
// through jlaffaye/ftp in every passive mode and listing style.
func TestServerCommands(t *testing.T) {
	srv := startServer(t)
	for _, tt := range []struct {
		name       string
		epsv, mlsd bool
	}{{"EPSV+MLSD", true, true}, {"PASV+LIST", false, false}, {"EPSV+LIST", true, false}} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := ftp.Dial(srv.Addr(), ftp.DialWithTimeout(5*time.Second),
				ftp.DialWithDisabledEPSV(!tt.epsv), ftp.DialWithDisabledMLSD(!tt.mlsd))
			require.NoError(t, err)
			t.Cleanup(func() { c.Quit() })
			require.NoError(t, c.Login(testUser, testPass))
			dir := "/" + strings.ReplaceAll(tt.name, "+", "-")
			require.NoError(t, c.MakeDir(dir))
			require.NoError(t, c.MakeDir(dir+"/sub"))

			require.NoError(t, c.Stor(dir+"/a.txt", strings.NewReader("hello")))
			require.NoError(t, c.Append(dir+"/a.txt", strings.NewReader(" world")))
			require.NoError(t, c.Append(dir+"/new.txt", strings.NewReader("made")))
			read := func(name string, from uint64) string {
				r, err := c.RetrFrom(name, from)
				require.NoError(t, err)
				b, err := io.ReadAll(r)
				require.NoError(t, err)
				require.NoError(t, r.Close())
				return string(b)
			}
			assert.Equal(t, "hello world", read(dir+"/a.txt", 0))
			assert.Equal(t, "world", read(dir+"/a.txt", 6), "REST then RETR")
			assert.Equal(t, "made", read(dir+"/new.txt", 0), "APPE creates")
			require.NoError(t, c.Stor(dir+"/a.txt", strings.NewReader("short")))
			assert.Equal(t, "short", read(dir+"/a.txt", 0), "STOR replaces")

			entries, err := c.List(dir)
			require.NoError(t, err)
			got := map[string]string{}
			for _, e := range entries {
				got[e.Name] = fmt.Sprintf("%v %d", e.Type, e.Size)
			}
			assert.Equal(t, map[string]string{
				"a.txt":   fmt.Sprintf("%v 5", ftp.EntryTypeFile),
				"new.txt": fmt.Sprintf("%v 4", ftp.EntryTypeFile),
				"sub":     fmt.Sprintf("%v %d", ftp.EntryTypeFolder, entries[indexOf(entries, "sub")].Size),
			}, got)
			names, err := c.NameList(dir)
			require.NoError(t, err)
			assert.ElementsMatch(t, []string{"a.txt", "new.txt", "sub"}, names)

			_, err = c.List(dir + "/missing")
			assert.ErrorContains(t, err, "550")
			_, err = c.Retr(dir + "/missing.txt")
			assert.ErrorContains(t, err, "550")
			require.NoError(t, c.NoOp(), "the connection is still in step")
		})
	}
}

func indexOf(entries []*ftp.Entry, name string) int {
	for i, e := range entries {
		if e.Name == name {
			return i
		}
	}
	return 0
}

// TestServerRefusals: what the embedded server refuses, and that the
// session goes on after each refusal.
func TestServerRefusals(t *testing.T) {
	srv := startServer(t)
	r := dialRaw(t, srv.Addr())
	r.send(530, "EPSV") // not logged in
	r.login()
	for _, tt := range []struct {
		cmd  string
		code int
	}{
		{"PORT 127,0,0,1,4,1", 500}, // active mode: not offered (no FTP bounce)
		{"EPRT |1|127.0.0.1|1025|", 500},
		{"LPRT 4,4,127,0,0,1,2,4,1", 500},
		{"EPSV 3", 522},
		{"REST -1", 501},
		{"REST x", 501},
		{"LIST /missing", 550},
		{"NLST /missing", 550},
		{"RETR /missing", 550},
		{"EPSV ALL", 200},
	} {
		r.send(tt.code, "%s", tt.cmd)
	}
	// a transfer without PASV/EPSV: 150, then 425, and no file
	r.send(150, "STOR x.xml")
	r.expect(425)
	r.send(150, "LIST")
	r.expect(425)
	assert.NoFileExists(t, filepath.Join(srv.Root(), "x.xml"))
	r.send(200, "NOOP")
	assert.Contains(t, r.send(211, "FEAT"), "EPSV")
	assert.NotContains(t, r.send(211, "FEAT"), "EPRT", "active mode not advertised")
}

// serverGoroutines returns the stacks of the goroutines that belong to an
// embedded server (goftp's and the binding's server code), by goroutine id.
func serverGoroutines() map[string]string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	out := map[string]string{}
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "goftp.io/server/v2") || strings.Contains(g, "bindings/ftp.(*ctrlConn)") ||
			strings.Contains(g, "bindings/ftp.(*dataCommands)") || strings.Contains(g, "bindings/ftp.(*Server)") {
			id, _, _ := strings.Cut(strings.TrimPrefix(g, "goroutine "), " ")
			out[id] = g
		}
	}
	return out
}

// leftover returns the server goroutines that are not in before.
func leftover(before map[string]string) string {
	var out []string
	for id, g := range serverGoroutines() {
		if _, ok := before[id]; !ok {
			out = append(out, g)
		}
	}
	return strings.Join(out, "\n\n")
}

// TestServerCloseEndsSessions: Close ends every session, also those
// waiting for a data connection or in the middle of a transfer, with or
// without TLS: afterwards no goroutine of the server is left, and a STOR
// whose data connection never came left no file.
func TestServerCloseEndsSessions(t *testing.T) {
	cert, der, _ := ftptest.SelfSigned(t)
	pool := x509.NewCertPool()
	c0, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	pool.AddCert(c0)
	clientTLS := &tls.Config{RootCAs: pool, ServerName: "127.0.0.1"}

	// goftp servers of other tests (a raw goftp in names_test.go) may still
	// have goroutines: only those started here count
	before := serverGoroutines()
	for _, tlsOn := range []bool{false, true} {
		t.Run(fmt.Sprintf("tls=%v", tlsOn), func(t *testing.T) {
			var opts []soapftp.ServerOption
			if tlsOn {
				opts = append(opts, soapftp.WithTLS(&tls.Config{Certificates: []tls.Certificate{cert}}))
			}
			srv, err := soapftp.StartServer(t.TempDir(), testUser, testPass, opts...)
			require.NoError(t, err)
			t.Cleanup(func() { srv.Close() })
			session := func() *rawFTP {
				r := dialRaw(t, srv.Addr())
				if tlsOn {
					r.startTLS(clientTLS)
				}
				r.login()
				if tlsOn {
					r.send(200, "PBSZ 0")
					r.send(200, "PROT P")
				}
				return r
			}

			idle := session() // logged in, doing nothing
			pending := session()
			pending.epsv() // a passive listener nobody connects to
			waiting := session()
			waiting.epsv()
			waiting.send(150, "STOR waiting.xml") // blocked on its data connection
			busy := session()
			port := busy.epsv()
			data := dataFrom(t, "127.0.0.1", port)
			busy.send(150, "STOR busy.xml")
			var dw io.Writer = data
			if tlsOn {
				tc := tls.Client(data, clientTLS)
				require.NoError(t, tc.Handshake())
				dw = tc
			}
			_, err = dw.Write([]byte("<partial"))
			require.NoError(t, err) // mid-transfer, never finished
			require.Eventually(t, func() bool { return fileExists(filepath.Join(srv.Root(), "busy.xml")) },
				10*time.Second, 5*time.Millisecond, "the transfer started")

			closed := make(chan error, 1)
			go func() { closed <- srv.Close() }()
			select {
			case err := <-closed:
				require.NoError(t, err)
			case <-time.After(20 * time.Second): // a bound against a hang, not a timing
				t.Fatalf("Close did not return; server goroutines:\n%s", leftover(before))
			}
			require.Eventually(t, func() bool { return leftover(before) == "" }, 10*time.Second, 10*time.Millisecond,
				"server goroutines after Close:\n%s", leftover(before))
			for _, r := range []*rawFTP{idle, pending, waiting, busy} {
				require.NoError(t, r.conn.SetReadDeadline(time.Now().Add(5*time.Second)))
				_, err := io.Copy(io.Discard, r.conn)
				if err != nil {
					assert.NotErrorIs(t, err, os.ErrDeadlineExceeded, "the server hung up")
				}
			}
			assert.NoFileExists(t, filepath.Join(srv.Root(), "waiting.xml"), "no data connection, no file")
			require.NoError(t, srv.Close(), "a second Close")
		})
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
