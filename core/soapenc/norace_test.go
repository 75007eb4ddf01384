//go:build !race

package soapenc_test

const raceEnabled = false
