package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"slices"
	"time"

	soapfile "github.com/soapwire/soapwire/bindings/file"
	soapftp "github.com/soapwire/soapwire/bindings/ftp"
	soapimap "github.com/soapwire/soapwire/bindings/imap"
	soapnats "github.com/soapwire/soapwire/bindings/nats"
	soapsftp "github.com/soapwire/soapwire/bindings/sftp"
	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/document"
)

const sendSynopsis = `Usage: soapwire send --to ADDRESS [flags] [FILE|-]

Sends the XML document in FILE (stdin for "-" or no FILE) to ADDRESS, with
the binding its scheme picks:

  mailto:orders@example.org       SMTP: --smtp host:port and --from are required
  ftp://host:port/folder          FTP: a file in that folder (--ftp-user, SOAPWIRE_FTP_PASSWORD)
  sftp://user@host:port/folder    SFTP: a file in that folder (--sftp-key or SOAPWIRE_SFTP_PASSWORD;
                                  the host key checked against --sftp-known-hosts, ~/.ssh/known_hosts)
  file:///folder                  a local folder: a file in it, synced before send returns
  nats:subject                    NATS publish (--nats URL)
  nats:subject?stream=NAME        JetStream publish, confirmed by the stream
  http://… or https://…           HTTP POST (--http-user, SOAPWIRE_HTTP_PASSWORD)

A document is wrapped in a SOAP envelope (1.2 unless --version 1.1) with
WS-Addressing headers (MessageID, To, Action, ReplyTo, FaultTo) and a
Conversation header, as document.Send does; its prolog (XML declaration,
comments) is left out, and it is checked as it streams: a document a SOAP
Body cannot hold (malformed, a DOCTYPE, neither UTF-8 nor UTF-16 with a
byte order mark, which is transcoded) fails the send
(--no-check skips the check, which reads at about 180 MB/s).

A FILE that already is a SOAP 1.1 or 1.2 envelope is sent as it is: its
header blocks and body unchanged, its WS-Addressing headers kept, To set to
ADDRESS, and the MessageID (when it has none), Action, ReplyTo, FaultTo and
conversation set only when given by flags.

It prints the receipt: the message id, the conversation, and what the
transport confirmed (HTTP status, the SMTP server's answer, the FTP file,
the JetStream sequence). A progress line goes to stderr for a send that
takes more than a second when stderr is a terminal, or always with
--progress.

An imap:// or imaps:// address puts the message, as a mail from --from,
into that folder of an IMAP mailbox (APPEND), where a service receiving
from the mailbox (serve's imap section) takes it.

Passwords come only from the environment: SOAPWIRE_SMTP_PASSWORD,
SOAPWIRE_IMAP_PASSWORD, SOAPWIRE_FTP_PASSWORD, SOAPWIRE_HTTP_PASSWORD. A NATS URL may carry
credentials (nats://user:pass@host:4222); give it in SOAPWIRE_NATS_URL.

Examples:
  soapwire send --to mailto:orders@example.org --smtp mail.example.org:587 --starttls \
      --from buyer@example.com --action urn:example:po:submit order.xml
  SOAPWIRE_FTP_PASSWORD=… soapwire send --to ftp://ftp.example.org/orders/inbox --ftp-user shop order.xml
  SOAPWIRE_IMAP_PASSWORD=… soapwire send --to imaps://orders@mail.example.org/INBOX \
      --from buyer@example.com --action urn:example:po:submit order.xml
  soapwire send --to 'nats:orders.placed?stream=ORDERS' --nats nats://127.0.0.1:4222 order.xml
  curl -s https://example.org/po | soapwire send --to https://example.org/soap --action urn:example:po:submit -
`

// sendFlags are send's flags.
type sendFlags struct {
	to, action, version, replyTo, faultTo, conversation, messageID string
	json, progress, verbose, noCheck                               bool
	timeout                                                        time.Duration
	smtp                                                           smtpSettings
	ftp                                                            ftpSettings
	sftp                                                           sftpSettings
	natsURL                                                        string
	http                                                           httpSettings
	imap                                                           imapSettings
}

