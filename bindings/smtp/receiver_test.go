package smtp_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soapsmtp "github.com/soapwire/soapwire/bindings/smtp"
	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/coretest"
)

// crashHelperEnv makes the test binary a receiving process that claims one
// mail and waits to be killed (TestCrashAfterClaimLosesNothing).
const crashHelperEnv = "SOAPWIRE_SMTP_CRASH_HELPER"

func TestMain(m *testing.M) {
	if dir := os.Getenv(crashHelperEnv); dir != "" {
		os.Exit(crashHelper(dir))
	}
	if dir := os.Getenv(handoverCrashEnv); dir != "" {
		os.Exit(handoverCrashHelper(dir))
	}
	os.Exit(coretest.RunWithPeerSummary(m))
}

func crashHelper(dir string) int {
	mb, err := soapsmtp.OpenMaildir(dir)
	if err != nil {
		fmt.Println("ERROR", err)
		return 1
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	d, err := soapsmtp.NewReceiver(mb).Receive(ctx)
	if err != nil {
		fmt.Println("ERROR", err)
		return 1
	}
	fmt.Println("CLAIMED", d.Message().Meta[soapsmtp.MetaFile], d.Message().ID)
	<-ctx.Done() // killed before this
	return 2
}

// sendN sends n pings to ts and returns their IDs.
func sendN(t *testing.T, s *soapsmtp.Sender, ts *testServer, n int) []string {
	t.Helper()
	var ids []string
	for i := range n {
		m := ping(core.V12, fmt.Sprint(i))
		m.To = ts.mailto
		require.NoError(t, s.Send(ctxT(t), m))
		ids = append(ids, m.ID)
	}
	return ids
}

// TestRestartLosesNothing: mails answered 250 while no Receiver ran, and a
// mail left unsettled by a Receiver that was closed, are all received by a
// Receiver started afterwards on the same folder (a new process would open
// it the same way).
func TestRestartLosesNothing(t *testing.T) {
	dir := t.TempDir()
	ts := startServer(t, dir)
	ids := sendN(t, newSender(t, ts.addr), ts, 5)
	ts.shutdown() // the service stops after answering 250, before processing

	mb1, err := soapsmtp.OpenMaildir(dir)
	require.NoError(t, err)
	r1 := soapsmtp.NewReceiver(mb1)
	d1, err := r1.Receive(ctxT(t))
	require.NoError(t, err)
	require.NoError(t, d1.Ack(ctxT(t)))
	unsettled, err := r1.Receive(ctxT(t))
	require.NoError(t, err)
	require.NoError(t, r1.Close(), "close with a delivery unsettled")
	assert.ErrorIs(t, unsettled.Ack(ctxT(t)), soapsmtp.ErrReleased, "the released delivery is no longer ours")

	mb2, err := soapsmtp.OpenMaildir(dir)
	require.NoError(t, err)
	r2 := newReceiver(t, mb2)
	got := map[string]bool{d1.Message().ID: true}
	for len(got) < len(ids) {
		d, err := r2.Receive(ctxT(t))
		require.NoError(t, err)
		assert.False(t, got[d.Message().ID], "received twice: %s", d.Message().ID)
		got[d.Message().ID] = true
		require.NoError(t, d.Ack(ctxT(t)))
	}
	for _, id := range ids {
		assert.True(t, got[id], "lost %s", id)
	}
	assert.Empty(t, files(t, dir, soapsmtp.FolderNew))
	assert.Empty(t, files(t, dir, soapsmtp.FolderWork))
}

// TestCrashAfterClaimLosesNothing: a process claims a mail and is killed
// (SIGKILL) before settling it. While it lives no one else gets the mail;
// once it is dead, a Receiver returns the mail to new/ and receives it.
func TestCrashAfterClaimLosesNothing(t *testing.T) {
	dir := t.TempDir()
	ts := startServer(t, dir)
	ids := sendN(t, newSender(t, ts.addr), ts, 1)

	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), crashHelperEnv+"="+dir)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, err)
	fields := strings.Fields(line)
	require.Len(t, fields, 3, "helper said %q", line)
	require.Equal(t, "CLAIMED", fields[0], line)
	require.Equal(t, ids[0], fields[2])
	assert.Equal(t, []string{fields[1]}, files(t, dir, soapsmtp.FolderWork), "the claim is in work/")

	r := newReceiver(t, ts.mb, soapsmtp.WithRecoverInterval(20*time.Millisecond))
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	_, err = r.Receive(ctx)
	require.ErrorIs(t, err, context.DeadlineExceeded, "a live claim is not taken")

	require.NoError(t, cmd.Process.Kill())
	cmd.Wait()
	d, err := r.Receive(ctxT(t))
	require.NoError(t, err)
	assert.Equal(t, ids[0], d.Message().ID)
	assert.Equal(t, "0", bodyText(t, d.Message()))
	require.NoError(t, d.Ack(ctxT(t)))
}

