// Package xmltok is the core's tokenizer seam: a strict, namespace-aware pull
// tokenizer with limits. Everything in core reads XML through Reader, so the
// implementation behind it can be replaced (today it drives encoding/xml's
// RawToken and adds the checks encoding/xml leaves out: unbound prefixes,
// duplicate attributes, tag matching, DOCTYPE and processing instructions,
// content after the root, and the limits).
//
// A Token and the slices it holds are valid until the next call to Next.
package xmltok