func (f *sendFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.to, "to", "", "the address to send to: mailto:, ftp://, sftp://, file://, nats:, http:// or https:// (required)")
	fs.StringVar(&f.action, "action", "", "the action (wsa:Action, SOAPAction, the 1.2 action parameter)")
	fs.StringVar(&f.version, "version", "", "the SOAP version of the envelope a document is wrapped in: 1.1 or 1.2 (default 1.2)")
	fs.StringVar(&f.replyTo, "reply-to", "", "where replies go (wsa:ReplyTo)")
	fs.StringVar(&f.faultTo, "fault-to", "", "where faults go (wsa:FaultTo)")
	fs.StringVar(&f.conversation, "conversation", "", "the conversation id (default: the message id, a new conversation)")
	fs.StringVar(&f.messageID, "message-id", "", "the message id (default: a new urn:uuid)")
	fs.BoolVar(&f.json, "json", false, "print the receipt as JSON")
	fs.BoolVar(&f.noCheck, "no-check", false, "do not check a document as it streams (faster for large trusted documents; the peer refuses a malformed one)")
	fs.BoolVar(&f.progress, "progress", false, "report progress on stderr even when it is not a terminal")
	fs.BoolVar(&f.verbose, "v", false, "log what the bindings do (retries, reconnects) on stderr")
	fs.DurationVar(&f.timeout, "timeout", 5*time.Minute, "give up after this long (0: never)")
	fs.StringVar(&f.smtp.server, "smtp", envOr(envSMTP, ""), "mailto: the SMTP server, host:port ($"+envSMTP+")")
	fs.StringVar(&f.smtp.from, "from", envOr(envFrom, ""), "mailto: the From address ($"+envFrom+")")
	fs.StringVar(&f.smtp.user, "smtp-user", envOr(envSMTPUser, ""), "mailto: the AUTH user, password in $"+envSMTPPassword+" ($"+envSMTPUser+")")
	fs.BoolVar(&f.smtp.startTLS, "starttls", false, "mailto: require STARTTLS, verifying the server's certificate")
	fs.StringVar(&f.ftp.user, "ftp-user", envOr(envFTPUser, defaultFTPUser), "ftp://: the user, password in $"+envFTPPassword+" ($"+envFTPUser+")")
	fs.BoolVar(&f.ftp.tls, "ftp-tls", false, "ftp://: explicit FTPS (AUTH TLS), verifying the server's certificate")
	fs.StringVar(&f.sftp.user, "sftp-user", envOr(envSFTPUser, ""), "sftp://: the user when the address names none ($"+envSFTPUser+"); password in $"+envSFTPPassword)
	fs.StringVar(&f.sftp.keyFile, "sftp-key", "", "sftp://: a private key file (OpenSSH format, no passphrase) to log in with")
	fs.StringVar(&f.sftp.knownHosts, "sftp-known-hosts", "", "sftp://: the known_hosts file the server's host key must be in (default ~/.ssh/known_hosts)")
	fs.StringVar(&f.natsURL, "nats", envOr(envNATS, defaultNATS), "nats:: the NATS server URL ($"+envNATS+")")
	fs.StringVar(&f.imap.user, "imap-user", envOr(envIMAPUser, ""), "imap(s)://: the user when the address names none, password in $"+envIMAPPassword+" ($"+envIMAPUser+")")
	fs.StringVar(&f.imap.caFile, "imap-ca", "", "imap(s)://: PEM certificates to verify the server with (default: the system's)")
	fs.BoolVar(&f.imap.plaintext, "imap-plaintext", false, "imap://: go without TLS when the server offers no STARTTLS (loopback only)")
	fs.StringVar(&f.http.user, "http-user", envOr(envHTTPUser, ""), "http(s)://: the Basic auth user, password in $"+envHTTPPassword+" ($"+envHTTPUser+")")
}

