package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soapnats "github.com/soapwire/soapwire/bindings/nats"
	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/document"
)

// TestMain runs main instead of the tests when TestMainExits asks for it,
// so that the program's flags and exit codes are tested without building
// it.
func TestMain(m *testing.M) {
	if args, ok := os.LookupEnv("CROSSTRANSPORT_MAIN_ARGS"); ok {
		os.Args = append([]string{"crosstransport"}, strings.Fields(args)...)
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestMainExits runs the program: it exits 0 when the conversation
// completes, 1 with a message saying why otherwise.
func TestMainExits(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a-file")
	require.NoError(t, os.WriteFile(file, nil, 0o600))
	for _, tt := range []struct {
		name, args string
		code       int
		stdout     []string
		stderr     string
	}{
		{"completes", "-dir " + filepath.Join(dir, "run"), 0, []string{"run folder: " + filepath.Join(dir, "run"), "hop 6  sftp", "hop 7  ftp", "completed\n"}, ""},
		{"temporary folder", "", 0, []string{"run folder: $TMPDIR/soapwire-crosstransport-", "completed\n"}, ""},
		{"timeout", "-timeout 1ms -dir " + filepath.Join(dir, "late"), 1, nil, "crosstransport: timed out after 1ms: "},
		{"unusable folder", "-dir " + filepath.Join(file, "run"), 1, nil, "crosstransport: mkdir " + file + ": not a directory\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.CommandContext(runCtx(t, 30*time.Second), os.Args[0], "-test.run=^$")
			tmp := t.TempDir()
			cmd.Env = append(os.Environ(), "CROSSTRANSPORT_MAIN_ARGS="+tt.args, "TMPDIR="+tmp)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			code := 0
			if ee, ok := errors.AsType[*exec.ExitError](err); ok {
				code = ee.ExitCode()
			} else {
				require.NoError(t, err)
			}
			assert.Equal(t, tt.code, code, "exit code; stderr: %s", stderr.String())
			want := make([]string, len(tt.stdout))
			for i, w := range tt.stdout {
				want[i] = strings.ReplaceAll(w, "$TMPDIR", tmp)
			}
			inOrder(t, stdout.String(), want...)
			if tt.stderr == "" {
				assert.Empty(t, stderr.String())
			} else {
				assert.True(t, strings.HasPrefix(stderr.String(), tt.stderr), "stderr: %q", stderr.String())
			}
		})
	}
}

// hopLine is a hop as the program printed it.
type hopLine struct {
	n                          string
	transport, from, to, note  string
	action, id, relatesTo, tag string
}

var (
	hopHead = regexp.MustCompile(`^hop (\d+)  (\S+)\s+(.+?) -> (.+?)  \((.*)\)$`)
	hopAddr = regexp.MustCompile(`^       action=(\S+) id=(\S+) relates-to=(\S+)(?: \((.*)\))?$`)
)

// hops parses the hops out of the output: each is a header line and an
// addressing line.
func hops(t *testing.T, out string) []hopLine {
	t.Helper()
	lines := strings.Split(out, "\n")
	var hs []hopLine
	for i, l := range lines {
		m := hopHead.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		require.Less(t, i+1, len(lines), "hop without its addressing line")
		a := hopAddr.FindStringSubmatch(lines[i+1])
		require.NotNil(t, a, "addressing line of %q: %q", l, lines[i+1])
		hs = append(hs, hopLine{n: m[1], transport: m[2], from: m[3], to: m[4], note: m[5], action: a[1], id: a[2], relatesTo: a[3], tag: a[4]})
	}
	return hs
}

// runCtx bounds a run well below the test binary's timeout.
func runCtx(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), d)
	t.Cleanup(cancel)
	return ctx
}

