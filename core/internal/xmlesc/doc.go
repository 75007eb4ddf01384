// Package xmlesc is the module's one XML escaper: text and attribute values
// as the core's writer writes them (and core/soapenc, which first refuses
// what Valid refuses), and text as encoding/xml's EscapeText (and so
// xml.Marshal) writes it, for the value fast path (core/internal/xmlvalue)
// to write what xml.Marshal writes byte for byte.
//
// Whatever the mode, a character XML 1.0 cannot carry (a C0 control other
// than tab, line feed and carriage return, invalid UTF-8, U+FFFE, U+FFFF)
// becomes U+FFFD, so the output is always well-formed.
package xmlesc