func runSend(ctx context.Context, c *cli, args []string) int {
	var f sendFlags
	fs := flag.NewFlagSet("send", flag.ContinueOnError)
	f.register(fs)
	pos, code, done := c.parseFlags(fs, sendSynopsis, args)
	if done {
		return code
	}
	if f.to == "" {
		return c.usageError("send", errors.New("--to is required"))
	}
	if len(pos) > 1 {
		return c.usageError("send", fmt.Errorf("one FILE at most, got %q", pos))
	}
	version, err := parseVersion(f.version)
	if err != nil {
		return c.usageError("send", err)
	}
	log := newLogger(c.stderr, f.verbose)
	out, err := sendOutbox(&f, log)
	var ce *connectError
	if errors.As(err, &ce) {
		return c.fail("send", err)
	}
	if err != nil {
		return c.usageError("send", err)
	}
	defer out.Close()

	in, err := c.openInput(pos)
	if errors.Is(err, errTerminal) {
		return c.usageError("send", err)
	}
	if err != nil {
		return c.fail("send", err)
	}
	defer in.Close()
	if f.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, f.timeout)
		defer cancel()
	}

	prog := startProgress(c.stderr, f.progress, in.size)
	rec, err := send(ctx, out, &f, version, prog.reader(in))
	if err == nil {
		err = out.Flush(ctx)
	}
	prog.end(err == nil, f.progress)
	if err != nil {
		return c.fail("send", err)
	}
	if f.json {
		err = writeJSON(c.stdout, receiptJSON(rec))
	} else {
		writeReceipt(c.stdout, rec)
	}
	if err != nil {
		return c.fail("send", err)
	}
	return exitOK
}

// parseVersion reads --version: "" (unset), 1.1 or 1.2.
func parseVersion(s string) (core.Version, error) {
	switch s {
	case "":
		return 0, nil
	case "1.1":
		return core.V11, nil
	case "1.2":
		return core.V12, nil
	}
	return 0, fmt.Errorf("--version %q: want 1.1 or 1.2", s)
}

// sendOutbox builds an outbox with the one Sender the address needs, from
// the flags and the environment. Its errors are usage errors.
func sendOutbox(f *sendFlags, log *slog.Logger) (*outbox, error) {
	scheme, err := document.Scheme(f.to)
	if err != nil {
		return nil, fmt.Errorf("--to %q: %w", f.to, err)
	}
	out := newOutbox()
	switch scheme {
	case "mailto":
		if f.smtp.server == "" {
			return nil, fmt.Errorf("--smtp (or $%s) is required to send to a mailto: address", envSMTP)
		}
		if f.smtp.from == "" {
			return nil, fmt.Errorf("--from (or $%s) is required to send to a mailto: address", envFrom)
		}
		if f.smtp.user != "" {
			f.smtp.password = envOr(envSMTPPassword, "")
		}
		if err := out.addSMTP(f.smtp, log); err != nil {
			return nil, err
		}
	case soapftp.Scheme:
		a, err := soapftp.ParseAddress(f.to)
		if err != nil {
			return nil, fmt.Errorf("--to: %w", err)
		}
		f.ftp.server = a.Host
		f.ftp.password = envOr(envFTPPassword, "")
		if f.ftp.user == defaultFTPUser && f.ftp.password == "" {
			f.ftp.password = "soapwire@"
		}
		out.addFTP(newFTPClient(f.ftp, log), true, log)
	case soapsftp.Scheme:
		a, err := soapsftp.ParseAddress(f.to)
		if err != nil {
			return nil, fmt.Errorf("--to: %w", err)
		}
		f.sftp.server = a.Host
		if a.User != "" {
			f.sftp.user = a.User
		}
		if f.sftp.user == "" {
			return nil, fmt.Errorf("--to %q names no user: give sftp://user@host/folder or --sftp-user", f.to)
		}
		f.sftp.password = envOr(envSFTPPassword, "")
		if f.sftp.keyFile == "" && f.sftp.password == "" {
			return nil, fmt.Errorf("sftp:// needs --sftp-key or $%s", envSFTPPassword)
		}
		c, err := newSFTPClient(f.sftp, log)
		if err != nil {
			return nil, fmt.Errorf("--sftp-key: %w", err)
		}
		out.addSFTP(c, true, log)
	case soapfile.Scheme:
		a, err := soapfile.ParseAddress(f.to)
		if err != nil {
			return nil, fmt.Errorf("--to: %w", err)
		}
		if err := out.addFile(a.Dir, log); err != nil {
			return nil, fmt.Errorf("--to: %w", err)
		}
	case soapnats.Scheme:
		a, err := soapnats.ParseAddress(f.to)
		if err != nil {
			return nil, fmt.Errorf("--to: %w", err)
		}
		if a.Pattern() {
			return nil, fmt.Errorf("--to %q: a subject with a wildcard cannot be sent to", f.to)
		}
		nc, err := connectNATS(f.natsURL)
		if err != nil {
			return nil, &connectError{err}
		}
		out.addNATS(nc, true, log)
	case "imap", "imaps":
		if _, err := soapimap.ParseAddress(f.to); err != nil {
			return nil, fmt.Errorf("--to: %w", err)
		}
		if f.smtp.from == "" {
			return nil, fmt.Errorf("--from (or $%s) is required to put mail into an imap(s):// mailbox", envFrom)
		}
		f.imap.password = envOr(envIMAPPassword, "")
		if err := out.addIMAP(f.to, f.smtp.from, f.imap, log); err != nil {
			return nil, err
		}
	case "http", "https":
		if f.http.user != "" {
			f.http.password = envOr(envHTTPPassword, "")
		}
		out.addHTTP(f.http)
	default:
		return nil, fmt.Errorf("--to %q: no binding for the scheme %q (want mailto:, imap://, imaps://, ftp://, nats:, http:// or https://)", f.to, scheme)
	}
	return out, nil
}

