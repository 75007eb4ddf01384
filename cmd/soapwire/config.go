package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"

	soapfile "github.com/soapwire/soapwire/bindings/file"
	soapftp "github.com/soapwire/soapwire/bindings/ftp"
	soapimap "github.com/soapwire/soapwire/bindings/imap"
	soapnats "github.com/soapwire/soapwire/bindings/nats"
	soapsftp "github.com/soapwire/soapwire/bindings/sftp"
	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/document"
)

// maxConfigBytes bounds a configuration file.
const maxConfigBytes = 1 << 20

// config is serve's configuration file (JSON; see docs/cli.md).
type config struct {
	Handler  *handlerConfig `json:"handler,omitempty"` // the default handler of every binding
	HTTP     *httpConfig    `json:"http,omitempty"`
	SMTP     *smtpConfig    `json:"smtp,omitempty"`
	IMAP     *imapConfig    `json:"imap,omitempty"`
	FTP      *ftpConfig     `json:"ftp,omitempty"`
	SFTP     *sftpConfig    `json:"sftp,omitempty"`
	File     *fileConfig    `json:"file,omitempty"`
	NATS     *natsConfig    `json:"nats,omitempty"`
	Outbox   *outboxConfig  `json:"outbox,omitempty"`
	Policy   *policyConfig  `json:"policy,omitempty"`
	StoreDir string         `json:"store_dir,omitempty"` // conversation state on disk; default in memory
	Limits   *limitsConfig  `json:"limits,omitempty"`    // bounds of every envelope read; default core.DefaultLimits
}

// limitsConfig bounds the envelopes every binding reads (core.Limits); a
// field left out or 0 keeps core's default.
type limitsConfig struct {
	MaxBytes       int64 `json:"max_bytes,omitempty"`
	MaxHeaderBytes int64 `json:"max_header_bytes,omitempty"`
	MaxDepth       int   `json:"max_depth,omitempty"`
	MaxAttrs       int   `json:"max_attrs,omitempty"`
	MaxNSDecls     int   `json:"max_ns_decls,omitempty"`
	MaxNameLen     int   `json:"max_name_len,omitempty"`
}

// limits returns the configured core.Limits (the zero Limits, core's
// defaults, when none are configured).
func (c *config) limits() core.Limits {
	l := c.Limits
	if l == nil {
		return core.Limits{}
	}
	return core.Limits{MaxBytes: l.MaxBytes, MaxHeaderBytes: l.MaxHeaderBytes, MaxDepth: l.MaxDepth,
		MaxAttrs: l.MaxAttrs, MaxNSDecls: l.MaxNSDecls, MaxNameLen: l.MaxNameLen}
}

// handlerConfig picks what serves the messages a binding receives.
type handlerConfig struct {
	Type string `json:"type"`         // "echo" or "forward"
	To   string `json:"to,omitempty"` // forward: where to
}

// credentials name a user and the environment variable holding the password.
type credentials struct {
	User        string `json:"user"`
	PasswordEnv string `json:"password_env"`
}

type httpConfig struct {
	Listen    string         `json:"listen"`
	Path      string         `json:"path,omitempty"` // default "/"
	BasicAuth *credentials   `json:"basic_auth,omitempty"`
	Handler   *handlerConfig `json:"handler,omitempty"`
	// the request body's pace (budgets.go): soaphttp.WithBodyTimeout,
	// WithMinBodyRate, WithContentTypeOptional
	BodyTimeout         string `json:"body_timeout,omitempty"`  // a duration; default 20s
	MinBodyRate         int    `json:"min_body_rate,omitempty"` // bytes/s; default 500
	ContentTypeOptional bool   `json:"content_type_optional,omitempty"`
}

