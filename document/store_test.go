package document_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/document"
)

func stores(t *testing.T) map[string]func() document.Store {
	dir := t.TempDir()
	return map[string]func() document.Store{
		"memory": func() document.Store { return document.NewMemoryStore() },
		"file": func() document.Store {
			s, err := document.NewFileStore(dir)
			require.NoError(t, err)
			return s
		},
	}
}

func TestStores(t *testing.T) {
	for name, open := range stores(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			s := open()
			_, err := s.Get(ctx, "c1")
			require.ErrorIs(t, err, document.ErrNotFound)
			err = s.Update(ctx, "c1", func(c *document.Conversation) error {
				assert.Equal(t, document.StateOpen, c.State)
				assert.True(t, c.Updated.IsZero(), "a new conversation")
				c.State = document.StateAwaitingReply
				c.Pending = append(c.Pending, "m1")
				return nil
			})
			require.NoError(t, err)
			got, err := s.Get(ctx, "c1")
			require.NoError(t, err)
			assert.Equal(t, []string{"m1"}, got.Pending)
			assert.False(t, got.Updated.IsZero())

			// a failing update changes nothing
			err = s.Update(ctx, "c1", func(c *document.Conversation) error {
				c.State = document.StateFailed
				return os.ErrInvalid
			})
			require.ErrorIs(t, err, os.ErrInvalid)
			got, _ = s.Get(ctx, "c1")
			assert.Equal(t, document.StateAwaitingReply, got.State)

			// concurrent updates are atomic
			var wg sync.WaitGroup
			for i := 0; i < 50; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					err := s.Update(ctx, "counter", func(c *document.Conversation) error {
						c.Pending = append(c.Pending, "x")
						return nil
					})
					assert.NoError(t, err)
				}()
			}
			wg.Wait()
			got, err = s.Get(ctx, "counter")
			require.NoError(t, err)
			assert.Len(t, got.Pending, 50)
			all, err := s.List(ctx)
			require.NoError(t, err)
			require.Len(t, all, 2)
			assert.Equal(t, "c1", all[0].ID)
		})
	}
}

func TestFileStoreSurvivesReopen(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	s1, err := document.NewFileStore(dir)
	require.NoError(t, err)
	err = s1.Update(ctx, "urn:uuid:waiting", func(c *document.Conversation) error {
		c.State = document.StateAwaitingReply
		c.Pending = []string{"urn:uuid:req"}
		return nil
	})
	require.NoError(t, err)

	s2, err := document.NewFileStore(dir) // a restart
	require.NoError(t, err)
	c, err := s2.Get(ctx, "urn:uuid:waiting")
	require.NoError(t, err)
	assert.Equal(t, document.StateAwaitingReply, c.State)
	assert.Equal(t, []string{"urn:uuid:req"}, c.Pending)

	// no temporary files left behind
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		assert.Equal(t, ".json", filepath.Ext(e.Name()))
	}
	// a corrupt file is an error, not a silent empty state
	require.NoError(t, os.WriteFile(filepath.Join(dir, entries[0].Name()), []byte("{not json"), 0o600))
	_, err = s2.Get(ctx, "urn:uuid:waiting")
	require.Error(t, err)
}

func TestStoreDelete(t *testing.T) {
	for name, open := range stores(t) {
		t.Run(name, func(t *testing.T) {
			ctx := testCtx(t)
			s := open()
			err := s.Update(ctx, "d1", func(c *document.Conversation) error { c.State = document.StateAwaitingReply; return nil })
			require.NoError(t, err)
			ok, err := s.Delete(ctx, "d1", func(c *document.Conversation) bool { return c.State != document.StateAwaitingReply })
			require.NoError(t, err)
			assert.False(t, ok, "the condition kept it")
			_, err = s.Get(ctx, "d1")
			require.NoError(t, err)
			ok, err = s.Delete(ctx, "d1", nil)
			require.NoError(t, err)
			assert.True(t, ok)
			_, err = s.Get(ctx, "d1")
			require.ErrorIs(t, err, document.ErrNotFound)
			ok, err = s.Delete(ctx, "d1", nil)
			require.NoError(t, err)
			assert.False(t, ok, "unknown id")
		})
	}
}

