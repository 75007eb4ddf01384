package smtp_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soapsmtp "github.com/soapwire/soapwire/bindings/smtp"
	"github.com/soapwire/soapwire/core"
)

// TestHandOverToAWaitingReceiver: a mail committed while a Receiver on the
// same *Maildir waits is handed to it (into work/, or with SyncJournal left
// in tmp/; never in new/), and its
// file becomes a spare when acknowledged.
func TestHandOverToAWaitingReceiver(t *testing.T) {
	forSyncModes(t, handOverToAWaitingReceiver)
}

func handOverToAWaitingReceiver(t *testing.T, mode soapsmtp.SyncMode) {
	dir := t.TempDir()
	ts := startServerOn(t, openMaildir(t, dir, mode))
	var names []string
	soapsmtp.SetSyncHook(ts.mb, func(stage string, batch []string) error {
		if stage == "dir" {
			names = append(names, files(t, dir, soapsmtp.FolderNew)...)
		}
		return nil
	})
	r := newReceiver(t, ts.mb)
	got := make(chan error, 1)
	var d interface {
		Ack(context.Context) error
	}
	var id string
	go func() {
		dd, err := r.Receive(ctxT(t))
		if err == nil {
			d, id = dd, dd.Message().ID
		}
		got <- err
	}()
	require.Eventually(t, func() bool { return soapsmtp.Waiting(ts.mb) == 1 }, 10*time.Second, time.Millisecond)
	ids := sendN(t, newSender(t, ts.addr), ts, 1)
	require.NoError(t, <-got)
	assert.Equal(t, ids[0], id)
	assert.EqualValues(t, 1, soapsmtp.HandedOver(ts.mb), "handed over, not claimed from new/")
	assert.Empty(t, names, "never in new/")
	if mode == soapsmtp.SyncJournal {
		assert.Empty(t, files(t, dir, soapsmtp.FolderWork), "the claim stays in tmp/, under the journal")
		assert.Len(t, files(t, dir, soapsmtp.FolderTmp), 1)
	} else {
		assert.Len(t, files(t, dir, soapsmtp.FolderWork), 1, "the claim is in work/")
	}
	require.NoError(t, d.Ack(ctxT(t)))
	assert.Empty(t, files(t, dir, soapsmtp.FolderWork))
	assert.Len(t, files(t, dir, soapsmtp.FolderTmp), 1, "kept as a spare")
}

// TestHeldMailGoesToNew: a mail handed over but not taken is locked in
// work/: a Receiver elsewhere (another process) cannot take it until,
// after a second, it is put into new/; closing the last Receiver on the
// Maildir puts held mails into new/ at once.
func TestHeldMailGoesToNew(t *testing.T) {
	forSyncModes(t, heldMailGoesToNew)
}

func heldMailGoesToNew(t *testing.T, mode soapsmtp.SyncMode) {
	dir := t.TempDir()
	ts := startServerOn(t, openMaildir(t, dir, mode))
	s := newSender(t, ts.addr)
	r := newReceiver(t, ts.mb)
	soapsmtp.MarkReceiving(ts.mb)
	ids := sendN(t, s, ts, 1)
	assert.Equal(t, 1, soapsmtp.Held(ts.mb))
	assert.Empty(t, files(t, dir, soapsmtp.FolderNew))
	if mode == soapsmtp.SyncJournal {
		assert.Len(t, files(t, dir, soapsmtp.FolderTmp), 1, "held in tmp/, under the journal")
	} else {
		assert.Len(t, files(t, dir, soapsmtp.FolderWork), 1)
	}

	other, err := soapsmtp.OpenMaildir(dir)
	require.NoError(t, err)
	ro := newReceiver(t, other, soapsmtp.WithRecoverInterval(10*time.Millisecond), soapsmtp.WithPollInterval(10*time.Millisecond))
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	_, err = ro.Receive(ctx)
	require.ErrorIs(t, err, context.DeadlineExceeded, "a held mail is not taken elsewhere")

	d, err := ro.Receive(ctxT(t)) // after holdFor, from new/
	require.NoError(t, err)
	assert.Equal(t, ids[0], d.Message().ID)
	require.NoError(t, d.Ack(ctxT(t)))
	assert.Zero(t, soapsmtp.Held(ts.mb))

	ids = sendN(t, s, ts, 2)
	assert.Equal(t, 2, soapsmtp.Held(ts.mb))
	require.NoError(t, r.Close())
	assert.Zero(t, soapsmtp.Held(ts.mb))
	assert.Len(t, files(t, dir, soapsmtp.FolderNew), 2, "the last Receiver closed: into new/")
	assert.Empty(t, files(t, dir, soapsmtp.FolderWork))
	for range 2 {
		d, err := ro.Receive(ctxT(t))
		require.NoError(t, err)
		assert.Contains(t, ids, d.Message().ID)
		require.NoError(t, d.Ack(ctxT(t)))
	}
}

// forSyncModes runs test once with SyncFiles and, on Linux, once with
// SyncJournal, where a handed-over mail stays in tmp/.
func forSyncModes(t *testing.T, test func(*testing.T, soapsmtp.SyncMode)) {
	for _, mode := range []soapsmtp.SyncMode{soapsmtp.SyncFiles, soapsmtp.SyncJournal} {
		t.Run(mode.String(), func(t *testing.T) {
			if mode == soapsmtp.SyncJournal {
				skipWithoutJournal(t)
			}
			test(t, mode)
		})
	}
}

func openMaildir(t *testing.T, dir string, mode soapsmtp.SyncMode) *soapsmtp.Maildir {
	t.Helper()
	mb, err := soapsmtp.OpenMaildir(dir, soapsmtp.WithSyncMode(mode))
	require.NoError(t, err)
	return mb
}

// TestHandedOverLargeMail: a mail too large to hand over in memory is read
// from its file.
func TestHandedOverLargeMail(t *testing.T) {
	dir := t.TempDir()
	ts := startServer(t, dir)
	r := newReceiver(t, ts.mb)
	soapsmtp.MarkReceiving(ts.mb)
	m := ping(core.V12, strings.Repeat("x", 64<<10))
	m.To = ts.mailto
	require.NoError(t, newSender(t, ts.addr).Send(ctxT(t), m))
	d, err := r.Receive(ctxT(t))
	require.NoError(t, err)
	assert.EqualValues(t, 1, soapsmtp.HandedOver(ts.mb))
	assert.Equal(t, m.ID, d.Message().ID)
	assert.Len(t, bodyText(t, d.Message()), 64<<10)
	require.NoError(t, d.Ack(ctxT(t)))
	fi, err := os.Stat(filepath.Join(dir, soapsmtp.FolderTmp, files(t, dir, soapsmtp.FolderTmp)[0]))
	require.NoError(t, err)
	assert.Greater(t, fi.Size(), int64(64<<10))
}
