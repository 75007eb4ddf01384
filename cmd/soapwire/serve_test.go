package main_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soapftp "github.com/soapwire/soapwire/bindings/ftp"
	"github.com/soapwire/soapwire/core"
)

// serving is a running "soapwire serve".
type serving struct {
	cmd    *exec.Cmd
	ready  map[string]string // binding → the rest of its ready line
	mu     sync.Mutex
	stdout bytes.Buffer
	stderr bytes.Buffer
	done   chan struct{}
}

// startServe runs "soapwire serve --config" with cfg (JSON-encoded) and
// waits for its ready lines. The test stops it with stop; the cleanup
// kills it if the test did not.
func startServe(t *testing.T, cfg any, env ...string) *serving {
	t.Helper()
	b, err := json.MarshalIndent(cfg, "", "  ")
	require.NoError(t, err)
	path := writeFile(t, "soapwire.json", string(b))
	s := &serving{ready: map[string]string{}, done: make(chan struct{})}
	s.cmd = exec.Command(binary(t), "serve", "--config", path, "--log-level", "debug")
	s.cmd.Env = append(cleanEnv(), env...)
	s.cmd.Stderr = &lockedWriter{mu: &s.mu, w: &s.stderr}
	out, err := s.cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, s.cmd.Start())
	t.Cleanup(func() {
		_ = s.cmd.Process.Kill()
		<-s.done
	})
	lines := make(chan string, 64)
	go func() {
		defer close(s.done)
		defer close(lines)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			s.mu.Lock()
			s.stdout.WriteString(sc.Text() + "\n")
			s.mu.Unlock()
			lines <- sc.Text()
		}
		_ = s.cmd.Wait()
	}()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("serve exited before it was ready:\n%s", s.output())
			}
			if l == "soapwire serve: ready" {
				go func() {
					for range lines {
					}
				}()
				return s
			}
			if rest, ok := strings.CutPrefix(l, "soapwire serve: ready "); ok {
				name, addr, _ := strings.Cut(rest, " ")
				s.ready[name] = addr
			}
		case <-timeout:
			t.Fatalf("serve not ready after 30 s:\n%s", s.output())
		}
	}
}

// stop sends SIGTERM and returns the exit code.
func (s *serving) stop(t *testing.T) int {
	t.Helper()
	require.NoError(t, s.cmd.Process.Signal(syscall.SIGTERM))
	select {
	case <-s.done:
	case <-time.After(30 * time.Second):
		t.Fatalf("serve did not stop within 30 s of SIGTERM:\n%s", s.output())
	}
	return s.cmd.ProcessState.ExitCode()
}

func (s *serving) output() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return "--- stdout\n" + s.stdout.String() + "--- stderr\n" + s.stderr.String()
}