func TestExpireAndPrune(t *testing.T) {
	for name, open := range stores(t) {
		t.Run(name, func(t *testing.T) {
			ctx := testCtx(t)
			s := open()
			now := time.Now()
			set := func(id string, st document.State, deadline time.Time, pending ...string) {
				err := s.Update(ctx, id, func(c *document.Conversation) error {
					c.State, c.Deadline, c.Pending = st, deadline, pending
					return nil
				})
				require.NoError(t, err)
			}
			set("overdue", document.StateAwaitingReply, now.Add(-time.Minute), "r1", "r2")
			set("due-later", document.StateAwaitingReply, now.Add(time.Hour), "r3")
			set("no-deadline", document.StateAwaitingReply, time.Time{}, "r4")
			set("done", document.StateCompleted, time.Time{})
			n, err := document.Expire(ctx, s, now)
			require.NoError(t, err)
			assert.Equal(t, 1, n)
			c, err := s.Get(ctx, "overdue")
			require.NoError(t, err)
			assert.Equal(t, document.StateExpired, c.State)
			assert.Empty(t, c.Pending)
			assert.Equal(t, []string{"r1", "r2"}, c.Expired, "kept so a late reply is recognised")
			for _, id := range []string{"due-later", "no-deadline"} {
				c, err := s.Get(ctx, id)
				require.NoError(t, err)
				assert.Equal(t, document.StateAwaitingReply, c.State, id)
			}

			n, err = document.Prune(ctx, s, time.Now().Add(time.Second))
			require.NoError(t, err)
			assert.Equal(t, 2, n, "expired and completed go; awaiting ones stay")
			all, err := s.List(ctx)
			require.NoError(t, err)
			var ids []string
			for _, c := range all {
				ids = append(ids, c.ID)
			}
			assert.Equal(t, []string{"due-later", "no-deadline"}, ids)
			n, err = document.Prune(ctx, s, now.Add(-time.Hour))
			require.NoError(t, err)
			assert.Zero(t, n, "nothing that old")
		})
	}
}

func TestFileStoreRefusals(t *testing.T) {
	dir := t.TempDir()
	ctx := testCtx(t)
	// a temporary file an interrupted write left is cleaned up at open
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".tmp-123"), []byte("half"), 0o600))
	s, err := document.NewFileStore(dir)
	require.NoError(t, err)
	_, err = os.Stat(filepath.Join(dir, ".tmp-123"))
	require.ErrorIs(t, err, os.ErrNotExist)

	// a file holding another conversation than its name says is an error
	err = s.Update(ctx, "a", func(*document.Conversation) error { return nil })
	require.NoError(t, err)
	err = s.Update(ctx, "b", func(*document.Conversation) error { return nil })
	require.NoError(t, err)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 2)
	a, err := os.ReadFile(filepath.Join(dir, entries[0].Name()))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, entries[1].Name()), a, 0o600))
	_, errA := s.Get(ctx, "a")
	_, errB := s.Get(ctx, "b")
	assert.True(t, (errA == nil) != (errB == nil), "exactly one of them is now wrong: %v / %v", errA, errB)

	// a directory that cannot be created
	_, err = document.NewFileStore(filepath.Join(dir, entries[0].Name(), "sub"))
	require.Error(t, err)
}

// TestStoreUpdateRollsBack: changes fn makes in place (to the fields and to
// the elements of its slices) are undone when it fails or panics, and a
// conversation fn fails to create is not stored.
func TestStoreUpdateRollsBack(t *testing.T) {
	for name, open := range stores(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			s := open()
			at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
			err := s.Update(ctx, "r1", func(c *document.Conversation) error {
				c.State = document.StateAwaitingReply
				c.Pending = []string{"p1", "p2"}
				c.Handled = append(c.Handled, document.Outcome{MessageID: "m1", Done: true, At: at, Reply: []byte("<r/>")})
				return nil
			})
			require.NoError(t, err)
			want, err := s.Get(ctx, "r1")
			require.NoError(t, err)

			spoil := func(c *document.Conversation) {
				c.State = document.StateFailed
				c.Pending[0] = "spoilt"
				c.Pending = slices.Delete(c.Pending, 1, 2)
				c.Handled[0].Done, c.Handled[0].Owner = false, "someone"
				c.Handled = append(c.Handled, document.Outcome{MessageID: "m2"})
				c.Expired = append(c.Expired, "e1")
			}
			err = s.Update(ctx, "r1", func(c *document.Conversation) error { spoil(c); return os.ErrInvalid })
			require.ErrorIs(t, err, os.ErrInvalid)
			got, err := s.Get(ctx, "r1")
			require.NoError(t, err)
			assert.Equal(t, want, got, "after a failed update")

			assert.Panics(t, func() {
				_ = s.Update(ctx, "r1", func(c *document.Conversation) error { spoil(c); panic("boom") })
			})
			got, err = s.Get(ctx, "r1")
			require.NoError(t, err)
			assert.Equal(t, want, got, "after a panicking update")

			// the store still works, and a failed creation stores nothing
			err = s.Update(ctx, "r2", func(c *document.Conversation) error {
				c.Handled = append(c.Handled, document.Outcome{MessageID: "x"})
				return os.ErrInvalid
			})
			require.ErrorIs(t, err, os.ErrInvalid)
			_, err = s.Get(ctx, "r2")
			require.ErrorIs(t, err, document.ErrNotFound)
			err = s.Update(ctx, "r1", func(c *document.Conversation) error { c.State = document.StateCompleted; return nil })
			require.NoError(t, err)
			got, err = s.Get(ctx, "r1")
			require.NoError(t, err)
			assert.Equal(t, document.StateCompleted, got.State)
			assert.Equal(t, want.Pending, got.Pending)
			assert.Equal(t, want.Handled, got.Handled)
		})
	}
}
