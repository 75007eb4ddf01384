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
	"strings"
	"sync"
	"time"
)

// FileStore is a Store that keeps one JSON file per conversation in a
// directory. Each update is written atomically (a temporary file, fsync,
// rename, fsync of the directory), so the state survives a crash or a
// restart: a conversation awaiting a reply when the process stops is still
// awaiting it when the process starts again (see Correlator for what then
// happens to its reply, and Expire for its deadline).
//
// One process at a time owns a directory; within it a FileStore is safe for
// concurrent use.
type FileStore struct {
	dir string
	mu  sync.Mutex
}

var _ Store = (*FileStore)(nil)

const tmpPrefix = ".tmp-"

// NewFileStore opens (creating if needed) a FileStore in dir and removes the
// temporary files an interrupted write left there.
func NewFileStore(dir string) (*FileStore, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("document: file store: %w", err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("document: file store: %w", err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), tmpPrefix) {
			_ = os.Remove(filepath.Join(dir, e.Name()))
		}
	}
	return &FileStore{dir: dir}, nil
}

// path names a conversation's file by a hash of its id, so that any id (a
// peer's, with slashes or dots) is a safe file name.
func (s *FileStore) path(id string) string {
	h := sha256.Sum256([]byte(id))
	return filepath.Join(s.dir, hex.EncodeToString(h[:16])+".json")
}

func (s *FileStore) load(id string) (*Conversation, error) {
	p := s.path(id)
	c, err := readConversation(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	if c.ID != id {
		return nil, fmt.Errorf("document: file store: %s holds conversation %q, not %q", p, c.ID, id)
	}
	return c, nil
}

func readConversation(p string) (*Conversation, error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("document: file store: %w", err)
	}
	var c Conversation
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("document: file store: %s: %w", p, err)
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
func (s *FileStore) Update(_ context.Context, id string, fn func(c *Conversation) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.load(id)
	if errors.Is(err, ErrNotFound) {
		c, err = &Conversation{ID: id, State: StateOpen}, nil
	}
	if err != nil {
		return err
	}
	if err := fn(c); err != nil {
		return err
	}
	c.ID = id
	c.Updated = time.Now()
	b, err := json.Marshal(c)
	if err != nil {
		return fmt.Errorf("document: file store: %w", err)
	}
	if err := writeAtomic(s.path(id), b); err != nil {
		return fmt.Errorf("document: file store: %w", err)
	}
	return nil
}

// Delete removes a conversation's file if cond allows.
func (s *FileStore) Delete(_ context.Context, id string, cond func(c *Conversation) bool) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.load(id)
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if cond != nil && !cond(c) {
		return false, nil
	}
	if err := os.Remove(s.path(id)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("document: file store: %w", err)
	}
	syncDir(s.dir)
	return true, nil
}

// List reads every conversation, by id. A file that cannot be read is an
// error, not a silently missing conversation.
func (s *FileStore) List(context.Context) ([]*Conversation, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return nil, fmt.Errorf("document: file store: %w", err)
	}
	var out []*Conversation
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".json") || strings.HasPrefix(e.Name(), tmpPrefix) {
			continue
		}
		c, err := readConversation(filepath.Join(s.dir, e.Name()))
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	sortByID(out)
	return out, nil
}

func writeAtomic(path string, b []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), tmpPrefix+"*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp) // a no-op after the rename
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
	syncDir(filepath.Dir(path))
	return nil
}

// syncDir makes a rename or removal in dir durable (best effort: not every
// file system can sync a directory).
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}
