package ftp

import "github.com/soapwire/soapwire/bindings/internal/drop"

// Suffix ends the name of every message file: the Sender writes
// <name>.xml and the Poller takes only names that end in it.
const Suffix = drop.Suffix

// FaultSuffix ends the name of the fault file a Nack writes beside a
// message in the failed folder: order.xml gets order.fault.xml.
const FaultSuffix = drop.FaultSuffix

// MaxNameLen bounds the length in bytes of a file name the Poller takes, so
// that the claim prefix it adds in the work folder still fits the 255 bytes
// most file systems allow.
const MaxNameLen = drop.MaxNameLen

// FileName returns the name of the file a message with the given id is
// stored in: the id made safe as a single path element on any server, then
// Suffix. Letters, digits, '-', '_' and single inner dots are kept; a
// "urn:uuid:" prefix is dropped (urn:uuid:4f…-…  becomes 4f…-….xml). Any
// other character becomes '_', and an id that had to be changed or
// shortened (or is empty) gets a hash of itself appended, so different ids
// do not meet in one name. The result always passes CheckName.
func FileName(id string) string { return drop.FileName(id) }

// CheckName reports whether name is safe to use as a single path element in
// an FTP command, and why not: an error wrapping ErrUnsafeName says which
// rule it breaks. A safe name is valid UTF-8 of 1 to MaxNameLen bytes with
// no control or format character, no '/' or '\\', no "..", and does not
// start with '.', '-' or a space, nor end with a space. The Poller never
// sends a command naming a file that fails this check.
func CheckName(name string) error { return drop.CheckName(name) }
