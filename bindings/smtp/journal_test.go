package smtp_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soapsmtp "github.com/soapwire/soapwire/bindings/smtp"
)

func skipWithoutJournal(t *testing.T) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("SyncJournal is SyncFiles outside Linux")
	}
}

// openJournaled opens a SyncJournal Maildir that checkpoints only when the
// test says.
func openJournaled(t *testing.T, dir string) *soapsmtp.Maildir {
	t.Helper()
	mb, err := soapsmtp.OpenMaildir(dir, soapsmtp.WithSyncMode(soapsmtp.SyncJournal))
	require.NoError(t, err)
	soapsmtp.HoldJournal(mb)
	return mb
}

// deliverN delivers n SOAP mails and returns their names and texts.
func deliverN(t *testing.T, mb *soapsmtp.Maildir, n int, tag string) map[string]string {
	t.Helper()
	out := make(map[string]string)
	for i := range n {
		text := fmt.Sprintf("Content-Type: application/soap+xml\r\nSubject: %s %d\r\n\r\n%s<!-- %s -->\r\n",
			tag, i, envelope12, strings.Repeat(tag, 100+i))
		name, err := mb.Deliver(strings.NewReader(text))
		require.NoError(t, err)
		out[name] = text
	}
	return out
}

// copyTree copies a Maildir as it is on disk: what a crash would leave if
// every write so far had reached the disk (the test then takes away what
// had not).
func copyTree(t *testing.T, from string) string {
	t.Helper()
	to := t.TempDir()
	require.NoError(t, os.CopyFS(to, os.DirFS(from)))
	return to
}

func journalFiles(t *testing.T, dir string) []string {
	t.Helper()
	return files(t, dir, soapsmtp.FolderJournal)
}

// TestJournalReplay: with SyncJournal, a crash after 250 loses nothing even
// when the mails' own files never reached the disk. The Maildir is copied
// as a crash would leave it before a checkpoint, with one mail's file
// missing, one cut short and one holding a former mail's bytes (a reused
// spare); OpenMaildir writes those three again from the journal, leaves the
// others, and removes the journal.
func TestJournalReplay(t *testing.T) {
	skipWithoutJournal(t)
	dir := t.TempDir()
	mb := openJournaled(t, dir)
	mails := deliverN(t, mb, 6, "a")
	require.Len(t, journalFiles(t, dir), 1, "one live segment")

	crashed := copyTree(t, dir)
	var names []string
	for name := range mails {
		names = append(names, name)
	}
	newPath := func(name string) string { return filepath.Join(crashed, soapsmtp.FolderNew, name) }
	require.NoError(t, os.Remove(newPath(names[0])))
	require.NoError(t, os.Truncate(newPath(names[1]), 10))
	require.NoError(t, os.WriteFile(newPath(names[2]), []byte("Subject: an older mail\r\n\r\nbye\r\n"), 0o600))

	again, err := soapsmtp.OpenMaildir(crashed)
	require.NoError(t, err)
	assert.Equal(t, 3, soapsmtp.Replayed(again), "the missing, the short and the stale mail")
	assert.Empty(t, journalFiles(t, crashed), "the journal is removed once replayed")
	assert.Empty(t, files(t, crashed, soapsmtp.FolderTmp), "nothing left in tmp/")
	for name, text := range mails {
		got, err := os.ReadFile(newPath(name))
		require.NoError(t, err)
		assert.Equal(t, text, string(got), name)
	}
	assert.Len(t, files(t, crashed, soapsmtp.FolderNew), len(mails))

	// Opened again: nothing to replay.
	third, err := soapsmtp.OpenMaildir(crashed)
	require.NoError(t, err)
	assert.Zero(t, soapsmtp.Replayed(third))
}