type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// TestServe runs every binding from one configuration: an HTTP echo, an SMTP
// server whose mail is forwarded to an HTTP endpoint, an FTP drop whose
// echo goes back by file drop, a NATS echo; each is reached with the
// binary's own send and call; SIGTERM stops it cleanly.
func TestServe(t *testing.T) {
	dir := t.TempDir()
	sink := startHTTPSink(t)
	ns := startNATS(t)
	buyer := startSMTPSink(t, "buyer@example.com")
	s := startServe(t, map[string]any{
		"handler": map[string]any{"type": "echo"},
		"outbox":  map[string]any{"smtp": map[string]any{"server": buyer.addr, "from": "orders@shop.example"}},
		"http":    map[string]any{"listen": "127.0.0.1:0", "path": "/soap"},
		"smtp": map[string]any{
			"listen": "127.0.0.1:0", "maildir": filepath.Join(dir, "mail"), "addresses": []string{"orders@shop.example"},
			"handler": map[string]any{"type": "forward", "to": sink.url},
		},
		"ftp": map[string]any{
			"server":   map[string]any{"listen": "127.0.0.1:0", "root": filepath.Join(dir, "ftp"), "user": "shop", "password_env": "TEST_FTP_PASSWORD"},
			"endpoint": "/orders",
		},
		"nats":   map[string]any{"url": ns.srv.URL(), "subject": "orders.echo"},
		"policy": map[string]any{"mailboxes": []string{"@example.com"}}, // answers may be mailed to the buyers' domain
	}, "TEST_FTP_PASSWORD=s3cret")
	require.Len(t, s.ready, 4, s.output())
	order := writeFile(t, "order.xml", order)

	t.Run("http echo", func(t *testing.T) {
		url := s.ready["http"]
		require.Regexp(t, `^http://127\.0\.0\.1:\d+/soap$`, url)
		res := soapwire(t, "call", "--ns", "urn:example:echo", url, "ping", "text=hello", "n:int=7")
		require.Equal(t, 0, res.code, "%s", res)
		assert.Equal(t, []string{"text = hello", "n = 7"}, lines(res.stdout))
	})

	t.Run("http echo by mail", func(t *testing.T) {
		res := soapwire(t, "send", "--to", s.ready["http"], "--reply-to", "mailto:buyer@example.com", "--action", "urn:example:po:submit", order)
		require.Equal(t, 0, res.code, "%s", res)
		assert.Equal(t, "202", field(t, res.stdout, "http.status"), "the reply goes by mail, not on the HTTP response")
		id := field(t, res.stdout, "message-id")
		g := buyer.next(t)
		assert.Equal(t, "mailto:buyer@example.com", g.to)
		assert.Equal(t, id, g.conversation)
		assert.Equal(t, "orders@shop.example", g.meta["smtp.from"])
		assert.Equal(t, orderBody, g.body)
	})

	t.Run("smtp forwarded to http", func(t *testing.T) {
		addr := regexp.MustCompile(`^(\S+) maildir `).FindStringSubmatch(s.ready["smtp"])
		require.NotNil(t, addr, s.ready["smtp"])
		res := soapwire(t, "send", "--to", "mailto:orders@shop.example", "--smtp", addr[1], "--from", "buyer@example.com",
			"--action", "urn:example:po:submit", order)
		require.Equal(t, 0, res.code, "%s", res)
		g := sink.next(t)
		assert.Equal(t, field(t, res.stdout, "message-id"), g.id, "forwarded with its id")
		assert.Equal(t, "urn:example:po:submit", g.action)
		assert.Equal(t, sink.url, g.to)
		assert.Equal(t, "mailto:buyer@example.com", g.replyTo, "the reply address the mail gave goes along")
		assert.Equal(t, orderBody, g.body)
	})

	t.Run("ftp echo by file drop", func(t *testing.T) {
		inbox := s.ready["ftp"]
		require.Regexp(t, `^ftp://127\.0\.0\.1:\d+/orders/inbox$`, inbox)
		outbox := strings.TrimSuffix(inbox, "inbox") + "outbox"
		res := invocation{
			args: []string{"send", "--to", inbox, "--ftp-user", "shop", "--reply-to", outbox, "--action", "urn:example:po:submit", order},
			env:  []string{"SOAPWIRE_FTP_PASSWORD=s3cret"},
		}.run(t)
		require.Equal(t, 0, res.code, "%s", res)
		id := field(t, res.stdout, "message-id")
		reply := waitForFile(t, filepath.Join(dir, "ftp", "orders", "outbox"))
		f, err := os.Open(reply)
		require.NoError(t, err)
		defer f.Close()
		m, err := core.ReadMessage(f, core.Limits{})
		require.NoError(t, err)
		g, err := capture(m)
		require.NoError(t, err)
		assert.Equal(t, id, g.conversation, "the echo stays in the conversation")
		assert.Equal(t, id, m.RelatesTo)
		assert.Equal(t, orderBody, g.body)
		assert.Equal(t, soapftp.FileName(m.ID), filepath.Base(reply))
	})

	t.Run("nats echo", func(t *testing.T) {
		assert.Equal(t, `orders.echo queue "soapwire"`, s.ready["nats"])
		res := soapwire(t, "call", "--nats", ns.srv.URL(), "--version", "1.2", "--ns", "urn:example:echo", "nats:orders.echo", "ping", "text=over nats")
		require.Equal(t, 0, res.code, "%s", res)
		assert.Equal(t, []string{"text = over nats"}, lines(res.stdout))
	})

	code := s.stop(t)
	out := s.output()
	assert.Equal(t, 0, code, out)
	assert.Contains(t, out, "soapwire serve: stopped\n")
	assert.NotContains(t, out, "level=ERROR")
	assert.NotContains(t, out, "DATA RACE")
	journal, err := os.ReadDir(filepath.Join(dir, "mail", "journal"))
	require.NoError(t, err, "the mail came in through the Maildir's journal")
	assert.Empty(t, journal, "a clean stop checkpoints the Maildir's journal away")
}

