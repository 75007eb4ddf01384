package soapenc

import (
	"errors"

	"github.com/soapwire/soapwire/core/internal/xmlesc"
)

var errBadChar = errors.New("string holds invalid UTF-8 or a character XML cannot carry")

// appendEscaped appends s as element text (attr false) or as a double-quoted
// attribute value (attr true), escaped as the core's writer escapes them:
// carriage returns, and in attributes tabs and newlines, become character
// references so the value reads back unchanged. Invalid UTF-8 and
// characters XML cannot carry (most C0 controls, U+FFFE) are an error
// rather than silently replaced.
func appendEscaped(b []byte, s string, attr bool) ([]byte, error) {
	if !xmlesc.Valid(s) {
		return b, errBadChar
	}
	if attr {
		return xmlesc.Append(b, s, xmlesc.Attr), nil
	}
	return xmlesc.Append(b, s, xmlesc.Text), nil
}