type smtpConfig struct {
	Listen      string         `json:"listen,omitempty"` // "" reads the Maildir only (an MTA delivers into it)
	Maildir     string         `json:"maildir"`
	Addresses   []string       `json:"addresses"`
	Hostname    string         `json:"hostname,omitempty"`
	Auth        *credentials   `json:"auth,omitempty"`
	Concurrency int            `json:"concurrency,omitempty"`
	Handler     *handlerConfig `json:"handler,omitempty"`
	// the embedded server's session budget (budgets.go)
	MaxSessions      int    `json:"max_sessions,omitempty"`        // default 100
	MaxSessionsPerIP int    `json:"max_sessions_per_ip,omitempty"` // default half of max_sessions; -1: no bound
	SessionTimeout   string `json:"session_timeout,omitempty"`     // a duration; default 10m
	IOTimeout        string `json:"io_timeout,omitempty"`          // a duration; default 2m
	MinDataRate      int    `json:"min_data_rate,omitempty"`       // bytes/s; default 500; -1: no pace rule
	MinDataRateGrace string `json:"min_data_rate_grace,omitempty"` // a duration; default 30s
}

// imapConfig is IMAP intake: a Receiver on a mailbox someone else runs.
type imapConfig struct {
	Address     string         `json:"address"`                // imaps://user@host/INBOX, or imap:// with STARTTLS
	User        string         `json:"user,omitempty"`         // default: the address's
	PasswordEnv string         `json:"password_env,omitempty"` // the variable holding the password
	TokenFile   string         `json:"token_file,omitempty"`   // or an OAuth 2.0 bearer token, read from this file at each login
	CAFile      string         `json:"ca_file,omitempty"`      // PEM certificates to verify the server with (default: the system's)
	Plaintext   bool           `json:"plaintext,omitempty"`    // imap:// without TLS when the server has no STARTTLS (loopback only)
	Addresses   []string       `json:"addresses,omitempty"`    // the service's own mail addresses (loop guard)
	Archive     bool           `json:"archive,omitempty"`      // Ack moves to the done folder instead of deleting
	Concurrency int            `json:"concurrency,omitempty"`
	Handler     *handlerConfig `json:"handler,omitempty"`
}

type ftpConfig struct {
	Server      *ftpServerConfig `json:"server,omitempty"` // an embedded FTP server
	Remote      *ftpRemoteConfig `json:"remote,omitempty"` // or a server that runs elsewhere
	Endpoint    string           `json:"endpoint"`         // the drop endpoint's folder on the server
	Concurrency int              `json:"concurrency,omitempty"`
	Handler     *handlerConfig   `json:"handler,omitempty"`
}

type ftpServerConfig struct {
	Listen string `json:"listen"`
	Root   string `json:"root"`
	credentials
}

type ftpRemoteConfig struct {
	Addr string `json:"addr"`
	TLS  bool   `json:"tls,omitempty"`
	credentials
}

// sftpConfig is a drop endpoint on an SFTP server: an embedded one, or
// one that runs elsewhere (OpenSSH), whose host key must be known.
type sftpConfig struct {
	Server      *sftpServerConfig `json:"server,omitempty"` // an embedded SFTP server
	Remote      *sftpRemoteConfig `json:"remote,omitempty"` // or a server that runs elsewhere
	Endpoint    string            `json:"endpoint"`         // the drop endpoint's folder on the server
	Concurrency int               `json:"concurrency,omitempty"`
	Handler     *handlerConfig    `json:"handler,omitempty"`
}

type sftpServerConfig struct {
	Listen string `json:"listen"`
	Root   string `json:"root"`
	credentials
}

type sftpRemoteConfig struct {
	Addr        string `json:"addr"`
	User        string `json:"user"`
	KeyFile     string `json:"key_file,omitempty"`     // a private key (OpenSSH format, no passphrase)
	PasswordEnv string `json:"password_env,omitempty"` // or the variable holding the password
	KnownHosts  string `json:"known_hosts,omitempty"`  // default ~/.ssh/known_hosts
}

// fileConfig is a drop endpoint in a local folder.
type fileConfig struct {
	Endpoint    string         `json:"endpoint"`       // the endpoint's folder, absolute
	Root        string         `json:"root,omitempty"` // where file:// replies may go (default: the endpoint's folder)
	Concurrency int            `json:"concurrency,omitempty"`
	Handler     *handlerConfig `json:"handler,omitempty"`
}

