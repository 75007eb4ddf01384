package ftp

import (
	"time"

	"github.com/soapwire/soapwire/bindings/internal/drop"
)

// Hooks for the black-box tests (package ftp_test) into the engine's
// parsers and the server's.

// ParseClaim reads a work-folder name.
func ParseClaim(s string) (at time.Time, owner, name string, ok bool) { return drop.ParseClaim(s) }

// FormatClaim writes a work-folder name.
func FormatClaim(at time.Time, owner, name string) string { return drop.FormatClaim(at, owner, name) }

// Classify says what the Poller does with a listed name: "accept",
// "ignore" or "skip", and why it skips.
func Classify(name string) (string, string) { return drop.Classify(name) }

// ListPath is the path the embedded server lists for a LIST or NLST
// parameter.
func ListPath(param string) string { return listPath(param) }

// EndsWithEnvelope is the Poller's test of a whole file: its last bytes
// are an Envelope end tag.
func EndsWithEnvelope(b []byte) bool { return drop.EndsWithEnvelope(b) }
