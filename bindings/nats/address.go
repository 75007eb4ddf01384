package nats

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Scheme is the address scheme of the binding: "nats:subject".
const Scheme = "nats"

// Address is a NATS destination as soapwire writes it in To, ReplyTo and
// FaultTo:
//
//	nats:orders.create                  core NATS: request-reply or publish
//	nats:orders.placed?stream=ORDERS    JetStream: publish to stream ORDERS
//
// The subject is everything between "nats:" and an optional "?"; the one
// query parameter is stream, the JetStream stream that captures the subject
// (publishing then waits for the stream's acknowledgement and the server
// checks that the subject belongs to that stream). The connection decides
// the server, so an address names no host: "nats://host/…" is refused.
// A Receiver's address may be a pattern (orders.*, orders.>); a destination
// may not.
type Address struct {
	Subject string
	Stream  string // "" for core NATS
}

// ParseAddress parses a "nats:" address (see Address). A bare subject, with
// no scheme, is accepted too.
func ParseAddress(addr string) (Address, error) {
	s := addr
	if i := strings.IndexByte(s, ':'); i >= 0 {
		if !strings.EqualFold(s[:i], Scheme) {
			return Address{}, fmt.Errorf("%w %q: the scheme is not nats", ErrAddress, addr)
		}
		s = s[i+1:]
	}
	if strings.HasPrefix(s, "//") {
		return Address{}, fmt.Errorf("%w %q: write nats:subject (the connection names the server, the address only the subject)", ErrAddress, addr)
	}
	var a Address
	subject, query, hasQuery := strings.Cut(s, "?")
	a.Subject = subject
	if err := checkSubject(subject, true); err != nil {
		return Address{}, fmt.Errorf("%w %q: %v", ErrAddress, addr, err)
	}
	if hasQuery {
		for _, kv := range strings.Split(query, "&") {
			k, v, _ := strings.Cut(kv, "=")
			switch {
			case k == "stream" && a.Stream == "":
				if err := checkStreamName(v); err != nil {
					return Address{}, fmt.Errorf("%w %q: %v", ErrAddress, addr, err)
				}
				a.Stream = v
			case k == "stream":
				return Address{}, fmt.Errorf("%w %q: stream given twice", ErrAddress, addr)
			default:
				return Address{}, fmt.Errorf("%w %q: unknown parameter %q (only stream=NAME)", ErrAddress, addr, k)
			}
		}
	}
	return a, nil
}

// String returns the address in its "nats:" form.
func (a Address) String() string {
	if a.Stream != "" {
		return Scheme + ":" + a.Subject + "?stream=" + a.Stream
	}
	return Scheme + ":" + a.Subject
}

// Pattern reports whether the subject has a wildcard (* or >): it can be
// received from, not sent to.
func (a Address) Pattern() bool {
	for _, tok := range strings.Split(a.Subject, ".") {
		if tok == "*" || tok == ">" {
			return true
		}
	}
	return false
}

// destination parses addr as an address messages can be sent to.
func destination(addr string) (Address, error) {
	a, err := ParseAddress(addr)
	if err != nil {
		return Address{}, err
	}
	if a.Pattern() {
		return Address{}, fmt.Errorf("%w %q: a wildcard subject cannot be sent to", ErrAddress, addr)
	}
	return a, nil
}

// isNATS reports whether addr has the nats: scheme.
func isNATS(addr string) bool {
	return len(addr) > len(Scheme) && addr[len(Scheme)] == ':' && strings.EqualFold(addr[:len(Scheme)], Scheme)
}

// checkSubject checks a NATS subject: dot-separated non-empty tokens of
// printable characters without spaces; * as a whole token and > as the last
// one when patterns are allowed.
func checkSubject(s string, patterns bool) error {
	if s == "" {
		return fmt.Errorf("empty subject")
	}
	if len(s) > 4096 {
		return fmt.Errorf("subject longer than 4096 bytes")
	}
	if !utf8.ValidString(s) {
		return fmt.Errorf("subject is not UTF-8")
	}
	toks := strings.Split(s, ".")
	for i, tok := range toks {
		switch {
		case tok == "":
			return fmt.Errorf("subject %q has an empty token", s)
		case tok == ">" && i != len(toks)-1:
			return fmt.Errorf("subject %q: > must be the last token", s)
		case (tok == "*" || tok == ">") && !patterns:
			return fmt.Errorf("subject %q has a wildcard", s)
		case tok == "*" || tok == ">":
			continue
		}
		for _, r := range tok {
			if unicode.IsSpace(r) || !unicode.IsPrint(r) {
				return fmt.Errorf("subject %q has a space or a control character", s)
			}
			if r == '*' || r == '>' {
				return fmt.Errorf("subject %q has a wildcard inside a token", s)
			}
		}
	}
	return nil
}

// checkStreamName checks a JetStream stream or consumer name.
func checkStreamName(s string) error {
	if s == "" {
		return fmt.Errorf("empty stream name")
	}
	if len(s) > 255 {
		return fmt.Errorf("stream name longer than 255 bytes")
	}
	for _, r := range s {
		if unicode.IsSpace(r) || !unicode.IsPrint(r) || strings.ContainsRune(".*>/\\", r) || r == utf8.RuneError {
			return fmt.Errorf("name %q has a character streams may not (space, . * > / \\ or a control character)", s)
		}
	}
	return nil
}
