package drop

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Suffix ends the name of every message file: the Sender writes
// <name>.xml and the Poller takes only names that end in it.
const Suffix = ".xml"

// FaultSuffix ends the name of the fault file a Nack writes beside a
// message in the failed folder: order.xml gets order.fault.xml.
const FaultSuffix = ".fault.xml"

// MaxNameLen bounds the length in bytes of a file name the Poller takes, so
// that the claim prefix it adds in the work folder still fits the 255 bytes
// most file systems allow.
const MaxNameLen = 200

// maxStem bounds the part of FileName taken from the message id.
const maxStem = 120

// FileName returns the name of the file a message with the given id is
// stored in: the id made safe as a single path element on any server, then
// Suffix. Letters, digits, '-', '_' and single inner dots are kept; a
// "urn:uuid:" prefix is dropped (urn:uuid:4f…-…  becomes 4f…-….xml). Any
// other character becomes '_', and an id that had to be changed or
// shortened (or is empty) gets a hash of itself appended, so different ids
// do not meet in one name. The result always passes CheckName.
func FileName(id string) string {
	s := id
	if len(s) > len("urn:uuid:") && strings.EqualFold(s[:len("urn:uuid:")], "urn:uuid:") {
		s = s[len("urn:uuid:"):]
	}
	var b strings.Builder
	b.Grow(min(len(s), maxStem) + 16)
	changed := s == ""
	for i := 0; i < len(s); i++ {
		if b.Len() >= maxStem {
			changed = true
			break
		}
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '_':
			b.WriteByte(c)
		case c == '.' && b.Len() > 0 && s[i-1] != '.' && i+1 < len(s):
			b.WriteByte(c)
		default:
			b.WriteByte('_')
			changed = true
		}
	}
	stem := b.String()
	if stem != "" && stem[0] == '-' { // never an option-like name
		stem = "_" + stem[1:]
		changed = true
	}
	if changed {
		sum := sha256.Sum256([]byte(id))
		if stem != "" {
			stem += "-"
		}
		stem += hex.EncodeToString(sum[:6])
	}
	return stem + Suffix
}

// faultName returns the name of the fault file beside a failed message.
func faultName(name string) string {
	return strings.TrimSuffix(name, Suffix) + FaultSuffix
}

// tempName returns a fresh temporary name for an upload that will be
// renamed to name. It starts with a dot, so the Poller ignores it (and many
// servers hide it from listings).
func tempName(name string) string {
	var r [4]byte
	rand.Read(r[:])
	return "." + name + "." + hex.EncodeToString(r[:]) + tempSuffix
}

const tempSuffix = ".part"

