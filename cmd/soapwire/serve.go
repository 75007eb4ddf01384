package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"
)

const serveSynopsis = `Usage: soapwire serve --config FILE [flags]

Runs the bindings a configuration file describes, each routing what it
receives to a handler, until SIGINT or SIGTERM; then it stops taking new
messages, lets those in progress finish (replies sent, deliveries settled),
and exits 0.

  http   a listener (net/http through bindings/http), optional Basic auth
  smtp   an SMTP server writing accepted mail into a Maildir, and the
         Maildir's receiver (without "listen": a Maildir an MTA delivers into)
  ftp    a drop endpoint polled on an embedded FTP server or a remote one
  nats   a subject served in a queue group, or a JetStream durable consumer

Handlers:
  echo     answers each message with its own body, to its ReplyTo
  forward  sends each message on, as it is (ID, ReplyTo, headers, body), to
           the handler's "to" address through the outbox

Replies and faults go to the addresses peers give (ReplyTo, FaultTo) through
the outbox, after a policy check (default: the outbox's schemes). Passwords
are named by environment variable ("password_env"), never written in the file.

The file is JSON; docs/cli.md describes every field. A minimal one:

  {
    "handler": {"type": "echo"},
    "http": {"listen": "127.0.0.1:8080", "path": "/soap"}
  }

Once every binding is up, serve prints one "ready" line per binding on
stdout (with the addresses actually bound, useful with port 0), then
"soapwire serve: ready". Logs go to stderr.

Examples:
  soapwire serve --config soapwire.json
  soapwire serve --check --config soapwire.json     # check the file and exit
`

func runServe(ctx context.Context, c *cli, args []string) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	path := fs.String("config", "", "the configuration file (JSON, required)")
	check := fs.Bool("check", false, "check the configuration file and exit")
	level := fs.String("log-level", "info", "debug, info, warn or error")
	format := fs.String("log-format", "text", "text or json")
	pos, code, done := c.parseFlags(fs, serveSynopsis, args)
	if done {
		return code
	}
	if len(pos) > 0 {
		return c.usageError("serve", fmt.Errorf("unexpected argument %q", pos[0]))
	}
	if *path == "" {
		return c.usageError("serve", errors.New("--config is required"))
	}
	log, err := serveLogger(c.stderr, *level, *format)
	if err != nil {
		return c.usageError("serve", err)
	}
	cfg, err := loadConfig(*path)
	if err != nil {
		fmt.Fprintf(c.stderr, "soapwire serve: invalid configuration: %s\n", strings.ReplaceAll(err.Error(), "\n", "\n  "))
		return exitUsage
	}
	if *check {
		fmt.Fprintf(c.stdout, "%s: ok\n", *path)
		return exitOK
	}
	if err := newServer(cfg, log, c.stdout).run(ctx); err != nil {
		return c.fail("serve", err)
	}
	return exitOK
}

// serveLogger logs to w.
func serveLogger(w io.Writer, level, format string) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("--log-level %q: want debug, info, warn or error", level)
	}
	o := &slog.HandlerOptions{Level: l}
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(w, o)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, o)), nil
	}
	return nil, fmt.Errorf("--log-format %q: want text or json", format)
}