type natsConfig struct {
	URL         string         `json:"url,omitempty"`
	URLEnv      string         `json:"url_env,omitempty"` // the variable holding the URL (when it carries credentials)
	Subject     string         `json:"subject"`           // a subject, or "nats:subject?stream=NAME" with durable
	Queue       *string        `json:"queue,omitempty"`   // default "soapwire"; "" for none
	Durable     string         `json:"durable,omitempty"` // a JetStream durable consumer: durable delivery
	Concurrency int            `json:"concurrency,omitempty"`
	Handler     *handlerConfig `json:"handler,omitempty"`
	// request-reply's pending buffer (soapnats.WithPendingLimits)
	PendingMsgs  int `json:"pending_msgs,omitempty"`  // default 4096
	PendingBytes int `json:"pending_bytes,omitempty"` // default 8 MiB (or twice the max payload)
}

type outboxConfig struct {
	SMTP *smtpOutConfig    `json:"smtp,omitempty"`
	FTP  *ftpOutConfig     `json:"ftp,omitempty"`
	SFTP *sftpRemoteConfig `json:"sftp,omitempty"` // an SFTP account to drop on (sftp:// addresses there)
	File *fileOutConfig    `json:"file,omitempty"` // a local folder to drop in (file:// addresses below it)
	NATS *natsOutConfig    `json:"nats,omitempty"`
	HTTP *credentials      `json:"http,omitempty"` // Basic credentials sent with every HTTP request
}

// fileOutConfig is where file:// replies and forwards may be written.
type fileOutConfig struct {
	Root string `json:"root"` // absolute; nothing is written outside it
}

type smtpOutConfig struct {
	Server      string `json:"server"`
	From        string `json:"from"`
	StartTLS    bool   `json:"starttls,omitempty"`
	User        string `json:"user,omitempty"` // AUTH, when set
	PasswordEnv string `json:"password_env,omitempty"`
}

type ftpOutConfig struct {
	Addr string `json:"addr"`
	TLS  bool   `json:"tls,omitempty"`
	credentials
}

type natsOutConfig struct {
	URL    string `json:"url,omitempty"`
	URLEnv string `json:"url_env,omitempty"`
}

// policyConfig is core.ReplyPolicy's knobs: where a peer's ReplyTo and
// FaultTo may point.
type policyConfig struct {
	Schemes   []string `json:"schemes,omitempty"`
	Hosts     []string `json:"hosts,omitempty"`
	Private   bool     `json:"private,omitempty"`
	Subjects  []string `json:"subjects,omitempty"`
	Mailboxes []string `json:"mailboxes,omitempty"`
}

// loadConfig reads and checks a configuration file.
func loadConfig(path string) (*config, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxConfigBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxConfigBytes {
		return nil, fmt.Errorf("%s: larger than %d KiB", path, maxConfigBytes>>10)
	}
	cfg, err := parseConfig(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return cfg, nil
}

// parseConfig decodes a configuration (unknown fields are errors) and
// checks it.
func parseConfig(b []byte) (*config, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	var cfg config
	if err := d.Decode(&cfg); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line := 1 + bytes.Count(b[:min(int(se.Offset), len(b))], []byte("\n"))
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		return nil, err
	}
	if d.More() {
		return nil, errors.New("more than one JSON value")
	}
	if err := cfg.check(); err != nil {
		return nil, err
	}
	return &cfg, nil
}