// TestRun runs the conversation and checks every hop: its transport, its
// route, its action, and that each relates-to leads back to the order's
// message id; then what the run left in its folder, and that it left no
// goroutine running.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	require.NoError(t, run(runCtx(t, 30*time.Second), &out, dir))
	got := out.String()
	t.Log("\n" + got)
	if !assert.Eventually(t, func() bool { return len(leftGoroutines()) == 0 }, 10*time.Second, 10*time.Millisecond) {
		t.Errorf("run left goroutines running:\n%s", strings.Join(leftGoroutines(), "\n\n"))
	}

	hs := hops(t, got)
	require.Len(t, hs, 7, "seven hops")
	for i, want := range []struct{ transport, from, to, action string }{
		{"http", "customer", "order desk", actionOrder},
		{"nats", "order desk", "warehouse", actionStockCheck},
		{"nats", "warehouse", "order desk", actionStockOK},
		{"nats", "order desk", "fulfilment", actionOrder},
		{"imap", "fulfilment", "customer", actionConfirmation},
		{"sftp", "fulfilment", "carrier", actionDespatch},
		{"ftp", "fulfilment", "customer", actionInvoice},
	} {
		h := hs[i]
		assert.Equal(t, want, struct{ transport, from, to, action string }{h.transport, h.from, h.to, h.action}, "hop %d", i+1)
		assert.Equal(t, strconv.Itoa(i+1), h.n, "hops are numbered in order")
		assert.True(t, strings.HasPrefix(h.id, "urn:uuid:"), "hop %d: id %q", i+1, h.id)
	}
	order := hs[0].id
	assert.Equal(t, "-", hs[0].relatesTo, "the order starts the conversation")
	assert.Equal(t, "-", hs[1].relatesTo, "the stock check is a request of its own")
	assert.Equal(t, hs[1].id, hs[2].relatesTo, "the warehouse's reply relates to the stock check")
	assert.Equal(t, "the stock check", hs[2].tag)
	assert.Equal(t, order, hs[3].id, "the order desk forwards the order itself: same message id")
	for _, h := range hs[4:] {
		assert.Equal(t, order, h.relatesTo, "%s relates to the order", h.action)
		assert.Equal(t, "the order", h.tag)
	}
	ids := map[string]bool{}
	for _, h := range []hopLine{hs[0], hs[1], hs[2], hs[4], hs[5], hs[6]} {
		assert.False(t, ids[h.id], "id %s used twice", h.id)
		ids[h.id] = true
	}

	// What each transport said, in the order the conversation happened.
	assert.Equal(t, "POST /orders", hs[0].note)
	assert.Equal(t, "request on stock.check, queue group warehouse", hs[1].note)
	assert.Equal(t, "JetStream ORDERS #1, consumer fulfilment, delivery 1", hs[3].note)
	assert.Equal(t, "mail to "+buyerMail+", in INBOX", hs[4].note)
	adviceFile := strings.TrimPrefix(hs[5].id, "urn:uuid:") + ".xml"
	assert.Equal(t, "file "+adviceFile, hs[5].note, "the SFTP file is named after the advice's message id")
	invoiceFile := strings.TrimPrefix(hs[6].id, "urn:uuid:") + ".xml"
	assert.Equal(t, "file "+invoiceFile, hs[6].note, "the FTP file is named after the invoice's message id")
	inOrder(t, got,
		"run folder: "+dir,
		"hop 3 ",
		"order desk: PO-1001 in stock, reservation RES-1001; forwarding it to fulfilment",
		"order desk: stored in JetStream stream ORDERS as message 1",
		"customer: HTTP 202 Accepted",
		"hop 4 ",
		"fulfilment: confirmation mailed to customer@buyer.example",
		"fulfilment: dropped the despatch advice in the carrier's SFTP inbox as "+adviceFile,
		"fulfilment: dropped the invoice in the customer's folder as "+invoiceFile,
		"hop 5 ",
		`customer's mailbox: from fulfilment@shop.example, subject "Order PO-1001 confirmed", In-Reply-To <`+strings.TrimPrefix(order, "urn:uuid:")+`@uuid.invalid>`,
		"customer's mailbox: PO-1001 confirmed, 3 lines, ships within 2 working days",
		"hop 6 ",
		"carrier: collection of PO-1001 booked, 3 parcels, tomorrow 08:00-12:00",
		"hop 7 ",
		"customer: the Correlator returned INV-1001 for PO-1001, total 71.00 EUR: its RelatesTo is the order's MessageID",
		"customer: conversation "+order+" completed",
		"left in "+dir+":",
	)

	// What the run left behind: the mail as the MX received it (delivered
	// into the IMAP INBOX, from which the customer read it), the taken
	// invoice, the completed conversation.
	mails, err := os.ReadDir(filepath.Join(dir, "mail", "customer", "cur"))
	require.NoError(t, err)
	require.Len(t, mails, 1)
	mail, err := os.ReadFile(filepath.Join(dir, "mail", "customer", "cur", mails[0].Name()))
	require.NoError(t, err)
	assert.Contains(t, string(mail), "In-Reply-To: <"+strings.TrimPrefix(order, "urn:uuid:")+"@uuid.invalid>")
	assert.Contains(t, string(mail), "<Order>PO-1001</Order>")
	for _, empty := range []string{"mail/customer/new", "mail/customer/failed", "sftp/carrier/inbox", "sftp/carrier/work", "sftp/carrier/failed",
		"ftp/customer/inbox", "ftp/customer/work", "ftp/customer/failed"} {
		entries, err := os.ReadDir(filepath.Join(dir, filepath.FromSlash(empty)))
		require.NoError(t, err)
		assert.Empty(t, entries, "%s: nothing left unprocessed or parked", empty)
	}
	advice, err := os.ReadFile(filepath.Join(dir, "sftp", "carrier", "done", adviceFile))
	require.NoError(t, err)
	assert.Contains(t, string(advice), "<Parcels>3</Parcels>")
	invoice, err := os.ReadFile(filepath.Join(dir, "ftp", "customer", "done", invoiceFile))
	require.NoError(t, err)
	assert.Contains(t, string(invoice), "<TotalCents>7100</TotalCents>")
	conv := conversation(t, dir, order)
	assert.Equal(t, document.StateCompleted, conv.State)
	assert.Empty(t, conv.Pending)

	// JetStream's store, opened again: the order is in ORDERS, nothing
	// was dead-lettered.
	srv, err := soapnats.StartServer(filepath.Join(dir, "nats"))
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, srv.Close()) })
	nc, err := srv.Connect()
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	for name, msgs := range map[string]uint64{ordersStream: 1, "DEAD": 0} {
		st, err := js.Stream(t.Context(), name)
		require.NoError(t, err)
		info, err := st.Info(t.Context())
		require.NoError(t, err)
		assert.Equal(t, msgs, info.State.Msgs, "messages in stream %s", name)
	}
	stored, err := js.Stream(t.Context(), ordersStream)
	require.NoError(t, err)
	raw, err := stored.GetMsg(t.Context(), 1)
	require.NoError(t, err)
	assert.Equal(t, order, raw.Header.Get(soapnats.HeaderMessageID), "the stored order is the customer's, by its id")
}