// send reads the input and sends it: an envelope as it is, a document
// wrapped.
func send(ctx context.Context, out *outbox, f *sendFlags, version core.Version, r io.Reader) (*document.Receipt, error) {
	p, err := sniff(r)
	if err != nil {
		return nil, err
	}
	if p.envelope != nil {
		return sendEnvelope(ctx, out, f, version, p.envelope)
	}
	opts := []document.SendOption{document.WithAction(f.action)}
	if version != 0 {
		opts = append(opts, document.WithVersion(version))
	}
	if f.replyTo != "" {
		opts = append(opts, document.WithReplyTo(f.replyTo))
	}
	if f.faultTo != "" {
		opts = append(opts, document.WithFaultTo(f.faultTo))
	}
	if f.conversation != "" {
		opts = append(opts, document.WithConversation(f.conversation))
	}
	if f.messageID != "" {
		opts = append(opts, document.WithMessageID(f.messageID))
	}
	copyDoc := copyChecked
	if f.noCheck {
		copyDoc = func(w io.Writer, r io.Reader) error { _, err := io.Copy(w, r); return err }
	}
	body := core.StreamBody(p.root, func(w io.Writer) error { return copyDoc(w, p.doc) })
	return document.Send(ctx, out, f.to, body, opts...)
}

// sendEnvelope sends an envelope as it is, but for the addressing the flags
// set.
func sendEnvelope(ctx context.Context, out *outbox, f *sendFlags, version core.Version, m *core.Message) (*document.Receipt, error) {
	if version != 0 && version != m.Version() {
		return nil, fmt.Errorf("the input is a SOAP %s envelope, not %s (--version)", m.Version(), version)
	}
	m.To = f.to
	if f.action != "" {
		m.Action = f.action
	}
	if f.messageID != "" {
		m.ID = f.messageID
	}
	if m.ID == "" {
		m.ID = core.NewMessageID()
	}
	if f.replyTo != "" {
		m.ReplyTo = f.replyTo
	}
	if f.faultTo != "" {
		m.FaultTo = f.faultTo
	}
	if f.conversation != "" {
		document.SetConversation(m, f.conversation)
	}
	if err := out.Send(ctx, m); err != nil {
		return nil, fmt.Errorf("send to %s: %w", f.to, err)
	}
	return &document.Receipt{MessageID: m.ID, Conversation: document.ConversationOf(m), To: m.To, Transport: maps.Clone(m.Meta)}, nil
}

func writeReceipt(w io.Writer, r *document.Receipt) {
	fmt.Fprintf(w, "message-id: %s\n", oneLine(r.MessageID))
	fmt.Fprintf(w, "conversation: %s\n", oneLine(r.Conversation))
	fmt.Fprintf(w, "to: %s\n", oneLine(r.To))
	for _, k := range slices.Sorted(maps.Keys(r.Transport)) {
		fmt.Fprintf(w, "%s: %s\n", k, oneLine(r.Transport[k]))
	}
}

type receiptOut struct {
	MessageID    string            `json:"message_id"`
	Conversation string            `json:"conversation"`
	To           string            `json:"to"`
	Transport    map[string]string `json:"transport,omitempty"`
}

func receiptJSON(r *document.Receipt) receiptOut {
	return receiptOut{MessageID: r.MessageID, Conversation: r.Conversation, To: r.To, Transport: r.Transport}
}