// TestServeDurable: a JetStream durable consumer, forwarding to HTTP; a
// message sent while serve is down is delivered once it is back.
func TestServeDurable(t *testing.T) {
	sink := startHTTPSink(t)
	ns := startNATS(t)
	ns.stream(t, "ORDERS", "orders.placed")
	ns.stream(t, "DEAD", "soapwire.dead.>")
	cfg := map[string]any{
		"handler": map[string]any{"type": "forward", "to": sink.url},
		"nats":    map[string]any{"url_env": "TEST_NATS_URL", "subject": "nats:orders.placed?stream=ORDERS", "durable": "fulfil"},
	}
	env := "TEST_NATS_URL=" + ns.srv.URL()
	order := writeFile(t, "order.xml", order)
	send := func() string {
		res := invocation{args: []string{"send", "--to", "nats:orders.placed?stream=ORDERS", order}, env: []string{"SOAPWIRE_NATS_URL=" + ns.srv.URL()}}.run(t)
		require.Equal(t, 0, res.code, "%s", res)
		return field(t, res.stdout, "message-id")
	}

	s := startServe(t, cfg, env)
	assert.Equal(t, "nats:orders.placed?stream=ORDERS durable fulfil", s.ready["nats"])
	id := send()
	assert.Equal(t, id, sink.next(t).id)
	require.Equal(t, 0, s.stop(t), s.output())

	id = send() // while nothing serves
	s = startServe(t, cfg, env)
	assert.Equal(t, id, sink.next(t).id)
	require.Equal(t, 0, s.stop(t), s.output())
}