// check returns every problem of the configuration, each naming its field.
func (c *config) check() error {
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", field, fmt.Sprintf(format, args...)))
	}
	if c.HTTP == nil && c.SMTP == nil && c.IMAP == nil && c.FTP == nil && c.SFTP == nil && c.File == nil && c.NATS == nil {
		bad("config", "no binding to serve: give http, smtp, imap, ftp, sftp, file or nats")
	}
	handler := func(field string, h *handlerConfig) {
		if h == nil {
			if c.Handler == nil {
				bad(field+".handler", "no handler (and no top-level handler)")
			}
			return // the top-level handler is checked on its own
		}
		switch h.Type {
		case "echo":
			if h.To != "" {
				bad(field+".handler.to", "an echo handler has no \"to\"")
			}
		case "forward":
			if _, err := document.Scheme(h.To); err != nil {
				bad(field+".handler.to", "%v", err)
			}
		default:
			bad(field+".handler.type", "%q: want \"echo\" or \"forward\"", h.Type)
		}
	}
	if c.Handler != nil {
		handler("config", c.Handler)
	}
	if l := c.Limits; l != nil {
		for _, f := range []struct {
			name string
			v    int64
		}{
			{"max_bytes", l.MaxBytes}, {"max_header_bytes", l.MaxHeaderBytes}, {"max_depth", int64(l.MaxDepth)},
			{"max_attrs", int64(l.MaxAttrs)}, {"max_ns_decls", int64(l.MaxNSDecls)}, {"max_name_len", int64(l.MaxNameLen)},
		} {
			if f.v < 0 {
				bad("limits."+f.name, "%d: must be positive (0 or left out: the default); a bound cannot be switched off here", f.v)
			}
		}
	}
	creds := func(field string, cr *credentials) {
		if cr == nil {
			return
		}
		if cr.User == "" {
			bad(field+".user", "required")
		}
		if cr.PasswordEnv == "" {
			bad(field+".password_env", "required: the environment variable that holds the password")
		} else if os.Getenv(cr.PasswordEnv) == "" {
			bad(field+".password_env", "$%s is not set", cr.PasswordEnv)
		}
	}
	hostPort := func(field, v string, required bool) {
		if v == "" {
			if required {
				bad(field, "required (host:port)")
			}
			return
		}
		if _, _, err := net.SplitHostPort(v); err != nil {
			bad(field, "%q: want host:port", v)
		}
	}
	sftpRemote := func(field string, r *sftpRemoteConfig) {
		hostPort(field+".addr", r.Addr, true)
		if r.User == "" {
			bad(field+".user", "required")
		}
		if r.KeyFile == "" && r.PasswordEnv == "" {
			bad(field, "give key_file or password_env")
		}
		if r.PasswordEnv != "" {
			creds(field, &credentials{User: r.User, PasswordEnv: r.PasswordEnv})
		}
	}
	if h := c.HTTP; h != nil {
		hostPort("http.listen", h.Listen, true)
		if h.Path != "" && !strings.HasPrefix(h.Path, "/") {
			bad("http.path", "%q: must start with /", h.Path)
		}
		creds("http.basic_auth", h.BasicAuth)
		h.checkBudget(bad)
		handler("http", h.Handler)
	}
	if s := c.SMTP; s != nil {
		hostPort("smtp.listen", s.Listen, false)
		if s.Maildir == "" {
			bad("smtp.maildir", "required")
		}
		if len(s.Addresses) == 0 {
			bad("smtp.addresses", "at least one address the server accepts mail for")
		}
		if s.Auth != nil && s.Listen == "" {
			bad("smtp.auth", "needs smtp.listen")
		}
		creds("smtp.auth", s.Auth)
		if s.Concurrency < 0 {
			bad("smtp.concurrency", "must not be negative")
		}
		s.checkBudget(bad)
		handler("smtp", s.Handler)
	}
	if m := c.IMAP; m != nil {
		if a, err := soapimap.ParseAddress(m.Address); err != nil {
			bad("imap.address", "%v", err)
		} else if a.User == "" && m.User == "" {
			bad("imap.user", "required when imap.address names no user")
		}
		switch {
		case m.PasswordEnv != "" && m.TokenFile != "":
			bad("imap", "give password_env or token_file, not both")
		case m.PasswordEnv != "":
			if os.Getenv(m.PasswordEnv) == "" {
				bad("imap.password_env", "$%s is not set", m.PasswordEnv)
			}
		case m.TokenFile != "":
			if _, err := os.Stat(m.TokenFile); err != nil {
				bad("imap.token_file", "%v", err)
			}
		default:
			bad("imap.password_env", "required (or token_file)")
		}
		if m.CAFile != "" {
			if _, err := os.Stat(m.CAFile); err != nil {
				bad("imap.ca_file", "%v", err)
			}
		}
		if m.Concurrency < 0 {
			bad("imap.concurrency", "must not be negative")
		}
		handler("imap", m.Handler)
	}
	if f := c.FTP; f != nil {
		switch {
		case f.Server == nil && f.Remote == nil:
			bad("ftp", "give server (an embedded FTP server) or remote")
		case f.Server != nil && f.Remote != nil:
			bad("ftp", "give server or remote, not both")
		case f.Server != nil:
			hostPort("ftp.server.listen", f.Server.Listen, true)
			if f.Server.Root == "" {
				bad("ftp.server.root", "required")
			}
			creds("ftp.server", &f.Server.credentials)
		default:
			hostPort("ftp.remote.addr", f.Remote.Addr, true)
			creds("ftp.remote", &f.Remote.credentials)
		}
		if f.Endpoint == "" || !strings.HasPrefix(f.Endpoint, "/") {
			bad("ftp.endpoint", "%q: the endpoint's folder, an absolute path such as /orders", f.Endpoint)
		}
		if f.Concurrency < 0 {
			bad("ftp.concurrency", "must not be negative")
		}
		handler("ftp", f.Handler)
	}
	if f := c.SFTP; f != nil {
		switch {
		case f.Server == nil && f.Remote == nil:
			bad("sftp", "give server (an embedded SFTP server) or remote")
		case f.Server != nil && f.Remote != nil:
			bad("sftp", "give server or remote, not both")
		case f.Server != nil:
			hostPort("sftp.server.listen", f.Server.Listen, true)
			if f.Server.Root == "" {
				bad("sftp.server.root", "required")
			}
			creds("sftp.server", &f.Server.credentials)
		default:
			sftpRemote("sftp.remote", f.Remote)
		}
		if f.Endpoint == "" || !strings.HasPrefix(f.Endpoint, "/") {
			bad("sftp.endpoint", "%q: the endpoint's folder, an absolute path such as /orders", f.Endpoint)
		}
		if f.Concurrency < 0 {
			bad("sftp.concurrency", "must not be negative")
		}
		handler("sftp", f.Handler)
	}
	if f := c.File; f != nil {
		if !filepath.IsAbs(f.Endpoint) {
			bad("file.endpoint", "%q: the endpoint's folder, an absolute path such as /srv/drops/orders", f.Endpoint)
		}
		if f.Root != "" && !filepath.IsAbs(f.Root) {
			bad("file.root", "%q: an absolute path", f.Root)
		}
		if f.Concurrency < 0 {
			bad("file.concurrency", "must not be negative")
		}
		handler("file", f.Handler)
	}
	if n := c.NATS; n != nil {
		natsURL("nats", n.URL, n.URLEnv, bad)
		if a, err := soapnats.ParseAddress(n.Subject); err != nil {
			bad("nats.subject", "%v", err)
		} else if a.Stream != "" && n.Durable == "" {
			bad("nats.durable", "required with a stream in nats.subject (JetStream delivery)")
		}
		if n.Durable != "" && n.Queue != nil {
			bad("nats.queue", "a durable consumer shares its messages already: no queue with durable")
		}
		if n.Concurrency < 0 {
			bad("nats.concurrency", "must not be negative")
		}
		n.checkBudget(bad)
		handler("nats", n.Handler)
	}
	if p := c.Policy; p != nil {
		p.check(bad)
	}
	if o := c.Outbox; o != nil {
		if s := o.SMTP; s != nil {
			hostPort("outbox.smtp.server", s.Server, true)
			if s.From == "" {
				bad("outbox.smtp.from", "required")
			}
			if s.User != "" || s.PasswordEnv != "" {
				creds("outbox.smtp", &credentials{User: s.User, PasswordEnv: s.PasswordEnv})
			}
		}
		if f := o.FTP; f != nil {
			hostPort("outbox.ftp.addr", f.Addr, true)
			creds("outbox.ftp", &f.credentials)
		}
		if f := o.SFTP; f != nil {
			sftpRemote("outbox.sftp", f)
		}
		if f := o.File; f != nil {
			switch {
			case !filepath.IsAbs(f.Root):
				bad("outbox.file.root", "%q: an absolute path", f.Root)
			case c.File != nil && c.File.Root != "":
				bad("outbox.file", "give file.root or outbox.file, not both")
			case c.File != nil && filepath.IsAbs(c.File.Endpoint) && !below(c.File.Endpoint, f.Root):
				bad("outbox.file.root", "%q: file.endpoint %q is not below it, so its replies could not be written", f.Root, c.File.Endpoint)
			}
		}
		if n := o.NATS; n != nil {
			natsURL("outbox.nats", n.URL, n.URLEnv, bad)
		}
		creds("outbox.http", o.HTTP)
	}
	// Where each handler forwards must be reachable.
	schemes := c.outboxSchemes()
	for _, fh := range []struct {
		field string
		h     *handlerConfig
	}{{"config", c.Handler}, {"http", c.ownHandler(c.HTTP)}, {"smtp", c.ownHandler(c.SMTP)},
		{"imap", c.ownHandler(c.IMAP)}, {"ftp", c.ownHandler(c.FTP)}, {"sftp", c.ownHandler(c.SFTP)},
		{"file", c.ownHandler(c.File)}, {"nats", c.ownHandler(c.NATS)}} {
		if fh.h == nil || fh.h.Type != "forward" {
			continue
		}
		if s, err := document.Scheme(fh.h.To); err == nil && !schemes[s] {
			bad(fh.field+".handler.to", "%q: nothing sends to %s: addresses (configure outbox.%s)", fh.h.To, s, outboxKey(s))
		}
	}
	return errors.Join(errs...)
}

