package xsd

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"

	"github.com/soapwire/soapwire/core/internal/xmldoc"
)

// Limits bound a load. A zero field takes its default.
type Limits struct {
	MaxBytes         int64 // all the documents together (default 64 MiB)
	MaxDocumentBytes int64 // one document (default 32 MiB)
	MaxDocuments     int   // documents loaded (default 500)
	MaxDepth         int   // element nesting in a document (default 256)
	MaxImportDepth   int   // imports and includes in a chain from the first document (default 64)
}

func (l Limits) withDefaults() Limits {
	if l.MaxBytes <= 0 {
		l.MaxBytes = 64 << 20
	}
	if l.MaxDocumentBytes <= 0 {
		l.MaxDocumentBytes = 32 << 20
	}
	if l.MaxDocuments <= 0 {
		l.MaxDocuments = 500
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = 256
	}
	if l.MaxImportDepth <= 0 {
		l.MaxImportDepth = 64
	}
	return l
}

// Option configures a load.
type Option func(*options)

type options struct {
	limits  Limits
	catalog *Catalog
}

// WithLimits sets the load's limits.
func WithLimits(l Limits) Option { return func(o *options) { o.limits = l } }

// WithCatalog sets the catalog of local copies of documents by URL (the
// default is StandardCatalog(); nil means none).
func WithCatalog(c *Catalog) Option { return func(o *options) { o.catalog = c } }

// Reader loads schema documents, and the WSDL documents core/wsdl reads
// through it, within one set of limits, and builds the Set of every schema
// loaded. Most callers use Load (or wsdl.Load); a Reader is for a reader of
// documents that hold schemas.
type Reader struct {
	ctx     context.Context
	loader  Loader
	catalog *Catalog
	lim     Limits

	docs    map[string]*Document // by key: the location, or the catalog's document
	order   []string             // the locations loaded, in order
	total   int64
	schemas []*Schema
	added   map[string]bool // schema documents added: key + "\x00" + chameleon namespace
	nsSeen  map[string]bool // namespaces some schema has as its target
	wanted  map[string]Loc  // namespaces imported without a location or referred to
	blt     *builtinSet

	warnings []Problem
	repeats  map[string]int // warning text (with its document) -> index in warnings
	counts   []int          // how many times each warning was given
	errs     []Problem
	fatal    error // a document that could not be loaded

	// every component made, for the resolver
	elements   []*Element
	attributes []*Attribute
	uses       []*AttributeUse
	simples    []*SimpleType
	complexes  []*ComplexType
	particles  []*Particle
	attrGroups []*AttributeGroup
	groups     []*Group
}

// NewReader returns a Reader that opens documents with loader.
func NewReader(ctx context.Context, loader Loader, opts ...Option) *Reader {
	o := options{catalog: StandardCatalog()}
	for _, opt := range opts {
		opt(&o)
	}
	return &Reader{
		ctx:     ctx,
		loader:  loader,
		catalog: o.catalog,
		lim:     o.limits.withDefaults(),
		docs:    map[string]*Document{},
		added:   map[string]bool{},
		nsSeen:  map[string]bool{},
		wanted:  map[string]Loc{},
		blt:     newBuiltins(),
	}
}

// Document is a document a Reader loaded.
type Document struct {
	Location string       // as first asked for (a catalog document has the URL)
	Root     *xmldoc.Node // its root element
	key      string
}

