package core

// EscapesTable is the writer's table of bytes to look at, for the test that
// recomputes it.
const EscapesTable = escapes

// Plain8 is the writer's test of 8 bytes at once (b holds at least 8).
func Plain8(b []byte) bool { return plain8(b, 0) && plain8(string(b), 0) }