// TestRunRefused: an order the warehouse cannot serve is refused; the fault
// travels from the order desk to the customer's drop folder (FTP) and the
// Correlator returns it; run fails with the warehouse's reason.
func TestRunRefused(t *testing.T) {
	dir := t.TempDir()
	po := sampleOrder()
	po.Number = "PO-1002"
	po.Lines = []Line{{SKU: "GEAR-42", Qty: 100}}
	var out bytes.Buffer
	err := run(runCtx(t, 30*time.Second), &out, dir, withOrder(po))
	got := out.String()
	t.Log("\n" + got)
	require.Error(t, err)
	assert.Equal(t, "order PO-1002 refused (a Sender fault, by FTP): PO-1002 refused: 100 × GEAR-42 ordered, 12 in stock", err.Error())
	var f *core.Fault
	assert.NotErrorAs(t, err, &f, "run says what happened in words")

	hs := hops(t, got)
	require.Len(t, hs, 3)
	assert.Equal(t, []string{"http", "nats", "ftp"}, []string{hs[0].transport, hs[1].transport, hs[2].transport})
	fault := hs[2]
	assert.Equal(t, core.FaultAction, fault.action)
	assert.Equal(t, "order desk", fault.from)
	assert.Equal(t, hs[0].id, fault.relatesTo, "the fault relates to the order")
	inOrder(t, got,
		"hop 2 ",
		"order desk: the warehouse answered with a fault: 100 × GEAR-42 ordered, 12 in stock",
		"order desk: dropped a fault in the customer's folder as ",
		"customer: HTTP 202 Accepted",
		"hop 3 ",
	)
	assert.NotContains(t, got, "fulfilment")
	assert.Equal(t, document.StateFailed, conversation(t, dir, hs[0].id).State)
}

