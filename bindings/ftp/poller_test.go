package ftp_test

import (
	"context"
	"encoding/xml"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soapftp "github.com/soapwire/soapwire/bindings/ftp"
	"github.com/soapwire/soapwire/core"
)

// serve runs core.Serve over p until the test ends.
func serve(t *testing.T, p core.Receiver, h core.Handler, replies core.Sender, opts ...core.ServeOption) context.CancelFunc {
	t.Helper()
	c, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		assert.NoError(t, core.Serve(c, p, h, replies, opts...))
	}()
	t.Cleanup(func() { cancel(); wg.Wait() })
	return func() { cancel(); wg.Wait() }
}

// TestDropProcessed: a document dropped into the inbox by another program
// (a plain FTP upload under its final name, as most tools do it) is
// received, handled once, and deleted after the Ack; nothing stays in
// work/.
func TestDropProcessed(t *testing.T) {
	e := newEnv(t)
	p := e.poller(t, "/orders")
	got := make(chan *core.Message, 1)
	serve(t, p, core.HandlerFunc(func(_ context.Context, m *core.Message) (*core.Message, error) {
		assert.Equal(t, "order 42", text(t, m))
		got <- m
		return nil, nil
	}), nil)

	m := ping(core.V11, "order 42")
	upload(t, e, "/orders/inbox/order-42.xml", envelope(t, m))

	select {
	case r := <-got:
		assert.Equal(t, m.ID, r.ID)
		assert.Equal(t, "order-42.xml", r.Meta[soapftp.MetaFile])
		assert.True(t, strings.HasPrefix(r.Meta[soapftp.MetaClaim], "/orders/work/"), r.Meta[soapftp.MetaClaim])
		assert.True(t, strings.HasSuffix(r.Meta[soapftp.MetaClaim], ".order-42.xml"), r.Meta[soapftp.MetaClaim])
	case <-time.After(10 * time.Second):
		t.Fatal("the dropped document was not processed")
	}
	require.Eventually(t, func() bool {
		return len(e.files(t, "orders/inbox")) == 0 && len(e.files(t, "orders/work")) == 0
	}, 10*time.Second, 5*time.Millisecond, "inbox %v work %v", e.files(t, "orders/inbox"), e.files(t, "orders/work"))
	assert.Empty(t, e.files(t, "orders/failed"))
}

// upload stores data at p with a plain client, as a partner's tool would.
func upload(t testing.TB, e *env, p string, data []byte) {
	t.Helper()
	c := rawConn(t, e.srv.Addr())
	require.NoError(t, c.Stor(p, strings.NewReader(string(data))))
}

// TestDoneFolder: with Layout.Done, an Acked file is kept in done/.
func TestDoneFolder(t *testing.T) {
	e := newEnv(t)
	l := soapftp.DefaultLayout()
	l.Done = "done"
	p := e.poller(t, "/keep", soapftp.WithLayout(l))
	m := ping(core.V12, "keep me")
	m.To = p.Address()
	require.NoError(t, soapftp.NewSender(e.client).Send(ctx(t), m))
	d, err := p.Receive(ctx(t))
	require.NoError(t, err)
	require.NoError(t, d.Ack(ctx(t)))
	name := soapftp.FileName(m.ID)
	assert.Equal(t, []string{name}, e.files(t, "keep/done"))
	data, err := os.ReadFile(e.path("keep/done", name))
	require.NoError(t, err)
	assert.Equal(t, string(envelope(t, m)), string(data), "the done file is the message as sent")
	assert.Empty(t, e.files(t, "keep/work"))
}

// TestFaultFile: a handler's fault with nowhere to go (no ReplyTo/FaultTo
// other than none) is Nacked by core.Serve; the file is parked in failed/
// with a .fault.xml beside it that holds the fault.
func TestFaultFile(t *testing.T) {
	e := newEnv(t)
	p := e.poller(t, "/svc")
	serve(t, p, core.HandlerFunc(func(context.Context, *core.Message) (*core.Message, error) {
		return nil, core.SenderFault("account 7 is closed")
	}), soapftp.NewSender(e.client))

	m := ping(core.V12, "debit")
	m.To, m.ReplyTo, m.FaultTo = p.Address(), core.NoneAddress, core.NoneAddress
	require.NoError(t, soapftp.NewSender(e.client).Send(ctx(t), m))
	name := soapftp.FileName(m.ID)
	fault := strings.TrimSuffix(name, ".xml") + ".fault.xml"
	require.Eventually(t, func() bool { return len(e.files(t, "svc/failed")) == 2 }, 10*time.Second, 5*time.Millisecond)
	assert.ElementsMatch(t, []string{name, fault}, e.files(t, "svc/failed"))

	f := readFault(t, e.path("svc/failed", fault))
	assert.Equal(t, core.CodeSender, f.Code)
	assert.Equal(t, "account 7 is closed", f.Reason)
	parked, err := os.ReadFile(e.path("svc/failed", name))
	require.NoError(t, err)
	assert.Equal(t, string(envelope(t, m)), string(parked), "the parked file is the message as sent")
	assert.Empty(t, e.files(t, "svc/inbox"))
	assert.Empty(t, e.files(t, "svc/work"))
	e.log.contains(t, "message parked in the failed folder")
}

