package core

import "github.com/soapwire/soapwire/core/internal/xmltok"

// Limits bound what ReadEnvelope and ReadPackage accept. A zero field takes
// its default (see DefaultLimits); a negative field means no limit. Raise
// MaxBytes to pass large documents: the body is streamed, so memory does not
// grow with it.
//
// The Part and Package fields bound a MIME package (MTOM, SwA: see
// ReadPackage); MaxBytes still bounds its root part, the envelope.
type Limits struct {
	MaxBytes       int64 // the whole envelope, in bytes (default 16 MiB)
	MaxHeaderBytes int64 // the Header element and its blocks, and a Fault (default 64 KiB)
	MaxDepth       int   // element nesting, Envelope included (default 128)
	MaxAttrs       int   // attributes per element, namespace declarations excluded (default 64)
	MaxNSDecls     int   // namespace declarations per element (default 32)
	MaxNameLen     int   // bytes in a prefix or local name (default 256)

	MaxParts           int   // parts in a package, the root included (default 100)
	MaxPartBytes       int64 // one part, decoded (default: MaxBytes, 16 MiB)
	MaxPackageBytes    int64 // the whole package as read (default: 4 × MaxBytes, 64 MiB)
	MaxPartHeaderBytes int   // one part's header block, or the package's preamble (default 8 KiB)
	// SpoolThreshold: a part larger than this goes to a temporary file in
	// SpoolDir instead of memory (default 1 MiB; negative: parts stay in
	// memory whatever their size, within MaxPartBytes).
	SpoolThreshold int64
	SpoolDir       string // where parts are spooled; "" is os.TempDir()
}

// DefaultLimits returns the limits a zero Limits stands for. MaxPartBytes
// and MaxPackageBytes follow MaxBytes when they are zero: a Limits that
// raises MaxBytes alone raises them with it.
func DefaultLimits() Limits {
	return Limits{
		MaxBytes:           16 << 20,
		MaxHeaderBytes:     64 << 10,
		MaxDepth:           128,
		MaxAttrs:           64,
		MaxNSDecls:         32,
		MaxNameLen:         256,
		MaxParts:           100,
		MaxPartBytes:       16 << 20,
		MaxPackageBytes:    64 << 20,
		MaxPartHeaderBytes: 8 << 10,
		SpoolThreshold:     1 << 20,
	}
}

// Unlimited returns Limits with every bound switched off. Use it only for
// input you trust. Parts are still spooled beyond the default
// SpoolThreshold: it bounds memory, not what is accepted.
func Unlimited() Limits {
	return Limits{MaxBytes: -1, MaxHeaderBytes: -1, MaxDepth: -1, MaxAttrs: -1, MaxNSDecls: -1, MaxNameLen: -1,
		MaxParts: -1, MaxPartBytes: -1, MaxPackageBytes: -1, MaxPartHeaderBytes: -1}
}

// resolved fills zero fields with defaults and turns negative ones into 0
// (no limit), the tokenizer's convention. A resolved SpoolThreshold of 0
// means parts are never spooled.
func (l Limits) resolved() Limits {
	d := DefaultLimits()
	if l == (Limits{}) {
		return d
	}
	r := Limits{
		MaxBytes:           pick(l.MaxBytes, d.MaxBytes),
		MaxHeaderBytes:     pick(l.MaxHeaderBytes, d.MaxHeaderBytes),
		MaxDepth:           pick(l.MaxDepth, d.MaxDepth),
		MaxAttrs:           pick(l.MaxAttrs, d.MaxAttrs),
		MaxNSDecls:         pick(l.MaxNSDecls, d.MaxNSDecls),
		MaxNameLen:         pick(l.MaxNameLen, d.MaxNameLen),
		MaxParts:           pick(l.MaxParts, d.MaxParts),
		MaxPartHeaderBytes: pick(l.MaxPartHeaderBytes, d.MaxPartHeaderBytes),
		SpoolThreshold:     pick(l.SpoolThreshold, d.SpoolThreshold),
		SpoolDir:           l.SpoolDir,
	}
	// the part and package bounds follow MaxBytes (none when it is off)
	r.MaxPartBytes = pick(l.MaxPartBytes, r.MaxBytes)
	pkg := int64(0)
	if r.MaxBytes > 0 {
		pkg = 4 * r.MaxBytes
	}
	r.MaxPackageBytes = pick(l.MaxPackageBytes, pkg)
	return r
}

// pick is a limit's value: its default for 0, none (0) for a negative one.
func pick[T int | int64](v, def T) T {
	switch {
	case v == 0:
		return def
	case v < 0:
		return 0
	}
	return v
}

// minTokenBytes is the least bound on a single tag or comment (see
// tokenizer).
const minTokenBytes = 1 << 20

// tokenizer returns the tokenizer's limits for resolved limits. The
// tokenizer holds one tag or comment at a time in memory (text is streamed):
// that is bounded by MaxHeaderBytes, the bound on what core holds, but never
// below 1 MiB; with MaxHeaderBytes off, it is not bounded either.
func (l Limits) tokenizer() xmltok.Limits {
	tok := 0
	if l.MaxHeaderBytes > 0 {
		tok = int(max(l.MaxHeaderBytes, minTokenBytes))
	}
	return xmltok.Limits{MaxBytes: l.MaxBytes, MaxDepth: l.MaxDepth, MaxAttrs: l.MaxAttrs, MaxNSDecls: l.MaxNSDecls, MaxNameLen: l.MaxNameLen, MaxTokenBytes: tok}
}
