//go:build race

package core_test

// streamInputBytes is the size of the document TestStreamFlatMemory pushes
// through. The race detector makes every memory access several times slower,
// so under -race the test uses 32 MB instead of 256 MB: still eight times
// the 4 MB sampling interval and larger than the heap bound it checks.
const streamInputBytes = 32 << 20

const raceEnabled = true
