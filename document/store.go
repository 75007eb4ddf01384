package document

import (
	"context"
	"errors"
	"maps"
	"slices"
	"sync"
	"time"
)

// State is where a conversation stands.
type State string

// Conversation states.
const (
	StateOpen          State = "open"           // created, nothing sent or processed yet
	StateAwaitingReply State = "awaiting-reply" // a request went out; its reply has not come
	StateAcknowledged  State = "acknowledged"   // a message was received and processed
	StateCompleted     State = "completed"      // the awaited reply came
	StateFailed        State = "failed"         // a fault came back, or sending failed
	StateExpired       State = "expired"        // the reply did not come in time
)

// ErrNotFound is returned by Store.Get for an unknown conversation.
var ErrNotFound = errors.New("document: conversation not found")

// Outcome is what processing a message produced, kept so that a repeated
// delivery of the same message id is answered with it instead of being
// processed again.
type Outcome struct {
	Done    bool      `json:"done"`            // false while the message is being processed
	Started time.Time `json:"started"`         // when processing began
	Reply   []byte    `json:"reply,omitempty"` // the reply or fault message as written (addressing included)
	To      string    `json:"to,omitempty"`    // where Reply was sent ("" = the back-channel)
}

// Conversation is the state of one conversation.
type Conversation struct {
	ID      string             `json:"id"`
	State   State              `json:"state"`
	Updated time.Time          `json:"updated"`
	Pending []string           `json:"pending,omitempty"`   // ids of requests awaiting a reply
	Handled map[string]Outcome `json:"processed,omitempty"` // received message id → outcome
}

// Clone returns a deep copy.
func (c *Conversation) Clone() *Conversation {
	d := *c
	d.Pending = slices.Clone(c.Pending)
	d.Handled = maps.Clone(c.Handled)
	return &d
}

// Store keeps conversations. Update must be atomic for one id: fn sees the
// current state (a new Conversation{ID: id, State: StateOpen} when there is
// none) and its changes are stored only if it returns nil.
type Store interface {
	Get(ctx context.Context, id string) (*Conversation, error)
	Update(ctx context.Context, id string, fn func(c *Conversation) error) (*Conversation, error)
	List(ctx context.Context) ([]*Conversation, error)
}

// MemoryStore is a Store in memory. The zero MemoryStore is ready to use.
type MemoryStore struct {
	mu sync.Mutex
	m  map[string]*Conversation
}

var _ Store = (*MemoryStore)(nil)

// NewMemoryStore returns an empty MemoryStore.
func NewMemoryStore() *MemoryStore { return &MemoryStore{} }

// Get returns a copy of the conversation.
func (s *MemoryStore) Get(_ context.Context, id string) (*Conversation, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.m[id]
	if !ok {
		return nil, ErrNotFound
	}
	return c.Clone(), nil
}

// Update applies fn atomically.
func (s *MemoryStore) Update(_ context.Context, id string, fn func(c *Conversation) error) (*Conversation, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.m[id]
	if ok {
		c = c.Clone()
	} else {
		c = &Conversation{ID: id, State: StateOpen}
	}
	if err := fn(c); err != nil {
		return nil, err
	}
	c.Updated = time.Now()
	if s.m == nil {
		s.m = make(map[string]*Conversation)
	}
	s.m[id] = c
	return c.Clone(), nil
}

// List returns copies of all conversations, by id.
func (s *MemoryStore) List(context.Context) ([]*Conversation, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*Conversation, 0, len(s.m))
	for _, c := range s.m {
		out = append(out, c.Clone())
	}
	slices.SortFunc(out, func(a, b *Conversation) int { return compare(a.ID, b.ID) })
	return out, nil
}

func compare(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
