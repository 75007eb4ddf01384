package drop_test

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/bindings/internal/drop"
	"github.com/soapwire/soapwire/core"
)

// renameOpener is a fakeFS that claims and opens in one call
// (drop.RenameOpener), as the SFTP binding does, each step counted.
type renameOpener struct {
	*fakeFS
	openErr error // the open's error, when set
}

func (r *renameOpener) RenameOpen(ctx, openCtx context.Context, from, to string) (io.ReadCloser, error, error) {
	r.count("renameopen", from)
	if err := r.Rename(ctx, from, to); err != nil {
		return nil, err, nil
	}
	r.mu.Lock()
	openErr := r.openErr
	r.mu.Unlock()
	if openErr != nil {
		return nil, nil, openErr
	}
	rc, err := r.Open(openCtx, to)
	return rc, nil, err
}

// TestPollerClaimsWithRenameOpener: an FS that can claim and open at once
// is claimed with RenameOpen, and the file is read from the reader it gave
// (not opened again); a claim lost to another Poller is not delivered; an
// open that fails after the claim returns the file to the inbox, as a
// failed Open does; a file listed over the limits is claimed with a plain Rename and
// parked unread.
func TestPollerClaimsWithRenameOpener(t *testing.T) {
	f := &renameOpener{fakeFS: newFakeFS()}
	p, _ := newPoller(t, f, drop.Config{Limits: core.Limits{MaxBytes: 4096, MaxPackageBytes: 4096}})
	f.put("/ep/inbox/a.xml", envelope(t, "urn:a", "a"))
	d, err := p.Receive(tctx(t))
	require.NoError(t, err)
	assert.Equal(t, "urn:a", d.Message().ID)
	assert.Equal(t, 1, f.opCount("renameopen", "/ep/inbox/a.xml"))
	assert.Equal(t, 1, f.opCount("open", d.Message().Meta["fake.claim"]), "opened once, by RenameOpen")
	require.NoError(t, d.Ack(tctx(t)))

	// The Poller works while Receive runs: one runs until the end.
	rctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	got := make(chan core.Delivery, 4)
	go func() {
		for {
			d, err := p.Receive(rctx)
			if err != nil {
				return
			}
			got <- d
		}
	}()
	f.put("/ep/inbox/big.xml", envelope(t, "urn:big", strings.Repeat("x", 200000)))
	require.Eventually(t, func() bool { return len(f.names("/ep/failed")) > 0 }, 10*time.Second, 5*time.Millisecond)
	assert.Zero(t, f.opCount("renameopen", "/ep/inbox/big.xml"), "too large: claimed with Rename")
	assert.Equal(t, 1, f.opCount("rename", "/ep/inbox/big.xml"))

	f.mu.Lock()
	f.openErr = errors.New("connection lost")
	f.mu.Unlock()
	f.put("/ep/inbox/c.xml", envelope(t, "urn:c", "c"))
	require.Eventually(t, func() bool { return f.opCount("renameopen", "/ep/inbox/c.xml") > 0 }, 10*time.Second, 5*time.Millisecond)
	require.Eventually(t, func() bool { return len(f.names("/ep/inbox")) == 1 && len(f.names("/ep/work")) == 0 }, 10*time.Second, 5*time.Millisecond, "returned to the inbox")
	assert.Empty(t, got, "nothing delivered")
}

// TestStoreWithPublisher: an FS that publishes in one call
// (drop.Publisher) is stored through it; its refusal is Store's error and
// the temporary file it left is removed.
func TestStoreWithPublisher(t *testing.T) {
	f := &publisher{fakeFS: newFakeFS()}
	f.Mkdir(context.Background(), "/out")
	p, err := drop.Store(tctx(t), f, "/out", "a.xml", strings.NewReader("<x/>"), nil, "fake")
	require.NoError(t, err)
	assert.Equal(t, "/out/a.xml", p)
	assert.Equal(t, 1, f.published)
	assert.Equal(t, []string{"a.xml"}, f.names("/out"))

	f.refuse = true
	_, err = drop.Store(tctx(t), f, "/out", "b.xml", strings.NewReader("<y/>"), nil, "fake")
	require.ErrorIs(t, err, fs.ErrPermission)
	assert.Contains(t, err.Error(), "rename .b.xml")
	assert.Equal(t, []string{"a.xml"}, f.names("/out"), "the temporary file removed")
}

type publisher struct {
	*fakeFS
	published int
	refuse    bool
}

func (p *publisher) Publish(ctx context.Context, tmp, final string, r io.Reader) error {
	p.published++
	if err := p.Write(ctx, tmp, r); err != nil {
		return drop.UploadError(err)
	}
	if p.refuse {
		return drop.RenameError(tmp, fs.ErrPermission)
	}
	if err := p.Rename(ctx, tmp, final); err != nil {
		return drop.RenameError(tmp, err)
	}
	return nil
}
