package unixsock

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/soapwire/soapwire/core"
)

// Meta keys an Inbox sets on the messages it delivers.
const (
	MetaAttempt = "unixsock.attempt" // 1 for a first delivery, 2 after one Nack, …
	MetaFile    = "unixsock.file"    // the message's file name in the spool folder
)

// The spool folder's subfolders.
const (
	dirTmp    = "tmp"    // being received
	dirQueue  = "queue"  // stored, waiting or out for delivery
	dirFailed = "failed" // parked after the last attempt, with a .fault.xml beside
)

const fileExt = ".frame"

// Inbox is a core.Receiver over a spool folder that its Serve loop fills
// from a Unix socket. Each envelope a Transport sends is checked (it must
// be one core.ReadMessage accepts under the Inbox's Limits), written to
// tmp/, synced, and renamed into queue/ before the sender hears "stored".
//
// Receive delivers the queued messages in the order they were stored,
// reading the body from the file as the handler consumes it. Ack deletes
// the file. Nack puts the message back at the head of the queue, until it
// has been delivered WithMaxAttempts times: then it is moved to failed/,
// with its fault beside it in a .fault.xml file. A message out for
// delivery when the Inbox is closed stays in queue/: NewInbox on the same
// folder delivers it again (the attempt count starts over).
type Inbox struct {
	dir string
	o   inboxConfig

	mu      sync.Mutex
	queue   []*item
	changed chan struct{} // closed and replaced when queue or closed changes
	closed  bool
	done    chan struct{} // closed by Close
	lns     map[net.Listener]struct{}
	last    int64 // sequence number of the last file name given out
}

type item struct {
	name     string
	attempts int
}

var _ core.Receiver = (*Inbox)(nil)

// NewInbox opens the spool folder dir, creating it if needed, and queues
// the messages already stored there.
func NewInbox(dir string, opts ...InboxOption) (*Inbox, error) {
	in := &Inbox{dir: dir, o: newInboxConfig(opts), changed: make(chan struct{}), done: make(chan struct{}),
		lns: map[net.Listener]struct{}{}}
	for _, sub := range []string{dirTmp, dirQueue, dirFailed} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o700); err != nil {
			return nil, fmt.Errorf("unixsock: inbox: %w", err)
		}
	}
	// A file in tmp/ was never acknowledged to its sender: drop it.
	tmp, err := os.ReadDir(filepath.Join(dir, dirTmp))
	if err != nil {
		return nil, fmt.Errorf("unixsock: inbox: %w", err)
	}
	for _, e := range tmp {
		_ = os.Remove(filepath.Join(dir, dirTmp, e.Name()))
	}
	queued, err := os.ReadDir(filepath.Join(dir, dirQueue)) // sorted by name: stored order
	if err != nil {
		return nil, fmt.Errorf("unixsock: inbox: %w", err)
	}
	for _, e := range queued {
		seq, ok := sequence(e.Name())
		if !ok || !e.Type().IsRegular() {
			continue
		}
		in.queue = append(in.queue, &item{name: e.Name()})
		in.last = max(in.last, seq)
	}
	return in, nil
}

