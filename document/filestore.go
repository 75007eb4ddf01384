package document

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// FileStore is a Store that keeps one JSON file per conversation in a
// directory, written atomically (temporary file, fsync, rename, fsync of the
// directory), so state survives a restart: a conversation awaiting a reply
// when the process stops is still awaiting it when the process starts again.
// One process at a time should own a directory.
type FileStore struct {
	dir string
	mu  sync.Mutex
}

var _ Store = (*FileStore)(nil)

// NewFileStore opens (creating if needed) a FileStore in dir.
func NewFileStore(dir string) (*FileStore, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("document: file store: %w", err)
	}
	return &FileStore{dir: dir}, nil
}

func (s *FileStore) path(id string) string {
	h := sha256.Sum256([]byte(id))
	return filepath.Join(s.dir, hex.EncodeToString(h[:16])+".json")
}

func (s *FileStore) load(id string) (*Conversation, error) {
	b, err := os.ReadFile(s.path(id))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("document: file store: %w", err)
	}
	var c Conversation
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("document: file store: %s: %w", s.path(id), err)
	}
	return &c, nil
}

// Get reads a conversation.
func (s *FileStore) Get(_ context.Context, id string) (*Conversation, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.load(id)
}

// Update applies fn and writes the result atomically.
func (s *FileStore) Update(_ context.Context, id string, fn func(c *Conversation) error) (*Conversation, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.load(id)
	if errors.Is(err, ErrNotFound) {
		c, err = &Conversation{ID: id, State: StateOpen}, nil
	}
	if err != nil {
		return nil, err
	}
	if err := fn(c); err != nil {
		return nil, err
	}
	c.Updated = time.Now()
	b, err := json.Marshal(c)
	if err != nil {
		return nil, fmt.Errorf("document: file store: %w", err)
	}
	if err := writeAtomic(s.path(id), b); err != nil {
		return nil, fmt.Errorf("document: file store: %w", err)
	}
	return c.Clone(), nil
}

// List reads every conversation, by id.
func (s *FileStore) List(context.Context) ([]*Conversation, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return nil, fmt.Errorf("document: file store: %w", err)
	}
	var out []*Conversation
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(s.dir, e.Name()))
		if err != nil {
			return nil, fmt.Errorf("document: file store: %w", err)
		}
		var c Conversation
		if err := json.Unmarshal(b, &c); err != nil {
			return nil, fmt.Errorf("document: file store: %s: %w", e.Name(), err)
		}
		out = append(out, &c)
	}
	slices.SortFunc(out, func(a, b *Conversation) int { return compare(a.ID, b.ID) })
	return out, nil
}

func writeAtomic(path string, b []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp) // no-op after the rename
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	if d, err := os.Open(filepath.Dir(path)); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}