// TestReceiversShareAMaildirExactlyOnce: three Receivers on one folder (two
// with a Maildir of their own, as other processes would have, each
// recovering claims every 20 ms), served concurrently, process each mail
// exactly once.
func TestReceiversShareAMaildirExactlyOnce(t *testing.T) {
	dir := t.TempDir()
	ts := startServer(t, dir)
	var counts sync.Map
	var total atomic.Int64
	h := core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		n, _ := counts.LoadOrStore(m.ID, new(atomic.Int64))
		n.(*atomic.Int64).Add(1)
		total.Add(1)
		time.Sleep(time.Millisecond)
		return nil, nil
	})
	ctx, cancel := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	t.Cleanup(func() { cancel(); wg.Wait() })
	for i := range 3 {
		mb := ts.mb
		if i > 0 {
			var err error
			mb, err = soapsmtp.OpenMaildir(dir)
			require.NoError(t, err)
		}
		r := newReceiver(t, mb, soapsmtp.WithRecoverInterval(20*time.Millisecond), soapsmtp.WithPollInterval(10*time.Millisecond))
		wg.Add(1)
		go func() {
			defer wg.Done()
			assert.NoError(t, core.Serve(ctx, r, h, nil, core.WithConcurrency(4)))
		}()
	}
	const n, senders = 120, 6
	s := newSender(t, ts.addr)
	var ids sync.Map
	var swg sync.WaitGroup
	for g := range senders {
		swg.Add(1)
		go func() {
			defer swg.Done()
			for i := g; i < n; i += senders {
				m := ping(core.V11, fmt.Sprint(i))
				m.To = ts.mailto
				if assert.NoError(t, s.Send(ctxT(t), m)) {
					ids.Store(m.ID, true)
				}
			}
		}()
	}
	swg.Wait()
	require.Eventually(t, func() bool { return total.Load() >= n }, 20*time.Second, 10*time.Millisecond, "all mails processed")
	require.Eventually(t, func() bool {
		return len(files(t, dir, soapsmtp.FolderNew))+len(files(t, dir, soapsmtp.FolderWork)) == 0
	}, 10*time.Second, 10*time.Millisecond, "all mails settled")
	time.Sleep(50 * time.Millisecond) // a duplicate would show up now; none can make the test pass
	assert.EqualValues(t, n, total.Load(), "handler calls")
	ids.Range(func(id, _ any) bool {
		c, ok := counts.Load(id)
		if assert.True(t, ok, "never processed: %s", id) {
			assert.EqualValues(t, 1, c.(*atomic.Int64).Load(), "processed more than once: %s", id)
		}
		return true
	})
}

