package smtp_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soapsmtp "github.com/soapwire/soapwire/bindings/smtp"
)

// batchRun is a server whose Maildir's first data sync waits until the
// test lets it go, so that the mails sent meanwhile form the next batch.
type batchRun struct {
	ts      *testServer
	logs    *logRecorder
	entered chan []string // the first batch, when its data sync starts
	release chan struct{}
	replied atomic.Int64   // sends answered so far
	done    [8]atomic.Bool // by mail number: answered

	mu    sync.Mutex
	calls []string // "stage:n" per hook call
}

// startBatchRun starts the server; fail says whether a stage's sync fails.
func startBatchRun(t *testing.T, mode soapsmtp.SyncMode, fail func(stage string) bool) *batchRun {
	t.Helper()
	br := &batchRun{logs: &logRecorder{}, entered: make(chan []string, 1), release: make(chan struct{})}
	mb, err := soapsmtp.OpenMaildir(t.TempDir(), soapsmtp.WithSyncMode(mode))
	require.NoError(t, err)
	first := true
	soapsmtp.SetSyncHook(mb, func(stage string, names []string) error {
		br.mu.Lock()
		br.calls = append(br.calls, fmt.Sprintf("%s:%d", stage, len(names)))
		wait := first && stage == "data"
		first = first && !wait
		br.mu.Unlock()
		if wait {
			br.entered <- slices.Clone(names)
			<-br.release
		}
		if stage == "dir" {
			// The mails are in new/, and none of them has been answered.
			for _, name := range names {
				raw, err := os.ReadFile(filepath.Join(br.ts.dir, soapsmtp.FolderNew, name))
				if !assert.NoError(t, err, "renamed into new/ before the directory sync") {
					continue
				}
				var i int
				_, err = fmt.Sscanf(string(raw[bytes.Index(raw, []byte("\r\nSubject: "))+2:]), "Subject: %d", &i)
				require.NoError(t, err)
				assert.False(t, br.done[i].Load(), "mail %d answered before its batch's syncs were done", i)
			}
		}
		if fail(stage) {
			return errors.New("disk on fire")
		}
		return nil
	})
	br.ts = startServerOn(t, mb, soapsmtp.WithLogger(br.logs.logger()))
	return br
}

// send sends one mail in the background; its result arrives on the channel.
func (br *batchRun) send(i int) <-chan error {
	res := make(chan error, 1)
	go func() {
		err := rawMail(br.ts.addr, "a@example.test", []string{br.ts.box}, fmt.Sprintf("Subject: %d\r\n\r\nmail %d\r\n", i, i))
		br.done[i].Store(true)
		br.replied.Add(1)
		res <- err
	}()
	return res
}

// waitQueued waits until n mails wait for the next batch, and checks that
// they are in tmp/ with the one being committed.
func (br *batchRun) waitQueued(t *testing.T, n int) {
	t.Helper()
	require.Eventually(t, func() bool { return soapsmtp.QueuedCommits(br.ts.mb) == n },
		10*time.Second, time.Millisecond, "mails waiting for the next batch")
	assert.Len(t, files(t, br.ts.dir, soapsmtp.FolderTmp), n+1, "written into tmp/")
}

// TestBatchCommit: mails written while a batch is being synced are
// committed together in the next batch, and no session hears 250 before
// its batch's data and new/ are synced: while the first batch's sync is
// held, the mails behind it wait in tmp/, nothing is in new/, no sender has
// a reply.
func TestBatchCommit(t *testing.T) {
	for _, mode := range []soapsmtp.SyncMode{soapsmtp.SyncFiles, soapsmtp.SyncFilesystem, soapsmtp.SyncJournal} {
		t.Run(mode.String(), func(t *testing.T) {
			br := startBatchRun(t, mode, func(string) bool { return false })
			first := br.send(0)
			var batch1 []string
			select {
			case batch1 = <-br.entered:
			case <-time.After(10 * time.Second):
				t.Fatal("the first mail's sync did not start")
			}
			require.Len(t, batch1, 1)
			var rest []<-chan error
			for i := 1; i <= 3; i++ {
				rest = append(rest, br.send(i))
			}
			br.waitQueued(t, 3)
			assert.Empty(t, files(t, br.ts.dir, soapsmtp.FolderNew), "new/ while the first sync is held")
			assert.Zero(t, br.replied.Load(), "a reply while the first sync is held")
			close(br.release)
			for _, res := range append(rest, first) {
				require.NoError(t, <-res)
			}
			br.mu.Lock()
			want := []string{"data:1", "dir:1", "data:3", "dir:3"}
			if mode == soapsmtp.SyncJournal && runtime.GOOS == "linux" {
				want = []string{"data:1", "data:3"} // the journal's one sync; the folders wait for its checkpoint
			}
			assert.Equal(t, want, br.calls, "two batches: the held one, then the three behind it")
			br.mu.Unlock()
			assert.Len(t, files(t, br.ts.dir, soapsmtp.FolderNew), 4)
			assert.Empty(t, files(t, br.ts.dir, soapsmtp.FolderTmp))
			assert.Contains(t, files(t, br.ts.dir, soapsmtp.FolderNew), batch1[0])
		})
	}
}

// TestBatchCommitFailure: a sync that fails (the mails' data, or new/
// after the renames) answers 451 to every mail of its batch, and leaves
// none of them in new/ or tmp/; the next batch is committed normally.
func TestBatchCommitFailure(t *testing.T) {
	for _, stage := range []string{"data", "dir"} {
		for _, mode := range []soapsmtp.SyncMode{soapsmtp.SyncFiles, soapsmtp.SyncFilesystem, soapsmtp.SyncJournal} {
			if stage == "dir" && mode == soapsmtp.SyncJournal {
				continue // no folder sync before 250
			}
			t.Run(stage+"/"+mode.String(), func(t *testing.T) {
				var failing atomic.Bool
				failing.Store(true)
				br := startBatchRun(t, mode, func(s string) bool { return s == stage && failing.Load() })
				first := br.send(0)
				<-br.entered
				var rest []<-chan error
				for i := 1; i <= 3; i++ {
					rest = append(rest, br.send(i))
				}
				br.waitQueued(t, 3)
				close(br.release)
				for _, res := range append(rest, first) {
					err := <-res
					assert.Equal(t, 451, smtpCode(err), "%v", err)
				}
				assert.Empty(t, files(t, br.ts.dir, soapsmtp.FolderNew), "a mail of a failed batch in new/")
				assert.Empty(t, files(t, br.ts.dir, soapsmtp.FolderTmp), "a mail of a failed batch left in tmp/")
				assert.Equal(t, 4, br.logs.count("mail not stored; answered 451"))

				failing.Store(false)
				require.NoError(t, <-br.send(4), "the disk is back")
				assert.Len(t, files(t, br.ts.dir, soapsmtp.FolderNew), 1)
			})
		}
	}
}