// TestJournalReplayFindsMovedMails: a mail a Receiver had moved (into
// work/, failed/) is written again where it is, not into new/ beside it; a
// mail acknowledged before the crash (its record followed by an ack
// record) is not brought back.
func TestJournalReplayFindsMovedMails(t *testing.T) {
	skipWithoutJournal(t)
	dir := t.TempDir()
	mb := openJournaled(t, dir)
	r := newReceiver(t, mb)
	mails := deliverN(t, mb, 2, "m")
	d1, err := r.Receive(ctxT(t))
	require.NoError(t, err)
	d2, err := r.Receive(ctxT(t))
	require.NoError(t, err)
	acked := soapsmtp.MailName(d1)
	require.NoError(t, d1.Ack(ctxT(t)))
	working := soapsmtp.MailName(d2) // claimed, in work/
	// The ack is recorded with the next batch.
	later := deliverN(t, mb, 1, "z")

	crashed := copyTree(t, dir)
	workPath := filepath.Join(crashed, soapsmtp.FolderWork, working)
	require.NoError(t, os.Truncate(workPath, 0))
	again, err := soapsmtp.OpenMaildir(crashed)
	require.NoError(t, err)
	assert.Equal(t, 2, soapsmtp.Replayed(again), "the mail in work/ cut short, and the later one, handed over and still in tmp/")
	got, err := os.ReadFile(workPath)
	require.NoError(t, err)
	assert.Equal(t, mails[working], string(got), "written again in work/")
	assert.NotContains(t, files(t, crashed, soapsmtp.FolderNew), working, "not duplicated into new/")
	assert.NotContains(t, files(t, crashed, soapsmtp.FolderNew), acked, "an acknowledged mail is not brought back")
	for name := range later {
		assert.Contains(t, files(t, crashed, soapsmtp.FolderNew), name, "in new/ (written there again when it was handed over in tmp/)")
	}
	require.NoError(t, d2.Ack(ctxT(t)))
}

// TestJournalLargeMail: a mail larger than the journal's copy buffer
// (here 300 KiB, five pieces) goes into the journal piece by piece, with a
// CRC over all of it, and is replayed whole; small mails of the same batch
// around it too.
func TestJournalLargeMail(t *testing.T) {
	skipWithoutJournal(t)
	dir := t.TempDir()
	mb := openJournaled(t, dir)
	big := "Subject: big\r\n\r\n" + strings.Repeat("0123456789abcdef", 300<<10/16) + "\r\n"
	names := make([]string, 3)
	texts := []string{"Subject: before\r\n\r\nx\r\n", big, "Subject: after\r\n\r\ny\r\n"}
	var wg sync.WaitGroup
	for i, text := range texts {
		wg.Go(func() {
			name, err := mb.Deliver(strings.NewReader(text))
			assert.NoError(t, err)
			names[i] = name
		})
	}
	wg.Wait()
	crashed := copyTree(t, dir)
	for _, n := range names {
		require.NoError(t, os.Remove(filepath.Join(crashed, soapsmtp.FolderNew, n)))
	}
	again, err := soapsmtp.OpenMaildir(crashed)
	require.NoError(t, err)
	assert.Equal(t, 3, soapsmtp.Replayed(again))
	for i, n := range names {
		got, err := os.ReadFile(filepath.Join(crashed, soapsmtp.FolderNew, n))
		require.NoError(t, err)
		assert.Equal(t, len(texts[i]), len(got))
		assert.True(t, string(got) == texts[i], "mail %d replayed byte for byte", i)
	}
}

// TestJournalTornTail: a batch cut off in the middle of its journal write
// (the crash came before its sync, so no sender was answered) ends the
// journal: the batches before it are replayed, the torn bytes ignored.
func TestJournalTornTail(t *testing.T) {
	skipWithoutJournal(t)
	dir := t.TempDir()
	mb := openJournaled(t, dir)
	mails := deliverN(t, mb, 3, "t")
	crashed := copyTree(t, dir)
	seg := filepath.Join(crashed, soapsmtp.FolderJournal, journalFiles(t, crashed)[0])
	f, err := os.OpenFile(seg, os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err)
	_, err = f.Write([]byte{'M', 5, 0xff, 0xff, 0, 0, 1, 2, 3, 4, 'x'})
	require.NoError(t, err)
	require.NoError(t, f.Close())
	for name := range mails {
		require.NoError(t, os.Remove(filepath.Join(crashed, soapsmtp.FolderNew, name)))
	}
	again, err := soapsmtp.OpenMaildir(crashed)
	require.NoError(t, err)
	assert.Equal(t, 3, soapsmtp.Replayed(again))
	assert.ElementsMatch(t, keys(mails), files(t, crashed, soapsmtp.FolderNew))
}

