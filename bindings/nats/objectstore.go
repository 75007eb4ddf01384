package nats

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"mime"
	"net/textproto"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/soapwire/soapwire/core"
)

// External parts: a part too large for one NATS message travels in a
// JetStream object store bucket, and the package carries in its place a
// part of this media type (see WithObjectStore).
const (
	MediaTypeExternalBody = "message/external-body"
	AccessTypeNATSObject  = "x-nats-object"
)

// DefaultObjectThreshold is the size above which WithObjectStore puts a
// part into the object store when no threshold is given.
const DefaultObjectThreshold = 256 << 10

// ObjectStoreOption is WithObjectStore: an option of the constructors
// that send packages (NewTransport, NewPublisher) and of those that read
// them (Subscribe, NewReceiver).
type ObjectStoreOption interface {
	SubscribeOption
	TransportOption
	PublisherOption
	ReceiverOption
}

// WithObjectStore names a JetStream object store bucket (created
// beforehand, e.g. with jetstream.CreateObjectStore) for attachments too
// large for a NATS message. A sender (NewTransport and NewPublisher; a
// Subscription for its replies) puts large parts into it; a reader
// (Subscribe, NewReceiver; a Transport for replies) fetches them. On a
// sender, every
// part of an MTOM or SwA package larger than threshold bytes (0:
// DefaultObjectThreshold; a part of unknown size too) is put into the
// bucket under a fresh name, and the package carries in its place a part
// with the same Content-ID and headers and the Content-Type
//
//	message/external-body; access-type=x-nats-object; bucket="B"; name="N"; size=S
//
// whose body is the part's own header (Content-Type: the part's type). A
// send that fails deletes the objects it put. On a reader (Subscribe,
// NewReceiver), such parts naming bucket are fetched back as the message's
// parts (streamed from the bucket as they are read, bounded by the
// reader's Limits: MaxPartBytes each, MaxPackageBytes with the payload);
// the reader deletes them once the message is settled: after a
// Subscription's reply (or fault) is sent, when a Receiver's delivery is
// Acked. A Transport reads a reply's objects into the reply before
// RoundTrip returns (its parts held as any package's: in memory up to
// Limits.SpoolThreshold, in a spool file beyond it) and deletes them
// then. A delivery dead-lettered keeps its objects (the dead letter
// names them): a Receiver given the bucket that reads the dead-letter
// stream deletes them on its Ack; give the bucket a TTL
// (ObjectStoreConfig.TTL) to clear what no one consumed. A failed delete
// is logged (Warn) and fails nothing. A part naming
// a bucket the reader was not given (each WithObjectStore adds one) is
// refused with a Sender fault, as is one naming an object that is not
// there. The threshold is ignored on readers.
func WithObjectStore(bucket string, threshold int64) ObjectStoreOption {
	return objectStoreOption{bucket: bucket, threshold: threshold}
}

type objectStoreOption struct {
	bucket    string
	threshold int64
}

func (o objectStoreOption) applySubscribe(c *subscribeConfig) {
	c.objects = c.objects.reading(o.bucket).writing(o.bucket, o.threshold)
}
func (o objectStoreOption) applyReceiver(c *receiverConfig) { c.objects = c.objects.reading(o.bucket) }
func (o objectStoreOption) applyTransport(c *transportConfig) {
	c.objects = c.objects.reading(o.bucket).writing(o.bucket, o.threshold)
}
func (o objectStoreOption) applyPublisher(c *publisherConfig) {
	c.objects = c.objects.writing(o.bucket, o.threshold)
}

// objectConfig is what WithObjectStore options said.
type objectConfig struct {
	put       string // the bucket a sender puts parts into; "" none
	threshold int64
	read      map[string]bool // the buckets a reader fetches from
}

func (c objectConfig) reading(bucket string) objectConfig {
	c.read = maps.Clone(c.read)
	if c.read == nil {
		c.read = map[string]bool{}
	}
	c.read[bucket] = true
	return c
}

func (c objectConfig) writing(bucket string, threshold int64) objectConfig {
	if threshold <= 0 {
		threshold = DefaultObjectThreshold
	}
	c.put, c.threshold = bucket, threshold
	return c
}

// objects reaches the buckets of an objectConfig on a connection.
type objects struct {
	cfg    objectConfig
	nc     *nats.Conn
	mu     sync.Mutex
	js     jetstream.JetStream
	stores map[string]jetstream.ObjectStore
}

func newObjects(nc *nats.Conn, cfg objectConfig) *objects {
	if cfg.put == "" && len(cfg.read) == 0 {
		return nil
	}
	return &objects{cfg: cfg, nc: nc, stores: map[string]jetstream.ObjectStore{}}
}

