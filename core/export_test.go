package core

// EscapesTable is the writer's table of bytes to look at, for the test that
// recomputes it.
const EscapesTable = escapes