// readFault reads a .fault.xml.
func readFault(t testing.TB, file string) *core.Fault {
	t.Helper()
	f, err := os.Open(file)
	require.NoError(t, err)
	defer f.Close()
	m, err := core.ReadMessage(f, core.Limits{})
	require.NoError(t, err)
	require.NotNil(t, m.Fault(), "%s holds a fault", file)
	assert.Equal(t, core.FaultAction, m.Action)
	return m.Fault()
}

// TestOutboxBackChannel: a request with an anonymous (or no) ReplyTo is
// answered into the endpoint's outbox, the file drop's back-channel.
func TestOutboxBackChannel(t *testing.T) {
	for _, replyTo := range []string{core.AnonymousAddress, ""} {
		t.Run("ReplyTo="+replyTo, func(t *testing.T) {
			e := newEnv(t)
			p := e.poller(t, "/rpc")
			serve(t, p, core.HandlerFunc(func(_ context.Context, m *core.Message) (*core.Message, error) {
				return m.Reply(core.RawBody([]byte(`<t:Pong xmlns:t="` + testNS + `">` + text(t, m) + `</t:Pong>`))), nil
			}), soapftp.NewSender(e.client, soapftp.WithLogger(e.trace.With("by", "sender"))), core.WithLogger(e.trace.With("by", "serve")))
			req := ping(core.V11, "are you there")
			req.ReplyTo = replyTo
			upload(t, e, "/rpc/inbox/request.xml", envelope(t, req))

			// The peer polls the outbox.
			out, err := soapftp.NewPoller(e.client, "/rpc", soapftp.WithLayout(soapftp.Layout{Inbox: "outbox", Work: "outbox-work", Failed: "outbox-failed"}), soapftp.WithPollInterval(5*time.Millisecond), soapftp.WithMaxPollInterval(20*time.Millisecond), soapftp.WithLogger(e.trace.With("by", "outbox poller")))
			require.NoError(t, err)
			t.Cleanup(func() { out.Close() })
			d, err := out.Receive(ctx(t))
			require.NoError(t, err)
			assert.Equal(t, req.ID, d.Message().RelatesTo)
			assert.Equal(t, p.ReplyAddress(), d.Message().To)
			assert.Equal(t, "are you there", text(t, d.Message()))
			require.NoError(t, d.Ack(ctx(t)))
		})
	}
}

// TestSlowUploadNotPickedEarly: while a Sender is still streaming a
// message, the Poller sees only the temporary (dot) file and passes over it;
// the message arrives whole once the Sender renamed it.
func TestSlowUploadNotPickedEarly(t *testing.T) {
	e := newEnv(t)
	p := e.poller(t, "/slow")
	release := make(chan struct{})
	started := make(chan struct{})
	body := core.StreamBody(xmlName("Ping"), func(w io.Writer) error {
		io.WriteString(w, `<t:Ping xmlns:t="`+testNS+`">first half, `)
		if f, ok := w.(interface{ Flush() error }); ok {
			f.Flush()
		}
		close(started)
		<-release
		_, err := io.WriteString(w, `second half</t:Ping>`)
		return err
	})
	m := core.NewMessage(core.V12, body)
	m.ID, m.To = core.NewMessageID(), p.Address()
	sent := make(chan error, 1)
	go func() { sent <- soapftp.NewSender(e.client).Send(context.Background(), m) }()
	<-started

	// The temporary file is there and growing; the Poller must not take it.
	require.Eventually(t, func() bool {
		names := e.files(t, "slow/inbox")
		return len(names) == 1 && strings.HasPrefix(names[0], ".")
	}, 10*time.Second, time.Millisecond)
	for range 3 { // several polls
		c, cancel := context.WithTimeout(context.Background(), 60*time.Millisecond)
		d, err := p.Receive(c)
		cancel()
		require.ErrorIs(t, err, context.DeadlineExceeded, "received %v before the upload finished", d)
	}
	close(release)
	require.NoError(t, <-sent)
	d, err := p.Receive(ctx(t))
	require.NoError(t, err)
	assert.Equal(t, "first half, second half", text(t, d.Message()))
	require.NoError(t, d.Ack(ctx(t)))
}

