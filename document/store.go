package document

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"
)

// State is where a conversation stands.
type State string

// Conversation states.
const (
	StateOpen          State = "open"           // created, nothing sent or processed yet
	StateAwaitingReply State = "awaiting-reply" // a request went out; its reply has not come
	StateAcknowledged  State = "acknowledged"   // a one-way document was accepted by the transport, or a received one was processed
	StateCompleted     State = "completed"      // the awaited reply came
	StateFailed        State = "failed"         // a fault came back or was sent, or sending failed
	StateExpired       State = "expired"        // the reply did not come in time
)

// Outcome is what processing a received message produced, kept so that a
// repeated delivery of the same message id is answered with it instead of
// being processed again.
type Outcome struct {
	MessageID string    `json:"id"`              // the received message's id
	Done      bool      `json:"done"`            // false while the message is being processed
	Owner     string    `json:"owner,omitempty"` // the Handler processing it (while not Done)
	At        time.Time `json:"at"`              // when processing began or, once Done, ended
	Reply     []byte    `json:"reply,omitempty"` // the reply or fault message as written (addressing included)
	To        string    `json:"to,omitempty"`    // where Reply was sent ("" = the back-channel)
}

// Conversation is the state of one conversation.
type Conversation struct {
	ID       string    `json:"id"`
	State    State     `json:"state"`
	Updated  time.Time `json:"updated"`
	Deadline time.Time `json:"deadline,omitzero"` // when the awaited reply is due (zero: no deadline)
	// Pending are the ids of requests awaiting a reply.
	Pending []string `json:"pending,omitempty"`
	// Expired are the ids of requests whose caller stopped waiting: a late
	// reply to one of them is recognised (and completes the conversation).
	Expired []string `json:"expired,omitempty"`
	// Handled is what processing each received message produced, oldest
	// first.
	Handled []Outcome `json:"handled,omitempty"`
}

// Outcome returns the outcome recorded for message id, or nil.
func (c *Conversation) Outcome(id string) *Outcome {
	for i := range c.Handled {
		if c.Handled[i].MessageID == id {
			return &c.Handled[i]
		}
	}
	return nil
}

// Clone returns a deep copy.
func (c *Conversation) Clone() *Conversation {
	d := *c
	d.Pending = slices.Clone(c.Pending)
	d.Expired = slices.Clone(c.Expired)
	d.Handled = slices.Clone(c.Handled)
	return &d
}

// Store keeps conversations.
//
// Update must be atomic for one id: fn sees the current state, or a new
// Conversation{ID: id, State: StateOpen} with a zero Updated when there is
// none, and its changes are stored (with Updated set to now) only if it
// returns nil; its error is returned as is. fn must not keep c (Clone it). Get returns ErrNotFound for an
// unknown id. Delete removes a conversation if cond (nil: always) returns
// true for its current state, atomically like Update; deleting an unknown
// id is (false, nil). Implementations must be safe for concurrent use and
// return copies the caller may keep.
type Store interface {
	Get(ctx context.Context, id string) (*Conversation, error)
	Update(ctx context.Context, id string, fn func(c *Conversation) error) error
	Delete(ctx context.Context, id string, cond func(c *Conversation) bool) (bool, error)
	List(ctx context.Context) ([]*Conversation, error)
}

// MemoryStore is a Store in memory. The zero MemoryStore is ready to use.
type MemoryStore struct {
	mu     sync.Mutex
	m      map[string]*Conversation
	backup Conversation // Update's copy of the state before fn, kept for its arrays
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

// newConversation is a new open conversation with room for one handled
// message (a received document starts most), in one allocation.
func newConversation(id string) *Conversation {
	b := &struct {
		c     Conversation
		first [1]Outcome
	}{c: Conversation{ID: id, State: StateOpen}}
	b.c.Handled = b.first[:0]
	return &b.c
}

// Update applies fn atomically. fn changes the stored conversation in
// place; a copy taken before (into arrays the store reuses, so an update
// allocates nothing) puts it back when fn fails or panics. A new
// conversation is stored only if fn succeeds.
func (s *MemoryStore) Update(_ context.Context, id string, fn func(c *Conversation) error) error {
	return s.update(id, time.Time{}, fn)
}

// update is Update with the time to set Updated to, when the caller has
// just read the clock (zero: read it).
func (s *MemoryStore) update(id string, now time.Time, fn func(c *Conversation) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.m[id]
	if !ok {
		c = newConversation(id)
		if err := fn(c); err != nil {
			return err
		}
		c.ID = id
		c.Updated = nowOr(now)
		if s.m == nil {
			s.m = make(map[string]*Conversation)
		}
		s.m[id] = c
		return nil
	}
	b, orig := &s.backup, *c
	b.save(c)
	done := false
	defer func() {
		if !done {
			b.restore(c, &orig)
		}
		b.clear()
	}()
	if err := fn(c); err != nil {
		return err
	}
	done = true
	c.ID = id
	c.Updated = nowOr(now)
	return nil
}

func nowOr(t time.Time) time.Time {
	if t.IsZero() {
		return time.Now()
	}
	return t
}

// save copies c into b, reusing b's arrays.
func (b *Conversation) save(c *Conversation) {
	pending, expired, handled := b.Pending[:0], b.Expired[:0], b.Handled[:0]
	*b = *c
	b.Pending = append(pending, c.Pending...)
	b.Expired = append(expired, c.Expired...)
	b.Handled = append(handled, c.Handled...)
}

// restore puts the state b saved back into c, whose fields were orig
// before: its arrays get their saved elements back.
func (b *Conversation) restore(c, orig *Conversation) {
	*c = *b
	c.Pending = append(orig.Pending[:0], b.Pending...)
	c.Expired = append(orig.Expired[:0], b.Expired...)
	c.Handled = append(orig.Handled[:0], b.Handled...)
}

// clear drops what b refers to, keeping its arrays.
func (b *Conversation) clear() {
	clear(b.Pending)
	clear(b.Expired)
	clear(b.Handled)
	*b = Conversation{Pending: b.Pending[:0], Expired: b.Expired[:0], Handled: b.Handled[:0]}
}

// Delete removes a conversation if cond allows.
func (s *MemoryStore) Delete(_ context.Context, id string, cond func(c *Conversation) bool) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.m[id]
	if !ok || (cond != nil && !cond(c.Clone())) {
		return false, nil
	}
	delete(s.m, id)
	return true, nil
}

// List returns copies of all conversations, by id.
func (s *MemoryStore) List(context.Context) ([]*Conversation, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*Conversation, 0, len(s.m))
	for _, c := range s.m {
		out = append(out, c.Clone())
	}
	sortByID(out)
	return out, nil
}

func sortByID(cs []*Conversation) {
	slices.SortFunc(cs, func(a, b *Conversation) int { return strings.Compare(a.ID, b.ID) })
}