// sequence parses a spool file name.
func sequence(name string) (int64, bool) {
	digits, ok := strings.CutSuffix(name, fileExt)
	if !ok || len(digits) != 20 {
		return 0, false
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	return n, err == nil
}

// Dir returns the spool folder.
func (in *Inbox) Dir() string { return in.dir }

// Len returns the number of messages queued and not out for delivery.
func (in *Inbox) Len() int {
	in.mu.Lock()
	defer in.mu.Unlock()
	return len(in.queue)
}

// Serve accepts one-way sends on ln and stores them, until ctx is done or
// the Inbox is closed; then it closes ln and returns nil once the
// connections in progress have ended. Sends that were not stored are
// refused or cut off, never acknowledged.
func (in *Inbox) Serve(ctx context.Context, ln net.Listener) error {
	in.mu.Lock()
	if in.closed {
		in.mu.Unlock()
		_ = ln.Close()
		return nil
	}
	in.lns[ln] = struct{}{} // Close closes it at once, so its socket is free
	in.mu.Unlock()
	defer func() {
		in.mu.Lock()
		delete(in.lns, ln)
		in.mu.Unlock()
	}()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-in.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	err := acceptLoop(ctx, ln, &in.o.listenConfig, in.serveConn)
	select {
	case <-in.done:
		return nil // Close closed ln
	default:
		return err
	}
}

func (in *Inbox) serveConn(ctx context.Context, conn net.Conn) {
	_ = conn.SetReadDeadline(time.Now().Add(in.o.ioTimeout))
	f, err := readFrame(conn, maxBytes(in.o.limits))
	if err != nil {
		in.o.refuse(ctx, conn, "inbox", err, "")
		return
	}
	if f.kind != kindSend {
		in.o.refuse(ctx, conn, "inbox", fmt.Errorf("%w: frame of kind %q", ErrProtocol, f.kind),
			"this socket is an inbox: it takes one-way sends (kind S)")
		return
	}
	body := &payloadReader{r: conn, conn: conn, timeout: in.o.ioTimeout, n: f.n}
	name, err := in.store(f, body)
	if err != nil {
		var fault *core.Fault
		var disk *diskError
		reason := ""
		switch {
		case errors.As(err, &disk):
			in.o.log.ErrorContext(ctx, "unixsock: inbox cannot store", slog.Any("err", err))
			reason = "the inbox could not store the message"
		case errors.As(err, &fault):
			reason = "envelope refused: " + fault.Reason
		}
		if rerr := body.rest(); rerr != nil {
			err, reason = rerr, "" // cut short: nobody to answer
		}
		in.o.refuse(ctx, conn, "inbox", err, reason)
		return
	}
	in.o.answer(ctx, conn, kindStored, "", nil)
	in.o.log.DebugContext(ctx, "unixsock: stored", slog.String("file", name))
}

// diskError is a failure of the spool folder, not of the message.
type diskError struct{ err error }

func (e *diskError) Error() string { return "unixsock: spool: " + e.err.Error() }
func (e *diskError) Unwrap() error { return e.err }

// store checks the envelope while it writes the frame to tmp/, then syncs
// and renames it into queue/ and queues it.
func (in *Inbox) store(f frame, body *payloadReader) (string, error) {
	name := in.nextName()
	tmp := filepath.Join(in.dir, dirTmp, name)
	file, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", &diskError{err}
	}
	stored := false
	defer func() {
		if !stored {
			_ = file.Close()
			_ = os.Remove(tmp)
		}
	}()
	head, err := appendHeader(nil, kindSend, f.action, int(f.n))
	if err != nil {
		return "", err
	}
	w := &fileWriter{f: file}
	_, _ = w.Write(head)
	tee := io.TeeReader(body, w)
	m, err := core.ReadMessage(tee, in.o.limits)
	if err == nil {
		err = m.Body().Discard()
	}
	if err == nil {
		err = m.TakeAction(f.action, "the frame's action")
	}
	if err == nil {
		_, err = io.Copy(io.Discard, tee) // whitespace after the Envelope
	}
	switch {
	case w.err != nil:
		return "", &diskError{w.err}
	case err != nil:
		return "", err
	}
	if err := file.Sync(); err != nil {
		return "", &diskError{err}
	}
	if err := file.Close(); err != nil {
		return "", &diskError{err}
	}
	if err := os.Rename(tmp, filepath.Join(in.dir, dirQueue, name)); err != nil {
		return "", &diskError{err}
	}
	stored = true
	syncDir(filepath.Join(in.dir, dirQueue))
	in.mu.Lock()
	defer in.mu.Unlock()
	if !in.closed { // else it waits in queue/ for the next NewInbox
		in.queue = append(in.queue, &item{name: name})
		in.signal()
	}
	return name, nil
}

// fileWriter remembers the first write error, so a full disk is not taken
// for a bad envelope.
type fileWriter struct {
	f   *os.File
	err error
}

func (w *fileWriter) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	n, err := w.f.Write(p)
	w.err = err
	return n, err
}

// syncDir makes a rename in dir durable (best effort: not every system
// can sync a folder).
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}

// nextName returns a new spool file name; names sort in the order they are
// given out, also across restarts.
func (in *Inbox) nextName() string {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.last = max(time.Now().UnixNano(), in.last+1)
	return fmt.Sprintf("%020d%s", in.last, fileExt)
}

// signal wakes every waiter; in.mu must be held.
func (in *Inbox) signal() {
	close(in.changed)
	in.changed = make(chan struct{})
}

