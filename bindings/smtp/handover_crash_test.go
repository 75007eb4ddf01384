package smtp_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soapsmtp "github.com/soapwire/soapwire/bindings/smtp"
	"github.com/soapwire/soapwire/core"
)

// handoverCrashEnv makes the test binary a process that runs a Server and
// a Receiver on one Maildir (so mails are handed over in memory), takes
// every mail it is handed without settling it, and waits to be killed
// (TestCrashWithHandedOverMailsLosesNothing).
const handoverCrashEnv = "SOAPWIRE_SMTP_HANDOVER_CRASH_HELPER"

// handoverCrashBox is the address the helper's Server accepts mail for.
const handoverCrashBox = "crash@example.test"

// handoverCrashModeEnv names the helper's SyncMode (its String).
const handoverCrashModeEnv = "SOAPWIRE_SMTP_HANDOVER_CRASH_MODE"

func handoverCrashHelper(dir string) int {
	mode := soapsmtp.SyncFiles
	if os.Getenv(handoverCrashModeEnv) == soapsmtp.SyncJournal.String() {
		mode = soapsmtp.SyncJournal
	}
	mb, err := soapsmtp.OpenMaildir(dir, soapsmtp.WithSyncMode(mode))
	if err != nil {
		fmt.Println("ERROR", err)
		return 1
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println("ERROR", err)
		return 1
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	srv := soapsmtp.NewServer(l.Addr().String(), mb, soapsmtp.WithAddresses(handoverCrashBox), soapsmtp.WithHostname("mx.example.test"))
	go srv.Serve(ctx, l)
	r := soapsmtp.NewReceiver(mb)
	// Receiving from now on, even before the first Receive below has
	// started: else the first mail, sent as soon as LISTENING is read, may
	// go into new/ rather than be handed over.
	soapsmtp.MarkReceiving(mb)
	fmt.Println("LISTENING", l.Addr())
	for {
		d, err := r.Receive(ctx)
		if err != nil {
			fmt.Println("ERROR", err)
			return 1
		}
		// Taken, not settled: the process dies holding it.
		fmt.Println("TAKEN", d.Message().ID, soapsmtp.HandedOver(mb))
	}
}

// TestCrashWithHandedOverMailsLosesNothing: a process whose Server hands
// each mail it answered 250 straight to its own Receiver (in memory) is
// killed (SIGKILL) while it holds them unsettled; they are all received
// again afterwards. With SyncFiles the mails are in work/ and a Receiver in
// another process recovers them from there; with SyncJournal they never
// left tmp/ (their journal records make them durable), and the next
// OpenMaildir replays them into new/.
func TestCrashWithHandedOverMailsLosesNothing(t *testing.T) {
	for _, mode := range []soapsmtp.SyncMode{soapsmtp.SyncFiles, soapsmtp.SyncJournal} {
		t.Run(mode.String(), func(t *testing.T) {
			if mode == soapsmtp.SyncJournal {
				skipWithoutJournal(t)
			}
			crashWithHandedOverMails(t, mode)
		})
	}
}

func crashWithHandedOverMails(t *testing.T, mode soapsmtp.SyncMode) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), handoverCrashEnv+"="+dir, handoverCrashModeEnv+"="+mode.String())
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	lines := bufio.NewReader(out)
	next := func() []string {
		line, err := lines.ReadString('\n')
		require.NoError(t, err)
		return strings.Fields(line)
	}
	f := next()
	require.Len(t, f, 2, "helper said %q", f)
	require.Equal(t, "LISTENING", f[0])

	s := newSender(t, f[1])
	const n = 3
	var ids []string
	for i := range n {
		m := ping(core.V12, fmt.Sprint(i))
		m.To = "mailto:" + handoverCrashBox
		require.NoError(t, s.Send(ctxT(t), m), "answered 250")
		ids = append(ids, m.ID)
		f := next()
		require.Len(t, f, 3, "helper said %q", f)
		require.Equal(t, "TAKEN", f[0])
		assert.Equal(t, m.ID, f[1])
		assert.Equal(t, fmt.Sprint(i+1), f[2], "handed over, not claimed from new/")
	}
	if mode == soapsmtp.SyncJournal {
		assert.Empty(t, files(t, dir, soapsmtp.FolderWork), "the taken mails stay in tmp/")
		assert.Len(t, files(t, dir, soapsmtp.FolderJournal), 1, "their journal")
	} else {
		assert.Len(t, files(t, dir, soapsmtp.FolderWork), n, "the taken mails are in work/")
	}
	assert.Empty(t, files(t, dir, soapsmtp.FolderNew))

	require.NoError(t, cmd.Process.Kill())
	cmd.Wait()
	mb, err := soapsmtp.OpenMaildir(dir)
	require.NoError(t, err)
	if mode == soapsmtp.SyncJournal {
		assert.Equal(t, n, soapsmtp.Replayed(mb), "written into new/ from the journal")
		assert.Empty(t, files(t, dir, soapsmtp.FolderJournal))
	}
	r := newReceiver(t, mb, soapsmtp.WithRecoverInterval(20*time.Millisecond))
	got := map[string]bool{}
	for range n {
		d, err := r.Receive(ctxT(t))
		require.NoError(t, err)
		got[d.Message().ID] = true
		require.NoError(t, d.Ack(ctxT(t)))
	}
	for _, id := range ids {
		assert.True(t, got[id], "lost: %s", id)
	}
	assert.Empty(t, files(t, dir, soapsmtp.FolderWork))
}
