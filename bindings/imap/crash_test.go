package imap_test

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-imap/v2/imapclient"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soapimap "github.com/soapwire/soapwire/bindings/imap"
	mailfmt "github.com/soapwire/soapwire/bindings/internal/mail"
	"github.com/soapwire/soapwire/core"
)

// crashHelperEnv makes the test binary a service: core.Serve over a
// Receiver on an inbox, replies through an Appender, every request it
// handles logged ("H id") before its reply; it runs until killed
// (TestCrashLosesNothing). Its value: inbox URL, a space, log file, and,
// for a server with TLS, a space and the PEM file of its certificate.
const crashHelperEnv = "SOAPWIRE_IMAP_CRASH_HELPER"

// crashLease is the lease of the crash test's Receivers.
const crashLease = 400 * time.Millisecond

func crashHelper(spec string) int {
	inbox, rest, _ := strings.Cut(spec, " ")
	logPath, caFile, _ := strings.Cut(rest, " ")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ropts := crashReceiverOptions()
	aopts := []soapimap.AppenderOption{soapimap.WithCredentials("", "secret"), soapimap.WithPlaintext()}
	if caFile != "" {
		pem, err := os.ReadFile(caFile)
		if err != nil {
			fmt.Println("ERROR", err)
			return 1
		}
		pool := x509.NewCertPool()
		pool.AppendCertsFromPEM(pem)
		cfg := &tls.Config{RootCAs: pool}
		ropts = append(ropts, soapimap.WithTLS(cfg))
		aopts = append(aopts, soapimap.WithTLS(cfg))
	}
	r, err := soapimap.NewReceiver(ctx, inbox, ropts...)
	if err != nil {
		fmt.Println("ERROR", err)
		return 1
	}
	a, err := soapimap.NewAppender(inbox, "service@example.org", aopts...)
	if err != nil {
		fmt.Println("ERROR", err)
		return 1
	}
	fmt.Println("READY")
	if err := core.Serve(ctx, r, crashHandler(logPath), a, core.WithConcurrency(4)); err != nil {
		fmt.Println("ERROR", err)
		return 1
	}
	return 0
}

func crashReceiverOptions() []soapimap.ReceiverOption {
	return []soapimap.ReceiverOption{
		soapimap.WithCredentials("", "secret"), soapimap.WithPlaintext(), soapimap.WithLease(crashLease),
		soapimap.WithRecoverInterval(50 * time.Millisecond), soapimap.WithReconnect(5*time.Millisecond, 50*time.Millisecond),
	}
}

// crashHandler logs each request it handles, takes a few milliseconds (so
// a kill finds mails being processed), and answers.
func crashHandler(logPath string) core.Handler {
	var mu sync.Mutex
	return core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		mu.Lock()
		f, err := os.OpenFile(logPath, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o600)
		if err == nil {
			_, err = f.WriteString("H " + m.ID + "\n")
			f.Close()
		}
		mu.Unlock()
		if err != nil {
			return nil, err
		}
		time.Sleep(time.Duration(rand.IntN(15)) * time.Millisecond)
		return m.Reply(core.RawBody([]byte(`<p:pong xmlns:p="urn:test">ok</p:pong>`))), nil
	})
}

// TestCrashLosesNothing: a service receiving from an inbox and answering
// into a replies folder is killed (SIGKILL) 8 times, each time after it
// handled a random 1 to 20 more requests and a random 0 to 10 ms more (so
// the kill lands while it claims, fetches, handles, replies or settles),
// then restarted. Every request is handled and answered at least once,
// nothing is left in the inbox, the processing or the failed folder, and a
// request is handled again only if a kill caught it between its claim and
// its Ack (at most the 4 in flight per kill: the documented
// at-least-once).
// The same against Dovecot (imaps://).
func TestCrashLosesNothing(t *testing.T) {
	t.Run("embedded", func(t *testing.T) {
		srv := startServer(t)
		addr := srv.newUser(t)
		crashLosesNothing(t, addr, "", rawClient(t, addr), newAppender(t, addr), func() *soapimap.Receiver {
			return newReceiver(t, addr, crashReceiverOptions()...)
		})
	})
	t.Run("dovecot", func(t *testing.T) {
		dc := startDovecot(t)
		user := dc.user(t)
		addr := dc.url(user, true)
		c, err := imapclient.DialTLS(dc.imaps, &imapclient.Options{TLSConfig: dc.tls.Clone()})
		require.NoError(t, err)
		t.Cleanup(func() { c.Close() })
		require.NoError(t, c.Login(user, "secret").Wait())
		crashLosesNothing(t, addr, dc.caFile, c, dcAppender(t, dc, addr), func() *soapimap.Receiver {
			return dcReceiver(t, dc, addr, append(crashReceiverOptions(), soapimap.WithTLS(dc.tls))...)
		})
	})
}

