package imap_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
	"github.com/stretchr/testify/require"

	soapimap "github.com/soapwire/soapwire/bindings/imap"
	"github.com/soapwire/soapwire/core"
)

// benchMail is a 1 KB SOAP mail, as bindings/smtp's Sender writes one.
func benchMail(i int) string {
	return "From: <shop@example.org>\r\nTo: <orders@example.org>\r\nSubject: order\r\nMessage-ID: <" + fmt.Sprint(i) +
		"-bench@example.org>\r\nMIME-Version: 1.0\r\nContent-Type: application/soap+xml; charset=utf-8; action=\"urn:example:order\"\r\n\r\n" +
		`<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://www.w3.org/2003/05/soap-envelope"><soap:Body>` +
		`<o:order xmlns:o="urn:example:orders"><o:text>` + strings.Repeat("x", 700) + `</o:text></o:order></soap:Body></soap:Envelope>` + "\r\n"
}

// benchAccount is where a benchmark's mails wait: an address, a login and
// the TLS the client needs.
type benchAccount struct {
	addr string
	opts []soapimap.ReceiverOption
	dial func() (*imapclient.Client, error)
}

// fill appends n mails to the account's INBOX (not timed).
func (a benchAccount) fill(b *testing.B, n int) {
	c, err := a.dial()
	require.NoError(b, err)
	defer c.Close()
	for i := range n {
		data := benchMail(i)
		cmd := c.Append("INBOX", int64(len(data)), nil)
		_, err := io.WriteString(cmd, data)
		require.NoError(b, err)
		require.NoError(b, cmd.Close())
		_, err = cmd.Wait()
		require.NoError(b, err)
	}
}

// BenchmarkIntake: mails/s from an IMAP inbox to a handler that reads the
// document, 1 KB mails waiting in the inbox, on the embedded server and on
// Dovecot (imaps://). soapwire: a Receiver under core.Serve (4 at once):
// claim (CONDSTORE STORE where offered, UID MOVE), lease keyword, size,
// FETCH, read, handle, Ack (STORE \Deleted, UID EXPUNGE). raw-fetch, the
// baseline in the same run: one go-imap client on the inbox, UID SEARCH,
// then per mail UID FETCH BODY.PEEK[], UID STORE \Deleted, UID EXPUNGE:
// the least a consumer that deletes what it read does, with no claim, no
// lease and no parsing.
func BenchmarkIntake(b *testing.B) {
	accounts := map[string]func(b *testing.B) benchAccount{
		"embedded": func(b *testing.B) benchAccount {
			srv, err := soapimap.StartServer()
			require.NoError(b, err)
			b.Cleanup(func() { srv.Close() })
			require.NoError(b, srv.AddUser("orders", "secret"))
			return benchAccount{
				addr: srv.URL("orders", "INBOX"),
				opts: []soapimap.ReceiverOption{soapimap.WithCredentials("", "secret"), soapimap.WithPlaintext()},
				dial: func() (*imapclient.Client, error) {
					c, err := imapclient.DialInsecure(srv.Addr(), nil)
					if err == nil {
						err = c.Login("orders", "secret").Wait()
					}
					return c, err
				},
			}
		},
		"dovecot": func(b *testing.B) benchAccount {
			dc := startDovecot(b)
			user := dc.user(b)
			return benchAccount{
				addr: dc.url(user, true),
				opts: []soapimap.ReceiverOption{soapimap.WithCredentials("", "secret"), soapimap.WithTLS(dc.tls)},
				dial: func() (*imapclient.Client, error) {
					c, err := imapclient.DialTLS(dc.imaps, &imapclient.Options{TLSConfig: dc.tls.Clone()})
					if err == nil {
						err = c.Login(user, "secret").Wait()
					}
					return c, err
				},
			}
		},
	}
	for _, server := range []string{"embedded", "dovecot"} {
		b.Run(server, func(b *testing.B) {
			acct := accounts[server](b)
			b.Run("soapwire", func(b *testing.B) { benchSoapwire(b, acct) })
			b.Run("raw-fetch", func(b *testing.B) { benchRawFetch(b, acct) })
		})
	}
}

func benchSoapwire(b *testing.B, acct benchAccount) {
	acct.fill(b, b.N)
	ctx, cancel := context.WithCancel(b.Context())
	defer cancel()
	r, err := soapimap.NewReceiver(ctx, acct.addr, acct.opts...)
	require.NoError(b, err)
	defer r.Close()
	var n atomic.Int64
	done := make(chan struct{})
	h := core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		var v struct {
			Text string `xml:"text"`
		}
		if err := m.Body().Decode(&v); err != nil {
			return nil, err
		}
		if n.Add(1) == int64(b.N) {
			close(done)
		}
		return nil, nil
	})
	b.ResetTimer()
	start := time.Now()
	served := make(chan error, 1)
	go func() { served <- core.Serve(ctx, r, h, nil, core.WithConcurrency(benchConcurrency)) }()
	<-done
	elapsed := time.Since(start)
	b.StopTimer()
	cancel()
	<-served
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "mails/s")
}

func benchRawFetch(b *testing.B, acct benchAccount) {
	acct.fill(b, b.N)
	c, err := acct.dial()
	require.NoError(b, err)
	defer c.Close()
	_, err = c.Select("INBOX", nil).Wait()
	require.NoError(b, err)
	b.ResetTimer()
	start := time.Now()
	got := 0
	for got < b.N {
		data, err := c.UIDSearch(&imap.SearchCriteria{NotFlag: []imap.Flag{imap.FlagDeleted}}, nil).Wait()
		require.NoError(b, err)
		for _, uid := range data.AllUIDs() {
			set := imap.UIDSetNum(uid)
			msgs, err := c.Fetch(set, &imap.FetchOptions{UID: true, BodySection: []*imap.FetchItemBodySection{{Peek: true}}}).Collect()
			require.NoError(b, err)
			require.Len(b, msgs, 1)
			require.NoError(b, c.Store(set, &imap.StoreFlags{Op: imap.StoreFlagsAdd, Silent: true, Flags: []imap.Flag{imap.FlagDeleted}}, nil).Close())
			require.NoError(b, c.UIDExpunge(set).Close())
			got++
		}
	}
	elapsed := time.Since(start)
	b.StopTimer()
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "mails/s")
}

// benchConcurrency is the handlers core.Serve runs at once.
var benchConcurrency = envInt("SOAPWIRE_BENCH_CONCURRENCY", 4)

func envInt(name string, def int) int {
	var n int
	if _, err := fmt.Sscan(os.Getenv(name), &n); err == nil && n > 0 {
		return n
	}
	return def
}
