// Package xmltok is the core's XML tokenizer: a strict, namespace-aware,
// streaming pull tokenizer written for soapwire, with the standard library
// only.
//
// A Reader reads a document from an io.Reader through a bounded buffer and
// returns one Token per call to Next. Names, attribute values and text are
// slices of that buffer (entity and character references decoded in place),
// valid until the next call: copy what you keep. Text and CDATA sections are
// streamed: a text node larger than the buffer comes as several CharData
// tokens in a row, so a body larger than memory passes through; a start tag,
// an end tag, a comment or the XML declaration must fit in
// Limits.MaxTokenBytes.
//
// It is strict: anything that is not well-formed XML 1.0 and well-formed
// under Namespaces in XML 1.0 is an error, and so are a document type
// declaration, a processing instruction (the XML declaration aside), content
// after the root element, an encoding other than UTF-8 (or US-ASCII) and
// UTF-16 with a byte order mark, and anything over the Limits. Errors are
// *SyntaxError values and sticky.
//
// Readers are recycled: Release hands one back, with its buffers, for the
// next NewReader. The matching writer is the core's (core/write.go).
package xmltok