// Document loads the document at location once and returns it; new is
// false when it was loaded before (under this location or, for a catalog
// document, another URL of it). depth is the number of imports that led to
// it. Errors (the loader's, a malformed document, a limit) say which
// document, and are fatal to the load.
func (r *Reader) Document(location string, depth int) (d *Document, new bool, err error) {
	key := location
	fromCatalog := false
	if IsURL(location) {
		if k, ok := r.catalog.lookup(location); ok {
			key, fromCatalog = k, true
		}
	}
	if d, ok := r.docs[key]; ok {
		return d, false, nil
	}
	if depth > r.lim.MaxImportDepth {
		return nil, false, fmt.Errorf("%s: imports nest deeper than %d documents: %w", location, r.lim.MaxImportDepth, ErrLimit)
	}
	if len(r.docs) >= r.lim.MaxDocuments {
		return nil, false, fmt.Errorf("%s: more than %d documents: %w", location, r.lim.MaxDocuments, ErrLimit)
	}
	if err := r.ctx.Err(); err != nil {
		return nil, false, err
	}
	var rc io.ReadCloser
	if fromCatalog {
		rc, err = r.catalog.open(location)
	} else {
		rc, err = r.loader.Open(r.ctx, location)
	}
	if err != nil {
		return nil, false, err
	}
	max := min(r.lim.MaxDocumentBytes, r.lim.MaxBytes-r.total)
	b, err := io.ReadAll(io.LimitReader(rc, max+1))
	rc.Close()
	if err != nil {
		return nil, false, fmt.Errorf("reading %s: %w", location, err)
	}
	if int64(len(b)) > max {
		if max < r.lim.MaxDocumentBytes {
			return nil, false, fmt.Errorf("%s: the documents together are larger than %d bytes: %w", location, r.lim.MaxBytes, ErrTooLarge)
		}
		return nil, false, fmt.Errorf("%s: larger than %d bytes: %w", location, r.lim.MaxDocumentBytes, ErrTooLarge)
	}
	r.total += int64(len(b))
	root, err := xmldoc.Parse(b, xmldoc.Limits{MaxBytes: r.lim.MaxDocumentBytes, MaxDepth: r.lim.MaxDepth})
	if err != nil {
		var pe *xmldoc.Error
		if errors.As(err, &pe) {
			return nil, false, fmt.Errorf("%s:%d: %s%w", location, pe.Line, pe.Msg, wrapped(pe.Err))
		}
		return nil, false, fmt.Errorf("%s: %w", location, err)
	}
	d = &Document{Location: location, Root: root, key: key}
	r.docs[key] = d
	r.order = append(r.order, location)
	return d, true, nil
}

// wrapped keeps a sentinel in an error's chain without adding to its text.
func wrapped(err error) error {
	if err == nil {
		return nil
	}
	return quiet{err}
}

type quiet struct{ err error }

func (q quiet) Error() string { return "" }
func (q quiet) Unwrap() error { return q.err }

// Documents returns the locations of the documents loaded, in order.
func (r *Reader) Documents() []string { return r.order }

// Warn records a warning: something the reader ignores or does not
// support, reported on the result. The same warning given again in one
// document is counted, not repeated.
func (r *Reader) Warn(loc Loc, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	key := loc.File + "\x00" + msg
	if i, ok := r.repeats[key]; ok {
		r.counts[i]++
		return
	}
	if r.repeats == nil {
		r.repeats = map[string]int{}
	}
	r.repeats[key] = len(r.warnings)
	r.warnings = append(r.warnings, Problem{Loc: loc, Msg: msg})
	r.counts = append(r.counts, 1)
}

// Fail records an error: the load will fail, with every error found.
func (r *Reader) Fail(loc Loc, format string, args ...any) {
	if len(r.errs) < maxErrors {
		r.errs = append(r.errs, Problem{Loc: loc, Msg: fmt.Sprintf(format, args...)})
	}
}

// Fatal records a document that could not be loaded (err says which and
// why): the load fails with the first such error.
func (r *Reader) Fatal(from Loc, err error) {
	if r.fatal == nil {
		if from == (Loc{}) {
			r.fatal = err
		} else {
			r.fatal = fmt.Errorf("%w (named at %s)", err, from)
		}
	}
}

// Failed reports whether an error was recorded.
func (r *Reader) Failed() bool { return len(r.errs) > 0 || r.fatal != nil }

// Err returns the first document that could not be loaded, else the
// recorded errors as an *Error, else nil.
func (r *Reader) Err() error {
	if r.fatal != nil {
		return r.fatal
	}
	if len(r.errs) == 0 {
		return nil
	}
	return &Error{Problems: r.errs}
}

// Warnings returns the warnings recorded so far, each at its first place,
// with how many times it was given in that document if more than once.
func (r *Reader) Warnings() []Problem {
	out := make([]Problem, len(r.warnings))
	for i, w := range r.warnings {
		if r.counts[i] > 1 {
			w.Msg += fmt.Sprintf(" (%d times in this document)", r.counts[i])
		}
		out[i] = w
	}
	return out
}

// Want notes that a namespace is needed (imported without a location, or
// referred to): if no schema loaded has it as its target, Set looks for it
// in the catalog.
func (r *Reader) Want(namespace string, loc Loc) {
	if _, ok := r.wanted[namespace]; !ok {
		r.wanted[namespace] = loc
	}
}

func (r *Reader) wantName(n xml.Name, loc Loc) {
	if n.Space != "" && !isXSDNamespace(n.Space) {
		r.Want(n.Space, loc)
	}
}