func (s *objects) store(ctx context.Context, bucket string) (jetstream.ObjectStore, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st, ok := s.stores[bucket]; ok {
		return st, nil
	}
	if s.js == nil {
		js, err := jetstream.New(s.nc)
		if err != nil {
			return nil, fmt.Errorf("nats: jetstream: %w", err)
		}
		s.js = js
	}
	st, err := s.js.ObjectStore(ctx, bucket)
	if err != nil {
		return nil, fmt.Errorf("nats: object store %q: %w", bucket, err)
	}
	s.stores[bucket] = st
	return st, nil
}

// object is one object put or fetched.
type object struct {
	st   jetstream.ObjectStore
	name string
	// of an object fetched: its size (checked against the limits) and the
	// Content-Type of the part it stands for
	size int64
	typ  string
}

// deleteObjects deletes objs (best effort: a failure is logged by the
// caller through the error returned).
func deleteObjects(ctx context.Context, objs []object) error {
	var errs []error
	for _, o := range objs {
		if err := o.st.Delete(context.WithoutCancel(ctx), o.name); err != nil && !errors.Is(err, jetstream.ErrObjectNotFound) {
			errs = append(errs, fmt.Errorf("nats: deleting object %q: %w", o.name, err))
		}
	}
	return errors.Join(errs...)
}

// offload puts the large parts of m (a package) into the sender's bucket
// and puts external-body parts in their place in m.Attachments. restore
// puts m's parts back; the objects put are returned, for deletion when the
// send fails.
func (s *objects) offload(ctx context.Context, m *core.Message) (restore func(), put []object, err error) {
	restore = func() {}
	if s == nil || s.cfg.put == "" || m.Packaging == core.Inline || len(m.Attachments) == 0 {
		return restore, nil, nil
	}
	orig := m.Attachments
	var parts []*core.Attachment
	for i, a := range orig {
		if a == nil || (a.Size() >= 0 && a.Size() <= s.cfg.threshold) {
			continue
		}
		if parts == nil {
			parts = append([]*core.Attachment(nil), orig...)
		}
		ext, obj, err := s.putPart(ctx, a)
		if err != nil {
			_ = deleteObjects(ctx, put)
			return restore, nil, err
		}
		put = append(put, obj)
		parts[i] = ext
	}
	if parts == nil {
		return restore, nil, nil
	}
	m.Attachments = parts
	return func() { m.Attachments = orig }, put, nil
}

func (s *objects) putPart(ctx context.Context, a *core.Attachment) (*core.Attachment, object, error) {
	st, err := s.store(ctx, s.cfg.put)
	if err != nil {
		return nil, object{}, err
	}
	var b [16]byte
	_, _ = rand.Read(b[:])
	name := "soapwire-" + hex.EncodeToString(b[:])
	rc, err := a.Open()
	if err != nil {
		return nil, object{}, fmt.Errorf("nats: attachment %s: %w", a.ID, err)
	}
	defer rc.Close()
	typ := a.Type
	if typ == "" {
		typ = "application/octet-stream"
	}
	info, err := st.Put(ctx, jetstream.ObjectMeta{Name: name, Headers: nats.Header{"Content-Type": []string{typ}}}, rc)
	if err != nil {
		return nil, object{}, fmt.Errorf("nats: putting attachment %s into object store %q: %w", a.ID, s.cfg.put, err)
	}
	ct := mime.FormatMediaType(MediaTypeExternalBody, map[string]string{
		"access-type": AccessTypeNATSObject, "bucket": s.cfg.put, "name": name, "size": strconv.FormatUint(info.Size, 10)})
	ext := core.BytesAttachment(ct, []byte("Content-Type: "+typ+"\r\n\r\n"))
	ext.ID = a.ID
	if a.Header != nil {
		ext.Header = maps.Clone(a.Header)
	}
	return ext, object{st: st, name: name}, nil
}