// TestJournalNotAJournal: a file in journal/ that is not a journal is
// left for a person, not taken for one and not removed.
func TestJournalNotAJournal(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, soapsmtp.FolderJournal), 0o700))
	stray := filepath.Join(dir, soapsmtp.FolderJournal, "x.journal")
	require.NoError(t, os.WriteFile(stray, []byte("hello"), 0o600))
	mb, err := soapsmtp.OpenMaildir(dir)
	require.NoError(t, err)
	assert.Zero(t, soapsmtp.Replayed(mb))
	assert.FileExists(t, stray)
}

// TestJournalLiveSegmentLeftAlone: a Maildir opened while another (here in
// the same process; a process of its own works the same, through flock)
// still writes its journal does not replay or remove that journal.
func TestJournalLiveSegmentLeftAlone(t *testing.T) {
	skipWithoutJournal(t)
	dir := t.TempDir()
	mb := openJournaled(t, dir)
	mails := deliverN(t, mb, 2, "l")
	name := keys(mails)[0]
	require.NoError(t, os.Remove(filepath.Join(dir, soapsmtp.FolderNew, name)))
	other, err := soapsmtp.OpenMaildir(dir)
	require.NoError(t, err)
	assert.Zero(t, soapsmtp.Replayed(other))
	assert.Len(t, journalFiles(t, dir), 1)
	assert.NotContains(t, files(t, dir, soapsmtp.FolderNew), name)
}

// TestJournalCheckpoint: a checkpoint makes the mails durable in the
// Maildir and removes the journal; Close does one last checkpoint; and
// left alone, a journal is checkpointed within about a second of its last
// batch.
func TestJournalCheckpoint(t *testing.T) {
	skipWithoutJournal(t)
	t.Run("Explicit", func(t *testing.T) {
		dir := t.TempDir()
		mb := openJournaled(t, dir)
		mails := deliverN(t, mb, 4, "c")
		require.Len(t, journalFiles(t, dir), 1)
		require.NoError(t, soapsmtp.CheckpointJournal(mb))
		assert.Empty(t, journalFiles(t, dir))
		assert.ElementsMatch(t, keys(mails), files(t, dir, soapsmtp.FolderNew))
		more := deliverN(t, mb, 1, "d")
		assert.Len(t, journalFiles(t, dir), 1, "a new segment for the next batch")
		require.NoError(t, mb.Close())
		assert.Empty(t, journalFiles(t, dir), "Close checkpoints")
		assert.Len(t, files(t, dir, soapsmtp.FolderNew), len(mails)+len(more))
	})
	t.Run("Idle", func(t *testing.T) {
		dir := t.TempDir()
		mb, err := soapsmtp.OpenMaildir(dir, soapsmtp.WithSyncMode(soapsmtp.SyncJournal))
		require.NoError(t, err)
		deliverN(t, mb, 1, "i")
		require.Eventually(t, func() bool {
			names, err := os.ReadDir(filepath.Join(dir, soapsmtp.FolderJournal))
			return err == nil && len(names) == 0
		}, 30*time.Second, 10*time.Millisecond, "the idle journal is checkpointed")
	})
}