// TestMalformedMailParked: a mail that is not SOAP is parked in failed/
// with a fault file saying why, logged, and the next mail is received.
func TestMalformedMailParked(t *testing.T) {
	logs := &logRecorder{}
	ts := startServer(t, t.TempDir())
	require.NoError(t, rawMail(ts.addr, "a@example.test", []string{ts.box}, "From: a@example.test\r\nContent-Type: text/plain\r\n\r\nnot soap\r\n"))
	require.NoError(t, rawMail(ts.addr, "a@example.test", []string{ts.box}, "From: a@example.test\r\nContent-Type: application/soap+xml\r\n\r\n<broken>\r\n"))
	const bad11 = `<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Header><h></s:Header><s:Body/></s:Envelope>`
	require.NoError(t, rawMail(ts.addr, "a@example.test", []string{ts.box}, "From: a@example.test\r\nContent-Type: text/xml\r\n\r\n"+bad11+"\r\n"))
	ids := sendN(t, newSender(t, ts.addr), ts, 1)

	r := newReceiver(t, ts.mb, soapsmtp.WithLogger(logs.logger()))
	d, err := r.Receive(ctxT(t))
	require.NoError(t, err)
	assert.Equal(t, ids[0], d.Message().ID, "the good mail")
	require.NoError(t, d.Ack(ctxT(t)))

	failed := files(t, ts.dir, soapsmtp.FolderFailed)
	require.Len(t, failed, 6, "three mails and their faults: %v", failed)
	reasons := map[string]bool{}
	for _, name := range failed {
		if !strings.HasSuffix(name, soapsmtp.FaultSuffix) {
			assert.Contains(t, failed, name+soapsmtp.FaultSuffix, "a parked mail has its fault beside it")
			continue
		}
		f := readFaultFile(t, filepath.Join(ts.dir, soapsmtp.FolderFailed, name))
		assert.Equal(t, core.CodeSender, f.Code)
		reasons[f.Reason] = true
		mail, err := os.ReadFile(filepath.Join(ts.dir, soapsmtp.FolderFailed, strings.TrimSuffix(name, soapsmtp.FaultSuffix)))
		require.NoError(t, err)
		want := core.V12 // no envelope: the binding's default
		if strings.Contains(string(mail), bad11) {
			want = core.V11 // a SOAP 1.1 envelope refused: a 1.1 fault
		}
		assert.Equal(t, want, f.Version, "the fault file of %s", name)
	}
	assert.Contains(t, reasons, `not a SOAP mail: no application/soap+xml or text/xml part in "text/plain"`)
	assert.Len(t, reasons, 3)
	assert.Equal(t, 3, logs.count("not a SOAP mail; parked"))
}

// readFaultFile reads the fault in a parked mail's fault file.
func readFaultFile(t *testing.T, path string) *core.Fault {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	m, err := core.ReadMessage(f, core.Limits{})
	require.NoError(t, err)
	require.NotNil(t, m.Fault(), "a fault envelope")
	return m.Fault()
}

// TestNackParksWithFault: Nack moves the mail to failed/ beside a fault
// file with the fault and, in its detail, the cause's text; Ack deletes,
// or archives WithArchive.
func TestNackParksWithFault(t *testing.T) {
	tests := []struct {
		name   string
		cause  error
		code   core.Code
		reason string
		detail string
	}{
		{"Fault", core.SenderFault("no such customer"), core.CodeSender, "no such customer", ""},
		{"PlainError", errors.New("database <down>"), core.CodeReceiver, core.InternalErrorReason, "database &lt;down&gt;"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := startServer(t, t.TempDir())
			sendN(t, newSender(t, ts.addr), ts, 1)
			r := newReceiver(t, ts.mb)
			d, err := r.Receive(ctxT(t))
			require.NoError(t, err)
			name := d.Message().Meta[soapsmtp.MetaFile]
			require.NoError(t, d.Nack(ctxT(t), tt.cause))
			assert.ElementsMatch(t, []string{name, name + soapsmtp.FaultSuffix}, files(t, ts.dir, soapsmtp.FolderFailed))
			assert.Empty(t, files(t, ts.dir, soapsmtp.FolderWork))
			f := readFaultFile(t, filepath.Join(ts.dir, soapsmtp.FolderFailed, name+soapsmtp.FaultSuffix))
			assert.Equal(t, tt.code, f.Code)
			assert.Equal(t, tt.reason, f.Reason)
			assert.Contains(t, string(f.Detail), tt.detail)
		})
	}
	t.Run("Cancelled", func(t *testing.T) {
		// A shutdown is not a failed mail: it goes back to new/ for the next
		// Receiver, with no fault file.
		ts := startServer(t, t.TempDir())
		sendN(t, newSender(t, ts.addr), ts, 1)
		r := newReceiver(t, ts.mb)
		d, err := r.Receive(ctxT(t))
		require.NoError(t, err)
		name := d.Message().Meta[soapsmtp.MetaFile]
		require.NoError(t, d.Nack(ctxT(t), fmt.Errorf("handler: %w", context.Canceled)))
		require.NoError(t, d.Nack(ctxT(t), context.Canceled), "a repeated Nack is a no-op")
		assert.ErrorIs(t, d.Ack(ctxT(t)), core.ErrSettled)
		assert.Empty(t, files(t, ts.dir, soapsmtp.FolderFailed))
		assert.Empty(t, files(t, ts.dir, soapsmtp.FolderWork))
		assert.Equal(t, []string{name}, files(t, ts.dir, soapsmtp.FolderNew))
		d2, err := newReceiver(t, ts.mb).Receive(ctxT(t))
		require.NoError(t, err, "the next Receiver gets the mail")
		assert.Equal(t, d.Message().ID, d2.Message().ID)
		require.NoError(t, d2.Ack(ctxT(t)))
	})
	t.Run("Archive", func(t *testing.T) {
		ts := startServer(t, t.TempDir())
		sendN(t, newSender(t, ts.addr), ts, 1)
		r := newReceiver(t, ts.mb, soapsmtp.WithArchive())
		d, err := r.Receive(ctxT(t))
		require.NoError(t, err)
		require.NoError(t, d.Ack(ctxT(t)))
		assert.Equal(t, []string{d.Message().Meta[soapsmtp.MetaFile]}, files(t, ts.dir, soapsmtp.FolderDone))
		assert.Empty(t, files(t, ts.dir, soapsmtp.FolderWork))
	})
}

