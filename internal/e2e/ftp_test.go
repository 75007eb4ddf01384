package e2e_test

import (
	"context"
	"encoding/xml"
	"os"
	"path"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soapftp "github.com/soapwire/soapwire/bindings/ftp"
	"github.com/soapwire/soapwire/bindings/ftp/ftptest"
	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/coretest"
	"github.com/soapwire/soapwire/document"
)

// ftpSite is an FTP server the conversation runs on: a Client logged in to
// it and the folder the test's endpoints go in.
type ftpSite struct {
	client *soapftp.Client
	base   string
}

// ftpEmbedded is the binding's embedded server.
func ftpEmbedded(t *testing.T) ftpSite {
	t.Helper()
	srv, err := soapftp.StartServer(t.TempDir(), "shop", "s3cret")
	require.NoError(t, err)
	t.Cleanup(func() { srv.Close() })
	c := soapftp.NewClient(srv.Addr(), "shop", "s3cret")
	t.Cleanup(func() { c.Close() })
	return ftpSite{client: c, base: "/"}
}

func TestMain(m *testing.M) { os.Exit(coretest.RunWithPeerSummary(m)) }

// ftpVsftpd is Debian's vsftpd on loopback (skipped without it unless
// SOAPWIRE_REQUIRE_PEERS=1).
func ftpVsftpd(t *testing.T) ftpSite {
	t.Helper()
	v := ftptest.StartVsftpd(t, ftptest.Options{})
	c := soapftp.NewClient(v.Addr, v.User, v.Password)
	t.Cleanup(func() { c.Close() })
	return ftpSite{client: c, base: v.Dir}
}

// endpoint returns a Poller for the endpoint at base/name, its folders made.
func (s ftpSite) endpoint(t *testing.T, name string, opts ...soapftp.PollerOption) *soapftp.Poller {
	t.Helper()
	opts = append([]soapftp.PollerOption{soapftp.WithPollInterval(5 * time.Millisecond), soapftp.WithMaxPollInterval(50 * time.Millisecond)}, opts...)
	p, err := soapftp.NewPoller(s.client, path.Join(s.base, name), opts...)
	require.NoError(t, err)
	require.NoError(t, p.MakeLayout(ftpCtx(t)))
	t.Cleanup(func() { p.Close() })
	return p
}

// ftpServe runs core.Serve over r until the test ends.
func ftpServe(t *testing.T, r core.Receiver, h core.Handler, replies core.Sender) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); assert.NoError(t, core.Serve(ctx, r, h, replies, core.WithConcurrency(4))) }()
	t.Cleanup(func() { cancel(); wg.Wait() })
}

func ftpCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

type ftpQuote struct {
	XMLName xml.Name `xml:"urn:example:shop quote"`
	Item    string   `xml:"item"`
}

type ftpPrice struct {
	XMLName xml.Name `xml:"urn:example:shop price"`
	Item    string   `xml:"item"`
	Cents   int      `xml:"cents"`
}

// ftpShop answers quotes; "unobtainium" is a Sender fault.
var ftpShop = core.HandlerFunc(func(_ context.Context, m *core.Message) (*core.Message, error) {
	var q ftpQuote
	if err := m.Body().Decode(&q); err != nil {
		return nil, err
	}
	if q.Item == "unobtainium" {
		return nil, core.SenderFault("no such item: %s", q.Item)
	}
	if q.Item == "broken" {
		// a reply file whose Body is malformed: the price closed by the
		// wrong end tag
		return m.Reply(core.RawBody([]byte(`<p:price xmlns:p="urn:example:shop"><p:item>broken</p:cents>`))), nil
	}
	return m.Reply(core.ValueBody(ftpPrice{Item: q.Item, Cents: 1999})), nil
})

// TestFTPCallAnsweredByFile: an RPC call made by dropping a request file,
// answered by a reply file dropped at the caller's ReplyTo endpoint and
// correlated by document.Correlator; a fault comes back as a *core.Fault;
// a malformed reply ends its call at once with its fault; a call nobody
// answers times out; document.Send's Receipt names the file.
func TestFTPCallAnsweredByFile(t *testing.T) { ftpConversation(t, ftpEmbedded(t)) }

// TestFTPCallAnsweredByFileVsftpd is the same conversation through
// Debian's vsftpd.
func TestFTPCallAnsweredByFileVsftpd(t *testing.T) { ftpConversation(t, ftpVsftpd(t)) }

