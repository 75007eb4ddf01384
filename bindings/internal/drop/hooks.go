package drop

import "time"

// Views of the engine's name and file rules, for the bindings' tests and
// fuzzers (this package is internal: they are not API).

// ParseClaim reads a work-folder name.
func ParseClaim(s string) (at time.Time, owner, name string, ok bool) {
	c, ok := parseClaim(s)
	return c.at, c.owner, c.name, ok
}

// FormatClaim writes a work-folder name.
func FormatClaim(at time.Time, owner, name string) string {
	return claim{at: at, owner: owner, name: name}.String()
}

// Classify says what a Poller does with a listed name: "accept", "ignore"
// or "skip", and why it skips.
func Classify(name string) (string, string) {
	k, reason := classify(name)
	return [...]string{"accept", "ignore", "skip"}[k], reason
}

// EndsWithEnvelope is the Poller's test of a whole file: its last bytes
// are an Envelope end tag.
func EndsWithEnvelope(b []byte) bool { return endsWithEnvelope(b) }