// TestJournalCheckpointMovesHeldMails: a mail handed over to a Receiver
// stays in tmp/ while its journal record makes it durable; a checkpoint,
// which removes that record, first moves it into work/ like any claim,
// whether the Receiver took it or it is still held. Settling it afterwards
// works from work/: Ack keeps the file as a spare, and a held mail nobody
// takes goes to new/.
func TestJournalCheckpointMovesHeldMails(t *testing.T) {
	skipWithoutJournal(t)
	dir := t.TempDir()
	mb := openJournaled(t, dir)
	r := newReceiver(t, mb)
	soapsmtp.MarkReceiving(mb)
	mails := deliverN(t, mb, 2, "h")
	require.Equal(t, 2, soapsmtp.Held(mb))
	assert.Empty(t, files(t, dir, soapsmtp.FolderWork))
	assert.Len(t, files(t, dir, soapsmtp.FolderTmp), 2, "held in tmp/")
	d, err := r.Receive(ctxT(t))
	require.NoError(t, err)
	taken := soapsmtp.MailName(d)

	require.NoError(t, soapsmtp.CheckpointJournal(mb))
	assert.Empty(t, journalFiles(t, dir))
	assert.ElementsMatch(t, keys(mails), files(t, dir, soapsmtp.FolderWork), "both moved into work/: the taken one and the held one")
	assert.Empty(t, files(t, dir, soapsmtp.FolderTmp))
	got, err := os.ReadFile(filepath.Join(dir, soapsmtp.FolderWork, taken))
	require.NoError(t, err)
	assert.Equal(t, mails[taken], string(got))

	require.NoError(t, d.Ack(ctxT(t)))
	require.NoError(t, r.Close()) // the last Receiver: the held mail goes to new/
	assert.Empty(t, files(t, dir, soapsmtp.FolderWork))
	assert.Len(t, files(t, dir, soapsmtp.FolderTmp), 1, "the acknowledged mail's file, kept as a spare")
	var other string
	for name := range mails {
		if name != taken {
			other = name
		}
	}
	assert.Equal(t, []string{other}, files(t, dir, soapsmtp.FolderNew))
}

// TestJournalSyncFailure: when the journal's sync fails, the batch's
// deliveries fail (the Server answers 451) and leave nothing in new/ or
// tmp/, and the journal is cut back, so that a replay after a crash does
// not bring back mails whose senders were told they failed. The next batch
// is journaled normally.
func TestJournalSyncFailure(t *testing.T) {
	skipWithoutJournal(t)
	dir := t.TempDir()
	mb := openJournaled(t, dir)
	ok := deliverN(t, mb, 1, "o")
	seg := filepath.Join(dir, soapsmtp.FolderJournal, journalFiles(t, dir)[0])
	before, err := os.Stat(seg)
	require.NoError(t, err)

	var failing atomic.Bool
	failing.Store(true)
	soapsmtp.FailJournalSync(mb, func() error {
		if failing.Load() {
			return errors.New("disk on fire")
		}
		return nil
	})
	_, err = mb.Deliver(strings.NewReader("Subject: refused\r\n\r\nx\r\n"))
	require.ErrorContains(t, err, "disk on fire")
	after, err := os.Stat(seg)
	require.NoError(t, err)
	assert.Equal(t, before.Size(), after.Size(), "the failed batch's records are cut off the journal")
	assert.ElementsMatch(t, keys(ok), files(t, dir, soapsmtp.FolderNew))
	assert.Empty(t, files(t, dir, soapsmtp.FolderTmp))

	failing.Store(false)
	more := deliverN(t, mb, 1, "p")
	crashed := copyTree(t, dir)
	for _, folder := range []string{soapsmtp.FolderNew} {
		for _, n := range files(t, crashed, folder) {
			require.NoError(t, os.Remove(filepath.Join(crashed, folder, n)))
		}
	}
	again, err := soapsmtp.OpenMaildir(crashed)
	require.NoError(t, err)
	assert.Equal(t, 2, soapsmtp.Replayed(again), "the two mails answered, not the refused one")
	assert.ElementsMatch(t, append(keys(ok), keys(more)...), files(t, crashed, soapsmtp.FolderNew))
}

func keys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