// TestRunTimeout: with fulfilment down the order waits in JetStream, no
// invoice comes, and run fails once its ctx ends, saying which step did
// not happen.
func TestRunTimeout(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	start := time.Now()
	err := run(runCtx(t, 3*time.Second), &out, dir, func(c *config) { c.fulfilmentDown = true })
	got := out.String()
	t.Log("\n" + got)
	require.ErrorIs(t, err, document.ErrTimeout)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Contains(t, err.Error(), "no invoice in time (context deadline exceeded); still waiting for fulfilment to receive the order from JetStream")
	assert.Less(t, time.Since(start), 15*time.Second, "run stops soon after its ctx ends")
	inOrder(t, got, "hop 3 ", "order desk: stored in JetStream stream ORDERS as message 1", "customer: HTTP 202 Accepted")
	assert.Len(t, hops(t, got), 3)
	conv := conversation(t, dir, hops(t, got)[0].id)
	assert.Equal(t, document.StateExpired, conv.State)
}

// received returns m as a party receives it: written, then read back.
func received(t *testing.T, m *core.Message) *document.Incoming {
	t.Helper()
	var buf bytes.Buffer
	_, err := m.WriteTo(&buf)
	require.NoError(t, err)
	r, err := core.ReadMessage(&buf, core.Limits{})
	require.NoError(t, err)
	return &document.Incoming{Message: r, Conversation: document.ConversationOf(r)}
}

// nothingSent is a Sender and a RoundTripper that fails the test if used.
func nothingSent(t *testing.T) (core.SendFunc, core.RoundTripFunc) {
	return func(_ context.Context, m *core.Message) error {
			t.Errorf("sent %s to %s", m.Action, m.To)
			return nil
		}, func(_ context.Context, m *core.Message) (*core.Message, error) {
			t.Errorf("asked %s at %s", m.Action, m.To)
			return nil, nil
		}
}

func lines(n, qty int) []Line {
	ls := make([]Line, n)
	for i := range ls {
		ls[i] = Line{SKU: "BOLT-M8", Qty: qty}
	}
	return ls
}

// TestOrderDeskRefusals: an order the order desk cannot take is a Sender
// fault (which its document.Handler sends to FaultTo), before it asks the
// warehouse or forwards anything.
func TestOrderDeskRefusals(t *testing.T) {
	const replyTo = "ftp://127.0.0.1:2121/customer/inbox"
	for _, tt := range []struct {
		name    string
		doc     any
		replyTo string
		reason  string
	}{
		{"not an order", Confirmation{Order: "PO-1"}, replyTo, "not a purchase order"},
		{"not XML of ours", "<x:Order xmlns:x=\"urn:other\"><Number>PO-1</Number></x:Order>", replyTo, "not a purchase order"},
		{"no number", PurchaseOrder{Buyer: buyerMail, Lines: lines(1, 1)}, replyTo, "an order needs a number"},
		{"no lines", PurchaseOrder{Number: "PO-1", Buyer: buyerMail}, replyTo, "an order needs 1 to 100 lines, not 0"},
		{"too many lines", PurchaseOrder{Number: "PO-1", Buyer: buyerMail, Lines: lines(101, 1)}, replyTo, "an order needs 1 to 100 lines, not 101"},
		{"no quantity", PurchaseOrder{Number: "PO-1", Buyer: buyerMail, Lines: lines(1, 0)}, replyTo, `line "BOLT-M8" × 0: an order line needs a SKU and a quantity of 1 to 1000000`},
		{"negative quantity", PurchaseOrder{Number: "PO-1", Buyer: buyerMail, Lines: lines(1, -5)}, replyTo, `line "BOLT-M8" × -5: an order line needs a SKU and a quantity of 1 to 1000000`},
		{"huge quantity", PurchaseOrder{Number: "PO-1", Buyer: buyerMail, Lines: lines(1, 1_000_001)}, replyTo, `line "BOLT-M8" × 1000001: an order line needs a SKU and a quantity of 1 to 1000000`},
		{"no SKU", PurchaseOrder{Number: "PO-1", Buyer: buyerMail, Lines: []Line{{Qty: 1}}}, replyTo, `line "" × 1: an order line needs a SKU and a quantity of 1 to 1000000`},
		{"no ReplyTo", sampleOrder(), "", "an order needs a ReplyTo address: the invoice is sent there later"},
		{"anonymous ReplyTo", sampleOrder(), core.AnonymousAddress, "an order needs a ReplyTo address: the invoice is sent there later"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			send, ask := nothingSent(t)
			desk := &orderDesk{warehouse: ask, forward: document.NewOutbox(map[string]core.Sender{"nats": send}), to: ordersTo, tr: newTrace(io.Discard)}
			in := received(t, document.NewMessage("http://127.0.0.1/orders", tt.doc, document.WithAction(actionOrder), document.WithReplyTo(tt.replyTo)))
			reply, err := desk.handle(t.Context(), in)
			assert.Nil(t, reply)
			f, ok := errors.AsType[*core.Fault](err)
			require.True(t, ok, "a fault, not %v", err)
			assert.Equal(t, core.CodeSender, f.Code)
			assert.Equal(t, tt.reason, f.Reason)
		})
	}
}

