package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// Exit codes.
const (
	exitOK      = 0 // success
	exitFailure = 1 // a fault, a refused envelope, a transport or I/O error
	exitUsage   = 2 // a bad flag or argument, an invalid configuration file
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// cli is what a subcommand runs with: its streams.
type cli struct {
	stdin          io.Reader
	stdout, stderr io.Writer
}

// command is one subcommand.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, c *cli, args []string) int
}

func commands() []command {
	return []command{
		{"send", "send a document (or an envelope as is) to a mailto:, ftp://, nats: or http(s):// address", runSend},
		{"call", "call an operation as its WSDL says (or code-first) and print the reply or the fault", runCall},
		{"serve", "run bindings from a configuration file until SIGINT or SIGTERM", runServe},
		{"inspect", "read an envelope and report what it holds, or the fault it would raise", runInspect},
		{"wsdl", "read a WSDL contract and print its services, ports, operations and types", runWSDL},
		{"gen", "generate a Go package (types, codecs, clients, servers) from a WSDL contract", runGen},
		{"version", "print the version", runVersion},
	}
}

// run is the whole program: main calls it with the process's arguments
// (without the program name), streams and a context cancelled by SIGINT and
// SIGTERM, and exits with what it returns.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := &cli{stdin: stdin, stdout: stdout, stderr: stderr}
	if len(args) == 0 {
		topUsage(stderr)
		return exitUsage
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		if len(args) > 1 && args[0] == "help" {
			return run(ctx, []string{args[1], "--help"}, stdin, stdout, stderr)
		}
		topUsage(stdout)
		return exitOK
	case "-version", "--version":
		return runVersion(ctx, c, nil)
	}
	for _, cmd := range commands() {
		if cmd.name == args[0] {
			return cmd.run(ctx, c, args[1:])
		}
	}
	fmt.Fprintf(stderr, "soapwire: unknown command %q\n\n", args[0])
	topUsage(stderr)
	return exitUsage
}

func topUsage(w io.Writer) {
	fmt.Fprint(w, `soapwire sends SOAP documents and makes SOAP calls over HTTP, SMTP, FTP and NATS,
serves bindings from a configuration file, and inspects envelopes.

Usage:
  soapwire <command> [flags] [arguments]

Commands:
`)
	for _, cmd := range commands() {
		fmt.Fprintf(w, "  %-8s %s\n", cmd.name, cmd.summary)
	}
	fmt.Fprint(w, `
Run 'soapwire <command> --help' for a command's flags.
Exit codes: 0 success, 1 failure (a fault, a refused envelope, a transport error),
2 usage (a bad flag or argument, an invalid configuration file).
`)
}

// parseFlags parses args with fs, allowing flags after positional
// arguments ("send doc.xml --to …"); "--" ends the flags. On --help it
// prints the usage to stdout and returns done with exitOK; on a bad flag it
// prints the error to stderr and returns done with exitUsage.
func (c *cli) parseFlags(fs *flag.FlagSet, synopsis string, args []string) (pos []string, code int, done bool) {
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				c.usage(c.stdout, fs, synopsis)
				return nil, exitOK, true
			}
			return nil, c.usageError(fs.Name(), err), true
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, 0, false
		}
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			return append(pos, rest...), 0, false
		}
		pos, args = append(pos, rest[0]), rest[1:]
	}
}

// usage prints a subcommand's synopsis and flags.
func (c *cli) usage(w io.Writer, fs *flag.FlagSet, synopsis string) {
	fmt.Fprint(w, synopsis)
	fmt.Fprintln(w, "\nFlags:")
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
}

// usageError reports a usage error of a subcommand and returns exitUsage.
func (c *cli) usageError(name string, err error) int {
	fmt.Fprintf(c.stderr, "soapwire %s: %v\nRun 'soapwire %s --help' for usage.\n", name, err, name)
	return exitUsage
}

// fail reports a failure of a subcommand and returns exitFailure.
func (c *cli) fail(name string, err error) int {
	fmt.Fprintf(c.stderr, "soapwire %s: %v\n", name, err)
	return exitFailure
}