// TestSlowRawUpload: a partner's tool that uploads under a temporary name
// (dot file) and renames at the end is never picked mid-upload either.
func TestSlowRawUpload(t *testing.T) {
	e := newEnv(t)
	p := e.poller(t, "/raw")
	m := ping(core.V11, "slowly")
	data := envelope(t, m)
	pr, pw := io.Pipe()
	c := rawConn(t, e.srv.Addr())
	stored := make(chan error, 1)
	go func() { stored <- c.Stor("/raw/inbox/.upload.xml.tmp", pr) }()
	_, err := pw.Write(data[:len(data)/2])
	require.NoError(t, err)
	cctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	_, err = p.Receive(cctx)
	cancel()
	require.ErrorIs(t, err, context.DeadlineExceeded)
	_, err = pw.Write(data[len(data)/2:])
	require.NoError(t, err)
	require.NoError(t, pw.Close())
	require.NoError(t, <-stored)
	require.NoError(t, c.Rename("/raw/inbox/.upload.xml.tmp", "/raw/inbox/upload.xml"))
	d, err := p.Receive(ctx(t))
	require.NoError(t, err)
	assert.Equal(t, "slowly", text(t, d.Message()))
	require.NoError(t, d.Ack(ctx(t)))
}

// TestUnreadableFilesParked: files that are not a deliverable SOAP message
// never reach the handler; each ends in failed/ with a .fault.xml saying
// why, and a log line.
func TestUnreadableFilesParked(t *testing.T) {
	env11 := `<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><x/></s:Body></s:Envelope>`
	tests := []struct {
		name   string
		data   string
		code   core.Code
		reason string // in the fault's reason
	}{
		{"empty.xml", "", core.CodeSender, "is empty"},
		{"text.xml", "hello, this is not XML", core.CodeSender, ""},
		{"html.xml", "<html><body>404</body></html>", core.CodeSender, "not a SOAP Envelope"},
		{"doctype.xml", `<!DOCTYPE x [<!ENTITY e "boom">]>` + env11, core.CodeSender, "document type declarations"},
		{"other-ns.xml", `<Envelope xmlns="urn:not-soap"><Body/></Envelope>`, core.CodeVersionMismatch, ""},
		{"truncated.xml", env11[:40], core.CodeSender, ""},
		{"too-large.xml", strings.Replace(env11, "<x/>", "<x>"+strings.Repeat("y", 600)+"</x>", 1), core.CodeSender, "too large"},
	}
	e := newEnv(t)
	p := e.poller(t, "/bad", soapftp.WithLimits(core.Limits{MaxBytes: 512}))
	for _, tt := range tests {
		e.drop(t, "bad/inbox", tt.name, []byte(tt.data))
	}
	handled := make(chan string, len(tests))
	serve(t, p, core.HandlerFunc(func(_ context.Context, m *core.Message) (*core.Message, error) {
		handled <- m.Meta[soapftp.MetaFile]
		return nil, nil
	}), nil)
	require.Eventually(t, func() bool { return len(e.files(t, "bad/failed")) == 2*len(tests) }, 10*time.Second, 5*time.Millisecond,
		"failed/ holds %v", e.files(t, "bad/failed"))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := readFault(t, e.path("bad/failed", strings.TrimSuffix(tt.name, ".xml")+".fault.xml"))
			assert.Equal(t, tt.code, f.Code, "fault code; reason %q", f.Reason)
			assert.NotEmpty(t, f.Reason)
			assert.Contains(t, f.Reason, tt.reason)
			parked, err := os.ReadFile(e.path("bad/failed", tt.name))
			require.NoError(t, err)
			assert.Equal(t, tt.data, string(parked), "the parked file is unchanged")
			e.log.contains(t, "name="+tt.name)
		})
	}
	select {
	case name := <-handled:
		t.Errorf("the handler got %s", name)
	default:
	}
	assert.Empty(t, e.files(t, "bad/inbox"))
	assert.Empty(t, e.files(t, "bad/work"))
}

func xmlName(local string) xml.Name { return xml.Name{Space: testNS, Local: local} }