// TestReceiverNoticesMailFromElsewhere: mail another process delivers
// (here: another Maildir on the folder, as an MTA would) is found by
// polling.
func TestReceiverNoticesMailFromElsewhere(t *testing.T) {
	dir := t.TempDir()
	mta, err := soapsmtp.OpenMaildir(dir)
	require.NoError(t, err)
	mine, err := soapsmtp.OpenMaildir(dir)
	require.NoError(t, err)
	r := newReceiver(t, mine)
	got := make(chan core.Delivery, 1)
	go func() {
		d, err := r.Receive(ctxT(t))
		if assert.NoError(t, err) {
			got <- d
		}
	}()
	time.Sleep(20 * time.Millisecond) // let Receive wait; the test holds if it has not
	name, err := mta.Deliver(strings.NewReader("From: c@example.org\nContent-Type: text/xml\n\n" + envelope11))
	require.NoError(t, err)
	select {
	case d := <-got:
		assert.Equal(t, name, d.Message().Meta[soapsmtp.MetaFile])
		assert.Equal(t, "hello 1.1", bodyText(t, d.Message()))
		require.NoError(t, d.Ack(ctxT(t)))
	case <-time.After(15 * time.Second):
		t.Fatal("the mail was not noticed")
	}
}

// TestReceivedMeta: a mail sent through a Server carries its transport
// facts in Meta.
func TestReceivedMeta(t *testing.T) {
	ts := startServer(t, t.TempDir())
	s := newSender(t, ts.addr)
	m := ping(core.V12, "meta")
	m.To = ts.mailto
	m.SetMeta(soapsmtp.MetaSubject, "Bestellung Nr. 7 für Müller")
	require.NoError(t, s.Send(ctxT(t), m))
	d, err := newReceiver(t, ts.mb).Receive(ctxT(t))
	require.NoError(t, err)
	got := d.Message().Meta
	assert.Equal(t, m.Meta[soapsmtp.MetaMessageID], got[soapsmtp.MetaMessageID])
	assert.Equal(t, "Bestellung Nr. 7 für Müller", got[soapsmtp.MetaSubject])
	assert.Equal(t, "sender@example.test", got[soapsmtp.MetaFrom])
	assert.Equal(t, "sender@example.test", got[soapsmtp.MetaReturnPath])
	assert.Equal(t, ts.box, got[soapsmtp.MetaDeliveredTo])
	assert.Equal(t, `application/soap+xml; action="urn:test:ping"; charset=utf-8`, got[soapsmtp.MetaContentType])
	assert.Contains(t, m.Meta[soapsmtp.MetaQueuedAs], got[soapsmtp.MetaFile])
	require.NoError(t, d.Ack(ctxT(t)))
}

