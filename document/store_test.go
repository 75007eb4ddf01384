package document_test

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

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
			c, err := s.Update(ctx, "c1", func(c *document.Conversation) error {
				assert.Equal(t, document.StateOpen, c.State)
				c.State = document.StateAwaitingReply
				c.Pending = append(c.Pending, "m1")
				return nil
			})
			require.NoError(t, err)
			assert.Equal(t, document.StateAwaitingReply, c.State)
			got, err := s.Get(ctx, "c1")
			require.NoError(t, err)
			assert.Equal(t, []string{"m1"}, got.Pending)
			assert.False(t, got.Updated.IsZero())

			// a failing update changes nothing
			_, err = s.Update(ctx, "c1", func(c *document.Conversation) error {
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
					_, err := s.Update(ctx, "counter", func(c *document.Conversation) error {
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
	_, err = s1.Update(ctx, "urn:uuid:waiting", func(c *document.Conversation) error {
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