// isTemp reports whether name is one of the temporary names tempName
// writes: .<name>.<8 hex digits>.part. Only those are removed when stale.
func isTemp(name string) bool {
	if !strings.HasPrefix(name, ".") || !strings.HasSuffix(name, tempSuffix) {
		return false
	}
	s := strings.TrimSuffix(name[1:], tempSuffix)
	i := strings.LastIndexByte(s, '.')
	if i < 1 || len(s)-i-1 != 8 {
		return false
	}
	for _, c := range []byte(s[i+1:]) {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// Escape returns name as it is logged: printable characters as they are,
// anything else (control and format characters such as a right-to-left
// override, invalid UTF-8) escaped as Go escapes it in a quoted string
// (\u202e, \x1b, \xff), so a log line shows what the name holds and a
// name cannot rewrite the line it is in.
func Escape(name string) string {
	q := strconv.Quote(name)
	return q[1 : len(q)-1]
}

// Nameable is the default rule for names the engine may send back to a
// server in a command (to move an unwanted file to the quarantine folder):
// valid UTF-8, no control or format character, no path separator, not
// "." or "..". Names it refuses are never used in a command: they are left
// where they are and logged once.
func Nameable(name string) bool {
	if name == "" || name == "." || name == ".." || !utf8.ValidString(name) || strings.ContainsAny(name, `/\`) {
		return false
	}
	for _, r := range name {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == utf8.RuneError || r == '\u2028' || r == '\u2029' {
			return false
		}
	}
	return true
}

// nameKind is what the Poller makes of a name it finds in the inbox.
type nameKind uint8

const (
	nameAccept nameKind = iota // a message file: claim it
	nameIgnore                 // a temporary or hidden file: pass over it silently
	nameSkip                   // unsafe or unexpected: pass over it and log why, once
)

// CheckName reports whether name is safe to use as a single path element in
// a command to any server, and why not: an error wrapping ErrUnsafeName says which
// rule it breaks. A safe name is valid UTF-8 of 1 to MaxNameLen bytes with
// no control character, no '/' or '\\', no "..", and does not start with
// '.', '-' or a space, nor end with a space. The Poller never sends a
// command naming a file that fails this check.
func CheckName(name string) error {
	if reason := unsafeReason(name); reason != "" {
		return fmt.Errorf("%w: %q: %s", ErrUnsafeName, name, reason)
	}
	return nil
}

func unsafeReason(name string) string {
	switch {
	case name == "":
		return "empty name"
	case name == "." || name == "..":
		return "a directory reference"
	case len(name) > MaxNameLen:
		return "longer than " + strconv.Itoa(MaxNameLen) + " bytes"
	case !utf8.ValidString(name):
		return "not valid UTF-8"
	case strings.ContainsAny(name, `/\`):
		return "contains a path separator"
	case strings.Contains(name, ".."):
		return `contains ".."`
	}
	for _, r := range name {
		if unicode.IsControl(r) || r == utf8.RuneError || r == '\u2028' || r == '\u2029' {
			return "contains a control character"
		}
		if unicode.Is(unicode.Cf, r) {
			return "contains a format character (such as a text direction override)"
		}
	}
	switch name[0] {
	case '.':
		return "starts with a dot (hidden or temporary)"
	case '-':
		return "starts with '-'"
	case ' ':
		return "starts with a space"
	}
	if name[len(name)-1] == ' ' {
		return "ends with a space"
	}
	return ""
}

// classify says what the Poller does with a name listed in its inbox, and
// why when it skips it.
func classify(name string) (nameKind, string) {
	if strings.HasPrefix(name, ".") && !strings.ContainsAny(name, "/\\") {
		return nameIgnore, "" // temporary, hidden, or the folder itself and its parent
	}
	if reason := unsafeReason(name); reason != "" {
		return nameSkip, reason
	}
	if !strings.HasSuffix(name, Suffix) || len(name) == len(Suffix) {
		return nameSkip, "does not end in " + Suffix
	}
	return nameAccept, ""
}

// A claim is the name a message file takes in the work folder while a
// Poller holds it: <unix milliseconds>.<owner>.<original name>. The time is
// when the lease was last taken or renewed; the owner is the Poller's
// random id.
type claim struct {
	at    time.Time
	owner string
	name  string
}

const ownerLen = 8 // hex digits of a Poller's id

func newOwner() string {
	var r [ownerLen / 2]byte
	rand.Read(r[:])
	return hex.EncodeToString(r[:])
}

func (c claim) String() string {
	return strconv.FormatInt(c.at.UnixMilli(), 10) + "." + c.owner + "." + c.name
}

// parseClaim reads a name found in the work folder. It accepts only what
// claim.String writes for a name classify accepts.
func parseClaim(s string) (claim, bool) {
	ms, rest, ok := strings.Cut(s, ".")
	if !ok || ms == "" || len(ms) > 15 {
		return claim{}, false
	}
	for i := 0; i < len(ms); i++ {
		if ms[i] < '0' || ms[i] > '9' {
			return claim{}, false
		}
	}
	if len(ms) > 1 && ms[0] == '0' {
		return claim{}, false
	}
	owner, name, ok := strings.Cut(rest, ".")
	if !ok || len(owner) != ownerLen {
		return claim{}, false
	}
	for i := 0; i < len(owner); i++ {
		c := owner[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return claim{}, false
		}
	}
	if k, _ := classify(name); k != nameAccept {
		return claim{}, false
	}
	n, err := strconv.ParseInt(ms, 10, 64)
	if err != nil {
		return claim{}, false
	}
	return claim{at: time.UnixMilli(n), owner: owner, name: name}, true
}