// TestAckReusesTheFile: an acknowledged mail's file is kept in tmp/ and
// overwritten by the next mail, which then holds exactly its own bytes
// (none of the longer mail before it).
func TestAckReusesTheFile(t *testing.T) {
	ts := startServer(t, t.TempDir())
	s := newSender(t, ts.addr)
	r := newReceiver(t, ts.mb)
	big := ping(core.V12, strings.Repeat("long ", 2000))
	big.To = ts.mailto
	require.NoError(t, s.Send(ctxT(t), big))
	d, err := r.Receive(ctxT(t))
	require.NoError(t, err)
	require.NoError(t, d.Ack(ctxT(t)))
	spares := files(t, ts.dir, soapsmtp.FolderTmp)
	require.Len(t, spares, 1, "the file is kept for reuse")
	spare, err := os.Stat(filepath.Join(ts.dir, soapsmtp.FolderTmp, spares[0]))
	require.NoError(t, err)

	ids := sendN(t, s, ts, 1)
	// In new/; or, handed over to r (it received a moment ago), in work/,
	// or with SyncJournal where it was written, in the spare.
	var folder string
	var names []string
	for _, folder = range []string{soapsmtp.FolderNew, soapsmtp.FolderWork, soapsmtp.FolderTmp} {
		if names = files(t, ts.dir, folder); len(names) > 0 {
			break
		}
	}
	require.Len(t, names, 1)
	if folder != soapsmtp.FolderTmp {
		assert.Empty(t, files(t, ts.dir, soapsmtp.FolderTmp), "the spare was used")
	}
	reused, err := os.Stat(filepath.Join(ts.dir, folder, names[0]))
	require.NoError(t, err)
	assert.True(t, os.SameFile(spare, reused), "the same file holds the new mail")
	assert.Less(t, reused.Size(), spare.Size(), "truncated to the new mail")
	d, err = r.Receive(ctxT(t))
	require.NoError(t, err)
	assert.Equal(t, ids[0], d.Message().ID)
	assert.Equal(t, "0", bodyText(t, d.Message()))
	require.NoError(t, d.Ack(ctxT(t)))

	// A Maildir opened later (a restarted process) reuses the spares it
	// finds. (The first process's exit would close the spares it keeps
	// open, and so unlock them.)
	soapsmtp.CloseOpenSpares(ts.mb)
	mb, err := soapsmtp.OpenMaildir(ts.dir)
	require.NoError(t, err)
	_, err = mb.Deliver(strings.NewReader("Content-Type: text/xml\n\n" + envelope11))
	require.NoError(t, err)
	assert.Empty(t, files(t, ts.dir, soapsmtp.FolderTmp))
}

// TestSparesSharedByTwoMaildirs: two Maildirs on one folder (two server
// processes) that both know the same spare files never write a mail into
// the same file.
func TestSparesSharedByTwoMaildirs(t *testing.T) {
	dir := t.TempDir()
	mb, err := soapsmtp.OpenMaildir(dir)
	require.NoError(t, err)
	for range 4 { // make spares: deliver and acknowledge
		_, err := mb.Deliver(strings.NewReader("Content-Type: text/xml\n\n" + envelope11))
		require.NoError(t, err)
	}
	r := newReceiver(t, mb)
	for range 4 {
		d, err := r.Receive(ctxT(t))
		require.NoError(t, err)
		require.NoError(t, d.Ack(ctxT(t)))
	}
	require.Len(t, files(t, dir, soapsmtp.FolderTmp), 4)
	// Each round, two more Maildirs adopt every spare in tmp/ (those of
	// the rounds before too) and deliver at once; the mails must all
	// arrive intact.
	for round := range 10 {
		a, err := soapsmtp.OpenMaildir(dir)
		require.NoError(t, err)
		b, err := soapsmtp.OpenMaildir(dir)
		require.NoError(t, err)
		var wg sync.WaitGroup
		for i, m := range []*soapsmtp.Maildir{a, b, a, b, a, b, a, b} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				text := fmt.Sprintf("mail %d.%d", round, i)
				_, err := m.Deliver(strings.NewReader("Content-Type: text/xml\n\n" + strings.Replace(envelope11, "hello 1.1", text, 1)))
				assert.NoError(t, err)
			}()
		}
		wg.Wait()
		got := map[string]bool{}
		for range 8 {
			d, err := r.Receive(ctxT(t))
			require.NoError(t, err)
			got[bodyText(t, d.Message())] = true
			require.NoError(t, d.Ack(ctxT(t)))
		}
		require.Len(t, got, 8, "round %d: every mail intact and distinct: %v", round, got)
	}
}
