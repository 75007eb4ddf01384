package document_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/document"
)

// dropSender is a file-drop core.Sender: each message becomes a file in
// dir, written under a temporary name and renamed.
type dropSender struct{ dir string }

func (d dropSender) Send(_ context.Context, m *core.Message) error {
	var buf bytes.Buffer
	if _, err := m.WriteTo(&buf); err != nil {
		return err
	}
	tmp := filepath.Join(d.dir, ".tmp-request")
	if err := os.WriteFile(tmp, buf.Bytes(), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(d.dir, "request.xml"))
}

const restartEnv = "SOAPWIRE_DOCUMENT_RESTART_DIR"

// TestRestartHelperProcess is the requesting process of
// TestConversationSurvivesRestart: it sends a request by file drop through
// a Correlator backed by a FileStore and waits for a reply that never comes
// while it lives; the parent kills it.
func TestRestartHelperProcess(t *testing.T) {
	dir := os.Getenv(restartEnv)
	if dir == "" {
		t.Skip("helper process of TestConversationSurvivesRestart (runs only when it starts it)")
	}
	store, err := document.NewFileStore(filepath.Join(dir, "state"))
	require.NoError(t, err)
	c := document.NewCorrelator(dropSender{filepath.Join(dir, "outbox")}, "pipe:replies", document.WithStore(store))
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	req := document.NewMessage("ftp://seller.example/inbox", order{Item: "bolt", Qty: 7}, document.WithConversation("po-restart"))
	_, err = c.RoundTrip(ctx, req)
	t.Fatalf("the parent should have killed this process (RoundTrip returned %v)", err)
}

// TestConversationSurvivesRestart: a process waiting for a reply is killed;
// after a restart its conversation is still awaiting the reply in the
// FileStore, and when the reply comes the restarted Correlator (which has
// no caller waiting for it) completes the conversation and hands the reply
// to its fallback.
func TestConversationSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "outbox"), 0o700))
	cmd := exec.Command(os.Args[0], "-test.run=^TestRestartHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), restartEnv+"="+dir)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })

	reqFile := filepath.Join(dir, "outbox", "request.xml")
	eventually(t, func() bool { _, err := os.Stat(reqFile); return err == nil }, "the child sends its request")
	require.NoError(t, cmd.Process.Kill()) // the process stops, mid-wait
	_ = cmd.Wait()
	assert.NotContains(t, out.String(), "should have killed", out.String())

	// restart: open the store again
	ctx := testCtx(t)
	store, err := document.NewFileStore(filepath.Join(dir, "state"))
	require.NoError(t, err)
	conv, err := store.Get(ctx, "po-restart")
	require.NoError(t, err)
	assert.Equal(t, document.StateAwaitingReply, conv.State, "still waiting after the restart")
	require.Len(t, conv.Pending, 1)
	assert.WithinDuration(t, time.Now().Add(time.Hour), conv.Deadline, 5*time.Minute)
	n, err := document.Expire(ctx, store, time.Now())
	require.NoError(t, err)
	assert.Zero(t, n, "its deadline has not passed")

	// the seller processes the dropped request and replies
	data, err := os.ReadFile(reqFile)
	require.NoError(t, err)
	req, err := core.ReadMessage(bytes.NewReader(data), core.Limits{})
	require.NoError(t, err)
	assert.Equal(t, conv.Pending[0], req.ID)
	replies := &recorder{}
	seller := document.NewHandler(confirm, document.WithOutbox(document.NewOutbox(map[string]core.Sender{"pipe": replies})))
	_, err = seller.ServeSOAP(ctx, req)
	require.NoError(t, err)
	require.Len(t, replies.messages(), 1)

	// the restarted requester receives it
	fb := &fallback{}
	c := document.NewCorrelator(dropSender{filepath.Join(dir, "outbox")}, "pipe:replies", document.WithStore(store), document.WithFallback(fb))
	_, err = c.ServeSOAP(ctx, replies.messages()[0])
	require.NoError(t, err)
	require.Len(t, fb.got(), 1, "the reply reached the fallback")
	assert.Equal(t, "late", fb.got()[0].Meta[document.MetaMatch])
	assert.Equal(t, req.ID, fb.got()[0].RelatesTo)
	assert.Contains(t, bodyString(t, fb.got()[0]), "accepted")
	conv, err = store.Get(ctx, "po-restart")
	require.NoError(t, err)
	assert.Equal(t, document.StateCompleted, conv.State)
	assert.Empty(t, conv.Pending)
}
