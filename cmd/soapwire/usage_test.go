package main_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestUsage: --help for the program and every command (exit 0, on
// stdout); usage errors exit 2 with the error and a hint on stderr.
func TestUsage(t *testing.T) {
	for _, tc := range []struct {
		args           []string
		code           int
		stdout, stderr string
	}{
		{args: nil, code: 2, stderr: "Usage:\n  soapwire <command> [flags] [arguments]"},
		{args: []string{"--help"}, stdout: "Commands:\n  send "},
		{args: []string{"-h"}, stdout: "Exit codes: 0 success, 1 failure"},
		{args: []string{"help", "call"}, stdout: "Usage: soapwire call [flags] URL OPERATION"},
		{args: []string{"send", "--help"}, stdout: "Usage: soapwire send --to ADDRESS [flags] [FILE|-]"},
		{args: []string{"call", "-h"}, stdout: "Usage: soapwire call [flags] URL OPERATION [name=value…]"},
		{args: []string{"serve", "--help"}, stdout: "Usage: soapwire serve --config FILE [flags]"},
		{args: []string{"inspect", "--help"}, stdout: "Usage: soapwire inspect [flags] [FILE|-]"},
		{args: []string{"version", "--help"}, stdout: "Usage: soapwire version"},
		{args: []string{"frobnicate"}, code: 2, stderr: `soapwire: unknown command "frobnicate"`},
		{args: []string{"version", "extra"}, code: 2, stderr: "soapwire version: unexpected argument \"extra\"\nRun 'soapwire version --help' for usage."},
		{args: []string{"serve"}, code: 2, stderr: "soapwire serve: --config is required"},
		{args: []string{"serve", "--config", "x.json", "extra"}, code: 2, stderr: `unexpected argument "extra"`},
		{args: []string{"serve", "--config", "x.json", "--log-level", "loud"}, code: 2, stderr: `--log-level "loud"`},
		{args: []string{"inspect", "--nope"}, code: 2, stderr: "soapwire inspect: flag provided but not defined: -nope"},
		{args: []string{"send", "--timeout", "soon"}, code: 2, stderr: `invalid value "soon" for flag -timeout`},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			res := soapwire(t, tc.args...)
			require.Equal(t, tc.code, res.code, "%s", res)
			assert.Contains(t, res.stdout, tc.stdout)
			assert.Contains(t, res.stderr, tc.stderr)
			if tc.code == 0 {
				assert.Empty(t, res.stderr)
			} else {
				assert.Empty(t, res.stdout)
			}
		})
	}
}

// TestHelpListsFlags: each command's --help lists its flags.
func TestHelpListsFlags(t *testing.T) {
	for cmd, flags := range map[string][]string{
		"send":    {"-to", "-action", "-version", "-reply-to", "-smtp", "-from", "-ftp-user", "-nats", "-progress", "SOAPWIRE_SMTP_PASSWORD"},
		"call":    {"-ns", "-style", "-version", "-action", "-wsdl", "-port", "-args", "-show-request", "-lenient", "-xml", "-json", "-nats"},
		"serve":   {"-config", "-check", "-log-level", "-log-format"},
		"inspect": {"-json", "-process", "-role", "-understand"},
	} {
		res := soapwire(t, cmd, "--help")
		require.Equal(t, 0, res.code, "%s", res)
		for _, f := range flags {
			assert.Contains(t, res.stdout, f, cmd)
		}
	}
}

// TestVersion prints the version and the Go release.
func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		res := soapwire(t, args...)
		require.Equal(t, 0, res.code, "%s", res)
		assert.Regexp(t, `^soapwire \S+( rev [0-9a-f]+(\+dirty)?)? go1\.\d+`, res.stdout)
	}
}
