//go:build !race

package xmltok_test

const raceEnabled = false
