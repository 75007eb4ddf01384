package core

import "github.com/soapwire/soapwire/core/internal/xmltok"

// Limits bound what ReadEnvelope accepts. A zero field takes its default (see
// DefaultLimits); a negative field means no limit. Raise MaxBytes to pass
// large documents: the body is streamed, so memory does not grow with it.
type Limits struct {
	MaxBytes       int64 // the whole envelope, in bytes (default 16 MiB)
	MaxHeaderBytes int64 // the Header element and its blocks, and a Fault (default 64 KiB)
	MaxDepth       int   // element nesting, Envelope included (default 128)
	MaxAttrs       int   // attributes per element, namespace declarations excluded (default 64)
	MaxNSDecls     int   // namespace declarations per element (default 32)
	MaxNameLen     int   // bytes in a prefix or local name (default 256)
}

// DefaultLimits returns the limits a zero Limits stands for.
func DefaultLimits() Limits {
	return Limits{
		MaxBytes:       16 << 20,
		MaxHeaderBytes: 64 << 10,
		MaxDepth:       128,
		MaxAttrs:       64,
		MaxNSDecls:     32,
		MaxNameLen:     256,
	}
}

// Unlimited returns Limits with every bound switched off. Use it only for
// input you trust.
func Unlimited() Limits {
	return Limits{MaxBytes: -1, MaxHeaderBytes: -1, MaxDepth: -1, MaxAttrs: -1, MaxNSDecls: -1, MaxNameLen: -1}
}

// resolved fills zero fields with defaults and turns negative ones into 0
// (no limit), the tokenizer's convention.
func (l Limits) resolved() Limits {
	d := DefaultLimits()
	if l == (Limits{}) {
		return d
	}
	return Limits{
		MaxBytes:       pick(l.MaxBytes, d.MaxBytes),
		MaxHeaderBytes: pick(l.MaxHeaderBytes, d.MaxHeaderBytes),
		MaxDepth:       pick(l.MaxDepth, d.MaxDepth),
		MaxAttrs:       pick(l.MaxAttrs, d.MaxAttrs),
		MaxNSDecls:     pick(l.MaxNSDecls, d.MaxNSDecls),
		MaxNameLen:     pick(l.MaxNameLen, d.MaxNameLen),
	}
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
