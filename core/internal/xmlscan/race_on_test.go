//go:build race

package xmlscan_test

const raceEnabled = true
