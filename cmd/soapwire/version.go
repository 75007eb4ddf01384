package main

import (
	"context"
	"flag"
	"fmt"
	"runtime"
	"runtime/debug"
)

const versionSynopsis = `Usage: soapwire version

Prints soapwire's version (the module version, or "(devel)" for a build from
a checkout, with its VCS revision when known) and the Go version it was built
with.
`

func runVersion(_ context.Context, c *cli, args []string) int {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	pos, code, done := c.parseFlags(fs, versionSynopsis, args)
	if done {
		return code
	}
	if len(pos) > 0 {
		return c.usageError("version", fmt.Errorf("unexpected argument %q", pos[0]))
	}
	fmt.Fprintln(c.stdout, versionString())
	return exitOK
}

// versionString describes the build: "soapwire (devel) rev 1a2b3c4d5e6f+dirty go1.26.0".
func versionString() string {
	v, rev := "(devel)", ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Version != "" {
			v = bi.Main.Version
		}
		dirty := false
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if rev != "" && dirty {
			rev += "+dirty"
		}
	}
	s := "soapwire " + v
	if rev != "" {
		s += " rev " + rev
	}
	return s + " " + runtime.Version()
}