// TestFulfilmentRefusals: an order fulfilment cannot serve is a Sender
// fault before anything is mailed, and the buyer's address from the
// document is held to the mail Policy.
func TestFulfilmentRefusals(t *testing.T) {
	order := func(change func(po *PurchaseOrder)) PurchaseOrder {
		po := sampleOrder()
		change(&po)
		return po
	}
	for _, tt := range []struct {
		name   string
		doc    any
		reason string
	}{
		{"not an order", Invoice{Number: "INV-1"}, "not a purchase order"},
		{"no lines", order(func(po *PurchaseOrder) { po.Lines = nil }), "an order needs 1 to 100 lines, not 0"},
		{"buyer elsewhere", order(func(po *PurchaseOrder) { po.Buyer = "someone@elsewhere.example" }), `the buyer's mail address is refused (reply address "mailto:someone@elsewhere.example": mailbox "someone@elsewhere.example" is not allowed)`},
		{"second recipient", order(func(po *PurchaseOrder) { po.Buyer = buyerMail + "?cc=someone@elsewhere.example" }), `the buyer's mail address is refused (reply address "mailto:customer@buyer.example?cc=someone@elsewhere.example": mailto header fields (?cc=, ?bcc=, …) are not allowed)`},
		{"no buyer", order(func(po *PurchaseOrder) { po.Buyer = "" }), `the buyer's mail address is refused (reply address "mailto:": mailto address is not an address)`},
		{"unknown SKU", order(func(po *PurchaseOrder) { po.Lines = append(po.Lines, Line{SKU: "WIDGET", Qty: 1}) }), "no price for WIDGET"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			send, _ := nothingSent(t)
			f := &fulfilment{out: send, mail: core.ReplyPolicy{Schemes: []string{"mailto"}, Mailboxes: []string{"@buyer.example"}}, prices: prices(), tr: newTrace(io.Discard)}
			in := received(t, document.NewMessage(ordersTo, tt.doc, document.WithAction(actionOrder), document.WithReplyTo("ftp://127.0.0.1:2121/customer/inbox")))
			reply, err := f.handle(t.Context(), in)
			assert.Nil(t, reply)
			fault, ok := errors.AsType[*core.Fault](err)
			require.True(t, ok, "a fault, not %v", err)
			assert.Equal(t, core.CodeSender, fault.Code)
			assert.Equal(t, tt.reason, fault.Reason)
		})
	}
}

