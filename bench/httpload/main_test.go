package main

import (
	"bytes"
	"log"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMain lets the test binary be its own server children, as the program
// is: run re-executes it with HTTPLOAD_SERVE set.
func TestMain(m *testing.M) {
	if kind := os.Getenv(serveEnv); kind != "" {
		if err := serve(kind); err != nil {
			log.Fatal(err)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestRun runs a tiny load (no timing is checked): every server answers
// the 1 KiB request, and the report has a row for each.
func TestRun(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(&out, allKinds, 2, 100*time.Millisecond, 50*time.Millisecond, 4, ""))
	report := out.String()
	for _, row := range []string{"| soapwire |", "| soapwire-value |", "| soapwire-stream |", "| soapwire-gen |", "| soapwire-rpc |", "| net-http |"} {
		assert.Contains(t, report, row)
	}
	assert.Equal(t, 12, strings.Count(report, "\nround "), "2 rounds of 6 servers:\n%s", report)
}

// TestRunVs runs the soapwire servers of another build beside this one's
// (this test binary stands for both): rows for them, and their ratios to
// this build's.
func TestRunVs(t *testing.T) {
	var out bytes.Buffer
	kinds, err := chooseKinds("soapwire,soapwire-gen")
	require.NoError(t, err)
	require.NoError(t, run(&out, kinds, 2, 100*time.Millisecond, 50*time.Millisecond, 4, os.Args[0]))
	report := out.String()
	for _, row := range []string{"| soapwire@vs |", "| soapwire-gen@vs |"} {
		assert.Contains(t, report, row)
	}
	assert.Equal(t, 10, strings.Count(report, "\nround "), "2 rounds of 5 servers:\n%s", report)
	assert.Contains(t, report, "| the other build (-vs) against this one |")
}

// TestChooseKinds: -servers names servers in any order; they run in a
// fixed order with the baseline last; an unknown name is refused.
func TestChooseKinds(t *testing.T) {
	kinds, err := chooseKinds("soapwire-rpc, soapwire-gen")
	require.NoError(t, err)
	assert.Equal(t, []string{"soapwire-gen", "soapwire-rpc", "net-http"}, kinds)
	kinds, err = chooseKinds("")
	require.NoError(t, err)
	assert.Equal(t, []string{"net-http"}, kinds)
	_, err = chooseKinds("soapwire,gsoap")
	assert.ErrorContains(t, err, `unknown server "gsoap"`)
}

func TestRequestIs1KiB(t *testing.T) {
	assert.Len(t, request(), 1024)
	assert.Len(t, fixedReply(), 1024)
}