// fetch replaces the external-body parts of m (read) by the objects they
// name, opened from their bucket as they are read; it returns the objects,
// to delete once m is settled. A part naming a bucket s does not read, an
// object that is not there or one over lim is a Sender fault.
func (s *objects) fetch(ctx context.Context, m *core.Message, payload int, lim core.Limits) ([]object, *core.Fault) {
	if m == nil || m.Packaging == core.Inline {
		return nil, nil
	}
	partMax, pkgMax := partLimits(lim)
	total := int64(payload)
	var objs []object
	for i, a := range m.Attachments {
		params, ok := objectRef(a.Type)
		if !ok {
			continue
		}
		bucket, name := params["bucket"], params["name"]
		if s == nil || !s.cfg.read[bucket] {
			return nil, senderFault(m, nil, "part %s names object store bucket %q, which this reader is not configured to read", a.ID, bucket)
		}
		st, err := s.store(ctx, bucket)
		if err != nil {
			return nil, &core.Fault{Code: core.CodeReceiver, Version: m.Version(), Reason: "the object store is not available", Cause: err}
		}
		info, err := st.GetInfo(ctx, name)
		if err != nil {
			if errors.Is(err, jetstream.ErrObjectNotFound) || errors.Is(err, jetstream.ErrInvalidStoreName) || errors.Is(err, jetstream.ErrBadObjectMeta) || errors.Is(err, jetstream.ErrNameRequired) {
				return nil, senderFault(m, err, "part %s names object %q, which bucket %q does not hold", a.ID, name, bucket)
			}
			return nil, &core.Fault{Code: core.CodeReceiver, Version: m.Version(), Reason: "the object store is not available", Cause: err}
		}
		size := int64(info.Size)
		total += size
		if partMax > 0 && size > partMax || pkgMax > 0 && total > pkgMax {
			return nil, senderFault(m, core.ErrTooLarge, "part %s (object %q, %d bytes) is over the reader's limits (%d bytes a part, %d a package)", a.ID, name, size, partMax, pkgMax)
		}
		typ := externalType(a)
		if typ == "" && info.Headers != nil {
			typ = info.Headers.Get("Content-Type")
		}
		part := core.NewAttachment(typ, func() (io.ReadCloser, error) {
			// nats.go bounds a Get whose context has no deadline by its
			// default timeout (5 s) for the whole download, however slowly
			// the handler reads: give it the part's own budget instead.
			octx, cancel := context.WithTimeout(context.WithoutCancel(ctx), objectReadBudget(size))
			r, err := st.Get(octx, name)
			if err != nil {
				cancel()
				return nil, fmt.Errorf("nats: object %q in %q: %w", name, bucket, err)
			}
			return &exactReader{r: r, left: size, cancel: cancel}, nil
		}, size)
		part.ID = a.ID
		part.Header = a.Header
		m.Attachments[i] = part
		objs = append(objs, object{st: st, name: name, size: size, typ: typ})
	}
	return objs, nil
}

// objectRef reports whether a part of Content-Type ct stands for an object
// (message/external-body; access-type=x-nats-object), with ct's parameters.
func objectRef(ct string) (map[string]string, bool) {
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil || !strings.EqualFold(mt, MediaTypeExternalBody) || !strings.EqualFold(params["access-type"], AccessTypeNATSObject) {
		return nil, false
	}
	return params, true
}

// externalType is the Content-Type an external-body part's body (the
// external part's header) names, "" if none.
func externalType(a *core.Attachment) string {
	rc, err := a.Open()
	if err != nil {
		return ""
	}
	defer rc.Close()
	h, err := textproto.NewReader(bufio.NewReader(io.LimitReader(rc, 8<<10))).ReadMIMEHeader()
	if err != nil && len(h) == 0 {
		return ""
	}
	return h.Get("Content-Type")
}

// exactReader reads an object, failing when it holds more than the size
// its info gave (which the limits were checked against).
type exactReader struct {
	r      io.ReadCloser
	left   int64
	cancel context.CancelFunc // the download's budget, released on Close; nil if none
}

func (e *exactReader) Read(p []byte) (int, error) {
	if int64(len(p)) > e.left+1 {
		p = p[:e.left+1]
	}
	n, err := e.r.Read(p)
	if int64(n) > e.left {
		return int(e.left), fmt.Errorf("nats: object larger than announced: %w", core.ErrTooLarge)
	}
	e.left -= int64(n)
	return n, err
}

func (e *exactReader) Close() error {
	err := e.r.Close()
	if e.cancel != nil {
		e.cancel()
	}
	return err
}

// objectReadBudget is how long a handler may take to read an object part
// of size bytes once it opened it: a minute, and a second more for each
// MiB (a 1 GiB part: about 18 minutes). Past it the read fails with
// nats.go's ErrTimeout.
func objectReadBudget(size int64) time.Duration {
	return time.Minute + time.Duration(size>>20)*time.Second
}

func senderFault(m *core.Message, cause error, format string, args ...any) *core.Fault {
	return &core.Fault{Code: core.CodeSender, Version: m.Version(), Reason: fmt.Sprintf(format, args...), Cause: cause}
}

// partLimits are lim's MaxPartBytes and MaxPackageBytes as core resolves
// them (0: none).
func partLimits(lim core.Limits) (part, pkg int64) {
	d := core.DefaultLimits()
	if lim == (core.Limits{}) {
		lim = d
	}
	mb := pickLimit(lim.MaxBytes, d.MaxBytes)
	part = pickLimit(lim.MaxPartBytes, mb)
	if mb > 0 {
		pkg = pickLimit(lim.MaxPackageBytes, 4*mb)
	} else {
		pkg = pickLimit(lim.MaxPackageBytes, 0)
	}
	return part, pkg
}

func pickLimit(v, def int64) int64 {
	switch {
	case v == 0:
		return def
	case v < 0:
		return 0
	}
	return v
}