// TestTrace: events print in step order whatever order they come in;
// wait names the first step that did not happen; flush prints what was
// held back behind it.
func TestTrace(t *testing.T) {
	var out bytes.Buffer
	tr := newTrace(&out)
	m := &core.Message{Action: "a", ID: "id-1"}
	tr.name("id-0", "the order")
	tr.say(stepStockIn, "two")
	assert.Empty(t, out.String(), "step 2 waits for step 1")
	tr.hop(stepOrderIn, hop{transport: "http", route: "x -> y", note: "n", m: &core.Message{Action: "a", ID: "id-0"}}, "one")
	tr.say(stepAccepted, "five")
	assert.Equal(t, "hop 1  http  x -> y  (n)\n       action=a id=id-0 relates-to=-\n       one\n       two\n", out.String())

	m.RelatesTo = "id-0"
	tr.hop(stepStockOut, hop{transport: "nats", route: "y -> z", m: m})
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
	defer cancel()
	err := tr.wait(ctx)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Equal(t, "still waiting for the order desk to store the order in JetStream: context deadline exceeded", err.Error())
	assert.Equal(t, stepForward, tr.missing())
	tr.flush()
	assert.True(t, strings.HasSuffix(out.String(), "hop 2  nats  y -> z\n       action=a id=id-1 relates-to=id-0 (the order)\n       five\n"), out.String())

	tr.say(stepOrderIn, "again")
	assert.True(t, strings.HasSuffix(out.String(), "       again\n"), "an event whose turn has passed prints at once")
}

// TestREADMEShowsTheOutput: README.md shows what the program prints, up to
// what changes from run to run (the folder, ports, ids).
func TestREADMEShowsTheOutput(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(runCtx(t, 30*time.Second), &out, t.TempDir()))
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	block := sampleBlock(t, string(readme))
	assert.Equal(t, normalize(strings.TrimSpace(out.String())), normalize(block), "README.md's sample output is out of date")
}

// sampleBlock returns the code block of README.md that starts with the
// program's first line.
func sampleBlock(t *testing.T, readme string) string {
	t.Helper()
	const first = "```\ncrosstransport: "
	i := strings.Index(readme, first)
	require.GreaterOrEqual(t, i, 0, "README.md has no sample output")
	rest := readme[i+4:]
	j := strings.Index(rest, "\n```")
	require.GreaterOrEqual(t, j, 0)
	return rest[:j]
}

var (
	runFolder = regexp.MustCompile(`(?m)^run folder: (.+)$`)
	uuid      = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	port      = regexp.MustCompile(`127\.0\.0\.1:\d+`)
)

// normalize replaces what differs between runs: the run folder, loopback
// ports, and UUIDs (numbered in order of appearance, so that which ids
// are equal still shows).
func normalize(s string) string {
	if m := runFolder.FindStringSubmatch(s); m != nil {
		s = strings.ReplaceAll(s, m[1], "$DIR")
	}
	s = port.ReplaceAllString(s, "127.0.0.1:PORT")
	seen := map[string]string{}
	return uuid.ReplaceAllStringFunc(s, func(u string) string {
		if _, ok := seen[u]; !ok {
			seen[u] = "uuid-" + string(rune('A'+len(seen)))
		}
		return seen[u]
	})
}

// leftGoroutines returns the stacks of the goroutines running code of
// the servers and bindings a run starts.
func leftGoroutines() []string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var left []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		for _, pkg := range []string{"soapwire/bindings/", "soapwire/core.", "soapwire/document.", "nats-io/", "goftp.io/", "go-smtp", "jlaffaye/", "pkg/sftp", "x/crypto/ssh", "net/http."} {
			if strings.Contains(g, pkg) {
				left = append(left, g)
				break
			}
		}
	}
	return left
}

// inOrder checks that the lines appear in s in this order.
func inOrder(t *testing.T, s string, parts ...string) {
	t.Helper()
	rest := s
	for _, p := range parts {
		i := strings.Index(rest, p)
		if !assert.GreaterOrEqual(t, i, 0, "missing, or out of order: %q", p) {
			return
		}
		rest = rest[i+len(p):]
	}
}

// conversation reads the customer's record of a conversation.
func conversation(t *testing.T, dir, id string) *document.Conversation {
	t.Helper()
	st, err := document.NewFileStore(filepath.Join(dir, "state", "customer"))
	require.NoError(t, err)
	c, err := st.Get(t.Context(), id)
	require.NoError(t, err)
	return c
}