// Receive returns the next stored message, waiting until there is one, ctx
// is done (its error is returned, wrapped) or the Inbox is closed
// (core.ErrClosed). A stored file that can no longer be read is parked in
// failed/ and logged, and Receive goes on to the next.
func (in *Inbox) Receive(ctx context.Context) (core.Delivery, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("unixsock: receive: %w", err)
		}
		in.mu.Lock()
		if in.closed {
			in.mu.Unlock()
			return nil, core.ErrClosed
		}
		if len(in.queue) > 0 {
			it := in.queue[0]
			in.queue[0] = nil
			in.queue = in.queue[1:]
			it.attempts++
			in.mu.Unlock()
			d, err := in.open(it)
			if err != nil {
				in.o.log.ErrorContext(ctx, "unixsock: stored message unreadable", slog.String("file", it.name), slog.Any("err", err))
				_ = in.park(it.name, 0, err)
				continue
			}
			return d, nil
		}
		ch := in.changed
		in.mu.Unlock()
		select {
		case <-ctx.Done():
		case <-ch:
		}
	}
}

// open reads a stored message's header; its body stays in the file until
// the handler reads it.
func (in *Inbox) open(it *item) (*delivery, error) {
	file, err := os.Open(filepath.Join(in.dir, dirQueue, it.name))
	if err != nil {
		return nil, err
	}
	f, err := readFrame(file, maxBytes(in.o.limits))
	if err == nil && f.kind != kindSend {
		err = fmt.Errorf("%w: stored frame of kind %q", ErrProtocol, f.kind)
	}
	var m *core.Message
	if err == nil {
		m, err = core.ReadMessage(&payloadReader{r: file, n: f.n}, in.o.limits)
	}
	if err == nil {
		err = m.TakeAction(f.action, "the frame's action") // they agreed when it arrived
	}
	if err != nil {
		_ = file.Close()
		return nil, err
	}
	m.SetMeta(MetaAttempt, strconv.Itoa(it.attempts))
	m.SetMeta(MetaFile, it.name)
	return &delivery{in: in, it: it, m: m, file: file}, nil
}

// retry puts a Nacked message back at the head of the queue, or parks it
// after its last attempt.
func (in *Inbox) retry(it *item, v core.Version, cause error) error {
	in.mu.Lock()
	switch {
	case in.closed:
		in.mu.Unlock()
		return nil // stays in queue/ for the next NewInbox
	case it.attempts < in.o.maxAttempts:
		in.queue = append([]*item{it}, in.queue...)
		in.signal()
		in.mu.Unlock()
		return nil
	}
	in.mu.Unlock()
	return in.park(it.name, v, cause)
}

// park moves a message to failed/ and writes its fault beside it.
func (in *Inbox) park(name string, v core.Version, cause error) error {
	var f *core.Fault
	if !errors.As(cause, &f) {
		text := "no reason given"
		if cause != nil {
			text = cause.Error()
		}
		f = &core.Fault{Code: core.CodeReceiver, Reason: text} // stays on this machine
	}
	if v == 0 {
		v = core.V12
	}
	failed := filepath.Join(in.dir, dirFailed, name)
	if err := os.Rename(filepath.Join(in.dir, dirQueue, name), failed); err != nil {
		return fmt.Errorf("unixsock: park %s: %w", name, err)
	}
	fm := core.NewMessage(v, core.FaultBody(f))
	out, err := os.Create(failed + ".fault.xml")
	if err == nil {
		_, err = fm.WriteTo(out)
		if cerr := out.Close(); err == nil {
			err = cerr
		}
	}
	in.o.log.Warn("unixsock: message parked", slog.String("file", failed), slog.String("fault", f.Error()))
	if err != nil {
		return fmt.Errorf("unixsock: park %s: write the fault: %w", name, err)
	}
	return nil
}

// Close closes the Inbox: a blocked or later Receive returns core.ErrClosed,
// the listeners of Serve are closed (their sockets free at once) and Serve
// returns. What is stored stays in the folder. Deliveries out
// may still be settled. Close may be called more than once.
func (in *Inbox) Close() error {
	in.mu.Lock()
	defer in.mu.Unlock()
	if !in.closed {
		in.closed = true
		in.queue = nil
		close(in.done)
		in.signal()
		for ln := range in.lns {
			_ = ln.Close()
		}
	}
	return nil
}