func crashLosesNothing(t *testing.T, addr, caFile string, c *imapclient.Client, a *soapimap.Appender, newRecv func() *soapimap.Receiver) {
	const requests, kills = 200, 8
	require.NoError(t, c.Create("Replies", nil).Wait())
	replies := strings.Replace(addr, "/INBOX", "/Replies", 1)
	ids := map[string]bool{}
	for i := range requests {
		m := ping(core.V12, addr, fmt.Sprint(i))
		m.ReplyTo = replies
		require.NoError(t, a.Send(t.Context(), m))
		ids[m.ID] = true
	}
	logPath := t.TempDir() + "/handled.log"
	lines := func() int {
		data, _ := os.ReadFile(logPath)
		return strings.Count(string(data), "\n")
	}
	for k := range kills {
		start := lines()
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), strings.TrimSpace(crashHelperEnv+"="+addr+" "+logPath+" "+caFile))
		out, err := cmd.StdoutPipe()
		require.NoError(t, err)
		cmd.Stderr = os.Stderr
		require.NoError(t, cmd.Start())
		line, _ := bufio.NewReader(out).ReadString('\n')
		require.Equal(t, "READY\n", line, "kill %d", k)
		want := start + 1 + rand.IntN(20)
		for lines() < want {
			time.Sleep(time.Millisecond)
		}
		time.Sleep(time.Duration(rand.IntN(10)) * time.Millisecond)
		require.NoError(t, cmd.Process.Kill())
		cmd.Wait()
	}
	// The last run, to the end: in this process.
	handled := func() map[string]int {
		data, _ := os.ReadFile(logPath)
		n := map[string]int{}
		for _, l := range strings.Split(string(data), "\n") {
			if id, ok := strings.CutPrefix(l, "H "); ok {
				n[id]++
			}
		}
		return n
	}
	before := len(handled())
	t.Logf("handled before the last run: %d of %d", before, requests)
	require.Less(t, before, requests, "every kill came while requests were waiting")
	r := newRecv()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- core.Serve(ctx, r, crashHandler(logPath), a, core.WithConcurrency(4)) }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		inbox, work := folderMails(t, c, "INBOX"), folderMails(t, c, soapimap.DefaultProcessingFolder)
		if len(handled()) == requests && len(inbox) == 0 && len(work) == 0 {
			break
		}
		require.True(t, time.Now().Before(deadline), "after 30 s: %d of %d handled, %d in the inbox, %d being processed",
			len(handled()), requests, len(inbox), len(work))
		time.Sleep(50 * time.Millisecond)
	}
	cancel()
	require.NoError(t, <-done)

	got := handled()
	dups := 0
	for id, n := range got {
		assert.True(t, ids[id], "handled a request never sent: %s", id)
		dups += n - 1
	}
	t.Logf("%d requests, %d kills: %d handled twice or more", requests, kills, dups)
	assert.LessOrEqual(t, dups, kills*4, "duplicates only for the mails in flight at a kill")
	assert.Empty(t, folderMails(t, c, soapimap.DefaultFailedFolder), "nothing parked")
	answered := map[string]bool{}
	for _, m := range folderMails(t, c, "Replies") {
		rm, err := mailfmt.Read(strings.NewReader(m.text), &mailfmt.ReadConfig{})
		require.NoError(t, err)
		answered[rm.RelatesTo] = true
	}
	for id := range ids {
		assert.True(t, answered[id], "request %s answered", id)
	}
}
