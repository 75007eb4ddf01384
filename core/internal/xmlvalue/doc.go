// Package xmlvalue is the value fast path behind core's Body.Decode and
// ValueBody: it reads Go values from the tokenizer's tokens (Decode) and
// writes them into a byte slice (Append) as encoding/xml would, without
// it, for the common shapes of Go values (structs with element, attribute
// and text fields, namespaces in tags, nested structs, slices, pointers,
// the basic types, []byte, xml.Name). For any other value it reports that
// it does not do it, before reading or writing anything, and the core uses
// encoding/xml for the whole value.
//
// What it does must be what encoding/xml does, byte for byte and error for
// error: FuzzDecode checks Decode against xml.Unmarshal, FuzzEncode checks
// Append against xml.Marshal. It is a separate package because it is
// craft, kept only while the end-to-end benchmark it serves says it is
// worth it (docs/benchmarks.md, "Issue 18").
//
// A plan per Go type says how; a Cache keeps plans from one call to the
// next (the core keeps one with each recycled tokenizer and writer).
package xmlvalue