func ftpConversation(t *testing.T, site ftpSite) {
	shop := site.endpoint(t, "shop")
	client := site.endpoint(t, "client")
	silent := site.endpoint(t, "silent")
	send := soapftp.NewSender(site.client)
	out := document.NewOutbox(map[string]core.Sender{soapftp.Scheme: send})

	ftpServe(t, shop, ftpShop, out)
	ftpServe(t, silent, core.HandlerFunc(func(context.Context, *core.Message) (*core.Message, error) { return nil, nil }), nil)
	corr := document.NewCorrelator(out, client.Address())
	ftpServe(t, client, corr, nil)

	for _, v := range []core.Version{core.V11, core.V12} {
		t.Run("Reply"+v.String(), func(t *testing.T) {
			req := core.NewMessage(v, core.ValueBody(ftpQuote{Item: "widget"}))
			req.To, req.Action = shop.Address(), "urn:example:shop:quote"
			reply, err := corr.RoundTrip(ftpCtx(t), req)
			require.NoError(t, err)
			var p ftpPrice
			require.NoError(t, reply.Body().Decode(&p))
			assert.Equal(t, "widget", p.Item)
			assert.Equal(t, 1999, p.Cents)
			assert.Equal(t, req.ID, reply.RelatesTo)
			assert.Equal(t, client.Address(), reply.To)
			assert.Equal(t, soapftp.FileName(reply.ID), reply.Meta[soapftp.MetaFile], "the reply came as a file named after its id")
			assert.Equal(t, path.Join(mustDir(t, site, shop.Address()), soapftp.FileName(req.ID)), req.Meta[soapftp.MetaFile], "the request went as a file named after its id")
		})
	}
	t.Run("Fault", func(t *testing.T) {
		req := core.NewMessage(core.V12, core.ValueBody(ftpQuote{Item: "unobtainium"}))
		req.To = shop.Address()
		_, err := corr.RoundTrip(ftpCtx(t), req)
		f := core.FaultOf(err)
		require.NotNil(t, f)
		assert.True(t, f.Remote)
		assert.Equal(t, core.CodeSender, f.Code)
		assert.Equal(t, "no such item: unobtainium", f.Reason)
	})
	t.Run("MalformedReply", func(t *testing.T) {
		// the reply file relates to the call (its wsa:RelatesTo) but its
		// Body is broken: the call ends at once with the reply's fault, and
		// the file is parked in the client's failed folder
		req := core.NewMessage(core.V12, core.ValueBody(ftpQuote{Item: "broken"}))
		req.To = shop.Address()
		_, err := corr.RoundTrip(ftpCtx(t), req)
		require.Error(t, err)
		assert.NotErrorIs(t, err, document.ErrTimeout, "not left to its deadline")
		f := core.FaultOf(err)
		assert.Equal(t, core.CodeSender, f.Code)
		assert.False(t, f.Remote)
		assert.Contains(t, f.Reason, "closed by")
	})
	t.Run("Timeout", func(t *testing.T) {
		req := core.NewMessage(core.V12, core.ValueBody(ftpQuote{Item: "widget"}))
		req.To = silent.Address()
		ctx, cancel := context.WithTimeout(t.Context(), 500*time.Millisecond)
		defer cancel()
		_, err := corr.RoundTrip(ctx, req)
		require.ErrorIs(t, err, document.ErrTimeout)
		require.ErrorIs(t, err, context.DeadlineExceeded)
	})
	t.Run("Receipt", func(t *testing.T) {
		rc, err := document.Send(ftpCtx(t), out, silent.Address(), ftpQuote{Item: "receipt"})
		require.NoError(t, err)
		assert.Equal(t, path.Join(mustDir(t, site, silent.Address()), soapftp.FileName(rc.MessageID)), rc.Transport[soapftp.MetaFile])
	})
	assert.Zero(t, corr.Pending())
}

func mustDir(t *testing.T, site ftpSite, addr string) string {
	t.Helper()
	d, err := site.client.Dir(addr)
	require.NoError(t, err)
	return d
}

// TestFTPReplyByOutbox: a caller with no endpoint of its own asks with an
// anonymous ReplyTo; the answer lands in the service's outbox, which the
// caller polls (as a partner with only FTP access would), and the
// Correlator matches it.
func TestFTPReplyByOutbox(t *testing.T) {
	site := ftpEmbedded(t)
	shop := site.endpoint(t, "shop")
	send := soapftp.NewSender(site.client)
	ftpServe(t, shop, ftpShop, send)

	outbox := site.endpoint(t, "shop", soapftp.WithLayout(soapftp.Layout{Inbox: "outbox", Work: "outbox-work", Failed: "outbox-failed"}))
	corr := document.NewCorrelator(send, core.AnonymousAddress)
	ftpServe(t, outbox, corr, nil)

	req := core.NewMessage(core.V11, core.ValueBody(ftpQuote{Item: "gadget"}))
	req.To = shop.Address()
	reply, err := corr.RoundTrip(ftpCtx(t), req)
	require.NoError(t, err)
	var p ftpPrice
	require.NoError(t, reply.Body().Decode(&p))
	assert.Equal(t, "gadget", p.Item)
	assert.Equal(t, shop.ReplyAddress(), reply.To)
	assert.True(t, strings.HasSuffix(reply.To, "/shop/outbox"), reply.To)
}
