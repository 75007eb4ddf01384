//go:build !race

package core_test

// streamInputBytes is the size of the document TestStreamFlatMemory pushes
// through (see race_on_test.go for the smaller size under -race).
const streamInputBytes = 256 << 20

const raceEnabled = false
