package document

import (
	"errors"
	"net/mail"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"
)

// mailDomain returns the lower-cased domain of a mailto URI that names one
// plain address, and refuses anything a mailer could expand into further
// recipients or headers.
func mailDomain(u *url.URL) (string, error) {
	if u.Host != "" || u.User != nil {
		return "", errors.New("mailto has no authority")
	}
	if u.RawQuery != "" || u.ForceQuery {
		return "", errors.New("mailto header fields (?cc=, ?bcc=, …) are not allowed")
	}
	if u.Fragment != "" || u.RawFragment != "" {
		return "", errors.New("mailto has no fragment")
	}
	raw := u.Opaque
	if raw == "" {
		raw = u.Path
	}
	addr, err := url.PathUnescape(raw)
	if err != nil {
		return "", errors.New("mailto address is badly escaped")
	}
	if strings.ContainsAny(addr, ",;") {
		return "", errors.New("mailto names more than one recipient")
	}
	a, err := mail.ParseAddress(addr)
	if err != nil {
		return "", errors.New("mailto address is not an address")
	}
	if a.Name != "" || a.Address != addr {
		return "", errors.New("mailto must be a bare address")
	}
	at := strings.LastIndexByte(a.Address, '@')
	if at < 0 || at == len(a.Address)-1 {
		return "", errors.New("mailto address has no domain")
	}
	return normalHost(a.Address[at+1:]), nil
}

// natsSubject returns the subject of "nats:subject" or
// "nats://host/subject", refusing wildcards and the "$" system subjects.
// The one query parameter allowed is stream=NAME (the NATS binding's
// JetStream address, "nats:subject?stream=NAME"), given once, with a valid
// stream name; the Subjects of a Policy govern the subject either way.
func natsSubject(u *url.URL) (string, error) {
	s := u.Opaque
	if s == "" {
		s = strings.TrimPrefix(u.Path, "/")
	}
	if u.Fragment != "" || u.RawFragment != "" {
		return "", errors.New("a NATS address has no fragment")
	}
	if u.RawQuery != "" || u.ForceQuery {
		if err := natsQuery(u.RawQuery); err != nil {
			return "", err
		}
	}
	if s == "" || len(s) > 256 {
		return "", errors.New("NATS subject is empty or too long")
	}
	if s[0] == '$' {
		return "", errors.New(`NATS subjects starting with "$" are system subjects`)
	}
	for _, tok := range strings.Split(s, ".") {
		if tok == "" {
			return "", errors.New("NATS subject has an empty token")
		}
		if tok == "*" || tok == ">" || strings.ContainsAny(tok, "*>") {
			return "", errors.New("NATS subject has a wildcard")
		}
		for _, r := range tok {
			if r <= ' ' || r == 0x7f {
				return "", errors.New("NATS subject has a space or control character")
			}
		}
	}
	return s, nil
}

// natsQuery checks the query of a NATS address: exactly "stream=NAME",
// NAME a JetStream stream name as written (no escapes decoded), which may
// not hold a space, ".", "*", ">", "/", "\\", a control character, or
// "%", "&", "=", "?", "#" (so it reads the same escaped or not).
func natsQuery(q string) error {
	name, ok := strings.CutPrefix(q, "stream=")
	if !ok {
		return errors.New("the only parameter of a NATS address is stream=NAME")
	}
	if name == "" || len(name) > 255 {
		return errors.New("the stream name of a NATS address is empty or too long")
	}
	if !utf8.ValidString(name) {
		return errors.New("the stream name of a NATS address is not UTF-8")
	}
	for _, r := range name {
		if r <= ' ' || r == 0x7f || unicode.IsSpace(r) || !unicode.IsPrint(r) || strings.ContainsRune(".*>/\\%&=?#", r) {
			return errors.New("the stream name of a NATS address has a space, a control character or one of . * > / \\ % & = ? #")
		}
	}
	return nil
}

// subjectAllowed matches subject against NATS patterns ("*" is one token,
// a final ">" one or more).
func subjectAllowed(patterns []string, subject string) bool {
	toks := strings.Split(subject, ".")
	for _, p := range patterns {
		if subjectMatch(strings.Split(p, "."), toks) {
			return true
		}
	}
	return false
}

func subjectMatch(pat, toks []string) bool {
	for i, p := range pat {
		if p == ">" {
			return i == len(pat)-1 && len(toks) > i
		}
		if i >= len(toks) || (p != "*" && p != toks[i]) {
			return false
		}
	}
	return len(pat) == len(toks)
}