// TestServeConfig: an invalid configuration is refused before anything
// starts (exit 2), every problem named by its field; --check says ok.
func TestServeConfig(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  string
		want []string
		fine []string // fields no problem is reported for
	}{
		{name: "not JSON", cfg: `{"http": `, want: []string{"unexpected EOF"}},
		{name: "over 1 MiB", cfg: `{"handler": {"type": "echo"}, "http": {"listen": "127.0.0.1:0"}}` + strings.Repeat(" ", 1<<20), want: []string{"larger than 1024 KiB"}},
		{name: "syntax error", cfg: "{\n\"http\": {,}}", want: []string{"line 2: invalid character ','"}},
		{name: "unknown field", cfg: `{"htp": {}}`, want: []string{`json: unknown field "htp"`}},
		{name: "no binding", cfg: `{"handler": {"type": "echo"}}`, want: []string{"config: no binding to serve"}},
		{name: "no handler", cfg: `{"http": {"listen": "127.0.0.1:0"}}`, want: []string{"http.handler: no handler"}},
		{name: "bad handler", cfg: `{"handler": {"type": "reverse"}, "http": {"listen": "127.0.0.1:0"}}`, want: []string{`config.handler.type: "reverse": want "echo" or "forward"`}},
		{
			name: "forward nowhere", cfg: `{"http": {"listen": "127.0.0.1:0", "handler": {"type": "forward", "to": "mailto:x@y.example"}}}`,
			want: []string{`http.handler.to: "mailto:x@y.example": nothing sends to mailto: addresses (configure outbox.smtp)`},
		},
		{
			name: "imap", cfg: `{"handler": {"type": "echo"}, "imap": {"address": "imaps://u:pw@mail.example/INBOX", "password_env": "A", "token_file": "/x", "concurrency": -1}}`,
			want: []string{"imap.address: imap: address", "password in the address", "imap: give password_env or token_file, not both", "imap.concurrency: must not be negative"},
		},
		{
			name: "imap without login", cfg: `{"handler": {"type": "echo"}, "imap": {"address": "imap://mail.example/INBOX", "ca_file": "/nonexistent.pem"}}`,
			want: []string{"imap.user: required when imap.address names no user", "imap.password_env: required (or token_file)", "imap.ca_file: stat /nonexistent.pem"},
		},
		{
			name: "file drops", cfg: `{"handler": {"type": "echo"}, "sftp": {"remote": {"addr": "sftp.example"}, "endpoint": "in", "concurrency": -1}, "file": {"endpoint": "drops/in", "root": "x"}}`,
			want: []string{`sftp.remote.addr: "sftp.example": want host:port`, "sftp.remote.user: required", "sftp.remote: give key_file or password_env",
				`sftp.endpoint: "in"`, "sftp.concurrency: must not be negative", `file.endpoint: "drops/in"`, `file.root: "x": an absolute path`},
		},
		{
			name: "outbox drops", cfg: `{"http": {"listen": "127.0.0.1:0", "handler": {"type": "echo"}}, "outbox": {"sftp": {"addr": "sftp.example"}, "file": {"root": "out"}}}`,
			want: []string{`outbox.sftp.addr: "sftp.example": want host:port`, "outbox.sftp.user: required", "outbox.sftp: give key_file or password_env",
				`outbox.file.root: "out": an absolute path`},
		},
		{
			name: "outbox.file and file.root", cfg: `{"handler": {"type": "echo"}, "file": {"endpoint": "/srv/drops/in", "root": "/srv"}, "outbox": {"file": {"root": "/srv/out"}}}`,
			want: []string{"outbox.file: give file.root or outbox.file, not both"},
		},
		{
			name: "outbox.file beside the file endpoint", cfg: `{"handler": {"type": "echo"}, "file": {"endpoint": "/srv/drops/in"}, "outbox": {"file": {"root": "/srv/drops/i"}}}`,
			want: []string{`outbox.file.root: "/srv/drops/i": file.endpoint "/srv/drops/in" is not below it, so its replies could not be written`},
		},
		{
			name: "forward to sftp nowhere", cfg: `{"http": {"listen": "127.0.0.1:0", "handler": {"type": "forward", "to": "sftp://shop@sftp.example/orders/inbox"}}}`,
			want: []string{`http.handler.to: "sftp://shop@sftp.example/orders/inbox": nothing sends to sftp: addresses (configure outbox.sftp)`},
		},
		{
			name: "forward to a folder nowhere", cfg: `{"http": {"listen": "127.0.0.1:0", "handler": {"type": "forward", "to": "file:///srv/drops/in"}}}`,
			want: []string{`http.handler.to: "file:///srv/drops/in": nothing sends to file: addresses (configure outbox.file)`},
		},
		{
			name: "sftp server and remote", cfg: `{"handler": {"type": "echo"}, "sftp": {"server": {"listen": "127.0.0.1:0", "root": "/x", "user": "u", "password_env": "P"}, "remote": {"addr": "h:22", "user": "u", "key_file": "/k"}, "endpoint": "/in"}}`,
			want: []string{"sftp: give server or remote, not both"},
		},
		{
			name: "budgets",
			cfg: `{"handler": {"type": "echo"},
			       "http": {"listen": "127.0.0.1:0", "body_timeout": "soon", "min_body_rate": -5},
			       "smtp": {"maildir": "/m", "addresses": ["a@b.example"], "max_sessions": -1, "max_sessions_per_ip": 500,
			                "session_timeout": "-1m", "io_timeout": "0s", "min_data_rate": -7, "min_data_rate_grace": "x"},
			       "nats": {"url": "nats://127.0.0.1:1", "subject": "nats:orders?stream=S", "durable": "d", "pending_msgs": -1, "pending_bytes": 10}}`,
			want: []string{
				`http.body_timeout: "soon": want a duration over zero`, "http.min_body_rate: -5: must be positive",
				"smtp: the session budget", "it needs smtp.listen", "smtp.max_sessions: -1: must be positive",
				"smtp.max_sessions_per_ip: 500: more than max_sessions (100)", `smtp.session_timeout: "-1m": want a duration`,
				`smtp.io_timeout: "0s": want a duration`, "smtp.min_data_rate: -7: must be positive", `smtp.min_data_rate_grace: "x"`,
				"nats.pending_msgs: -1: must be positive", "nats: pending_msgs and pending_bytes bound request-reply",
			},
		},
		{
			name: "policy",
			cfg: `{"handler": {"type": "echo"}, "http": {"listen": "127.0.0.1:0"},
			       "policy": {"schemes": ["ht tp", "https"], "hosts": ["partner.example:99999", "bad host", "[::1]:8080", "::1", ".corp.example", "10.0.0.7:8443"],
			                  "private": true, "subjects": ["replies.>.x", "$SYS.x", "a..b", "replies.>", "orders.*.reply"],
			                  "mailboxes": ["@", "buyer", "Buyer <b@x.example>", "@.partner.example", "*", "buyer@partner.example"]}}`,
			want: []string{
				`policy.schemes[0]: "ht tp": not a URI scheme`, `policy.hosts[0]: "partner.example:99999": port "99999"`,
				`policy.hosts[1]: "bad host": a host name has letters`, "policy.private: has no use with policy.hosts",
				`policy.subjects[0]: "replies.>.x": > is the last token only`, `policy.subjects[1]: "$SYS.x"`, `policy.subjects[2]: "a..b": an empty token`,
				`policy.mailboxes[0]: "@"`, `policy.mailboxes[1]: "buyer"`, `policy.mailboxes[2]: "Buyer <b@x.example>"`,
			},
			fine: []string{"policy.schemes[1]", "policy.hosts[2]", "policy.hosts[3]", "policy.hosts[4]", "policy.hosts[5]",
				"policy.subjects[3]", "policy.subjects[4]", "policy.mailboxes[3]", "policy.mailboxes[4]", "policy.mailboxes[5]"},
		},
		{
			name: "several problems",
			cfg: `{"handler": {"type": "echo"}, "http": {"listen": "8080", "path": "soap"},
			       "smtp": {"maildir": "", "addresses": []},
			       "ftp": {"remote": {"addr": "ftp.example:21", "user": "u", "password_env": "TEST_UNSET_PASSWORD"}, "endpoint": "orders"},
			       "nats": {"subject": "orders.*", "durable": "d", "queue": "q"}}`,
			want: []string{
				`http.listen: "8080": want host:port`, `http.path: "soap": must start with /`,
				"smtp.maildir: required", "smtp.addresses: at least one address",
				"ftp.remote.password_env: $TEST_UNSET_PASSWORD is not set", `ftp.endpoint: "orders"`,
				"nats.url: required", "nats.queue: a durable consumer shares its messages already",
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeFile(t, "bad.json", tc.cfg)
			res := soapwire(t, "serve", "--config", path)
			require.Equal(t, 2, res.code, "%s", res)
			assert.Contains(t, res.stderr, "soapwire serve: invalid configuration: "+path+": ")
			for _, w := range tc.want {
				assert.Contains(t, res.stderr, w)
			}
			for _, f := range tc.fine {
				assert.NotContains(t, res.stderr, f+":", "no problem with %s", f)
			}
		})
	}
	path := writeFile(t, "good.json", `{"handler": {"type": "echo"}, "http": {"listen": "127.0.0.1:0"}}`)
	res := soapwire(t, "serve", "--check", "--config", path)
	require.Equal(t, 0, res.code, "%s", res)
	assert.Equal(t, path+": ok\n", res.stdout)

	res = soapwire(t, "serve", "--config", "/nonexistent/soapwire.json")
	require.Equal(t, 2, res.code, "%s", res)
	assert.Contains(t, res.stderr, "no such file")
}