// ownHandler returns the handler a binding's section gives, nil for none.
func (c *config) ownHandler(b any) *handlerConfig {
	switch b := b.(type) {
	case *httpConfig:
		if b != nil {
			return b.Handler
		}
	case *smtpConfig:
		if b != nil {
			return b.Handler
		}
	case *imapConfig:
		if b != nil {
			return b.Handler
		}
	case *ftpConfig:
		if b != nil {
			return b.Handler
		}
	case *sftpConfig:
		if b != nil {
			return b.Handler
		}
	case *fileConfig:
		if b != nil {
			return b.Handler
		}
	case *natsConfig:
		if b != nil {
			return b.Handler
		}
	}
	return nil
}

// handlerFor returns the handler of a binding: its own, else the default.
func (c *config) handlerFor(own *handlerConfig) *handlerConfig {
	if own != nil {
		return own
	}
	return c.Handler
}

// outboxSchemes are the schemes serve can send to: HTTP always, mailto with
// outbox.smtp, ftp with outbox.ftp or the ftp binding's server, sftp and
// file likewise, nats with outbox.nats or the nats binding's connection.
func (c *config) outboxSchemes() map[string]bool {
	s := map[string]bool{"http": true, "https": true}
	o := c.Outbox
	if o != nil && o.SMTP != nil {
		s["mailto"] = true
	}
	if o != nil && o.FTP != nil || c.FTP != nil {
		s[soapftp.Scheme] = true
	}
	if o != nil && o.SFTP != nil || c.SFTP != nil {
		s[soapsftp.Scheme] = true
	}
	if o != nil && o.File != nil || c.File != nil {
		s[soapfile.Scheme] = true
	}
	if o != nil && o.NATS != nil || c.NATS != nil {
		s[soapnats.Scheme] = true
	}
	return s
}

func outboxKey(scheme string) string {
	if scheme == "mailto" {
		return "smtp"
	}
	return scheme
}

// natsURL checks that exactly one of url and url_env is given.
func natsURL(field, url, env string, bad func(field, format string, args ...any)) {
	switch {
	case url != "" && env != "":
		bad(field, "give url or url_env, not both")
	case url == "" && env == "":
		bad(field+".url", "required (or url_env)")
	case env != "" && os.Getenv(env) == "":
		bad(field+".url_env", "$%s is not set", env)
	}
}

// resolveURL returns the NATS URL a config gives.
func resolveURL(url, env string) string {
	if env != "" {
		return os.Getenv(env)
	}
	return url
}

// password returns the password of cr from the environment.
func (cr *credentials) password() string {
	if cr == nil {
		return ""
	}
	return os.Getenv(cr.PasswordEnv)
}

// below reports whether the folder p is root or inside it (both absolute).
func below(p, root string) bool {
	rel, err := filepath.Rel(filepath.Clean(root), filepath.Clean(p))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