// TestServeStartFailure: a binding that cannot start (its port taken)
// fails serve with exit 1, after stopping what had started.
func TestServeStartFailure(t *testing.T) {
	sink := startHTTPSink(t)
	taken := strings.TrimPrefix(strings.TrimSuffix(sink.url, "/orders"), "http://")
	path := writeFile(t, "c.json", `{"handler": {"type": "echo"},
		"smtp": {"listen": "127.0.0.1:0", "maildir": "`+filepath.Join(t.TempDir(), "mail")+`", "addresses": ["a@b.example"]},
		"http": {"listen": "`+taken+`"}}`)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	res := invocation{args: []string{"serve", "--config", path}}.runCtx(t, ctx)
	require.Equal(t, 1, res.code, "%s", res)
	assert.Contains(t, res.stderr, "soapwire serve: http.listen: listen tcp "+taken)
}

// waitForFile waits for a file to appear in dir and returns its path.
func waitForFile(t *testing.T, dir string) string {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if !e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
				return filepath.Join(dir, e.Name())
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no file in %s", dir)
	return ""
}

// TestServeRemoteFTPAndAuth: a drop endpoint on an FTP server serve does not
// run (here the test's), forwarded to HTTP; an HTTP echo behind Basic auth;
// a reply address the policy refuses.
func TestServeRemoteFTPAndAuth(t *testing.T) {
	sink := startHTTPSink(t)
	ftp := startFTPSink(t)
	s := startServe(t, map[string]any{
		"http": map[string]any{"listen": "127.0.0.1:0", "handler": map[string]any{"type": "echo"},
			"basic_auth": map[string]any{"user": "shop", "password_env": "TEST_HTTP_PASSWORD"}},
		"ftp": map[string]any{"remote": map[string]any{"addr": ftp.srv.Addr(), "user": ftp.user, "password_env": "TEST_FTP_PASSWORD"},
			"endpoint": "/drop", "handler": map[string]any{"type": "forward", "to": sink.url}},
		// http answers to loopback; ftp for the drop's own outbox (its
		// back-channel: an anonymous ReplyTo)
		"policy": map[string]any{"schemes": []string{"http", "ftp"}, "hosts": []string{"127.0.0.1"}},
	}, "TEST_FTP_PASSWORD="+ftp.password, "TEST_HTTP_PASSWORD=open sesame")
	order := writeFile(t, "order.xml", order)

	inbox := ftp.srv.URL("/drop/inbox")
	assert.Equal(t, inbox, s.ready["ftp"])
	res := invocation{args: []string{"send", "--to", inbox, "--ftp-user", ftp.user, order}, env: []string{"SOAPWIRE_FTP_PASSWORD=" + ftp.password}}.run(t)
	require.Equal(t, 0, res.code, "%s", res)
	g := sink.next(t)
	assert.Equal(t, field(t, res.stdout, "message-id"), g.id)
	assert.Equal(t, orderBody, g.body)

	url := s.ready["http"]
	res = invocation{args: []string{"call", "--ns", "urn:example:echo", "--http-user", "shop", url, "ping", "n=1"},
		env: []string{"SOAPWIRE_HTTP_PASSWORD=open sesame"}}.run(t)
	require.Equal(t, 0, res.code, "%s", res)
	assert.Equal(t, []string{"n = 1"}, lines(res.stdout))

	res = soapwire(t, "call", "--ns", "urn:example:echo", url, "ping", "n=1")
	require.Equal(t, 1, res.code, "%s", res)
	assert.Equal(t, "Client Error", field(t, res.stdout, "reason"), "bindings/http answers 401 with a fault")

	// The echo would go to a mailto: address: refused by the policy, the
	// fault comes back on the HTTP response and nothing is sent.
	res = invocation{args: []string{"send", "--to", url, "--http-user", "shop", "--reply-to", "mailto:someone@elsewhere.example", order},
		env: []string{"SOAPWIRE_HTTP_PASSWORD=open sesame"}}.run(t)
	require.Equal(t, 1, res.code, "%s", res)
	assert.Contains(t, res.stderr, `scheme "mailto" is not allowed`)

	require.Equal(t, 0, s.stop(t), s.output())
	assert.Contains(t, s.output(), "document: reply address refused")
}
