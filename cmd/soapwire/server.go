package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/nats-io/nats.go"

	"golang.org/x/crypto/ssh"

	soapfile "github.com/soapwire/soapwire/bindings/file"
	soapftp "github.com/soapwire/soapwire/bindings/ftp"
	soaphttp "github.com/soapwire/soapwire/bindings/http"
	soapnats "github.com/soapwire/soapwire/bindings/nats"
	soapsftp "github.com/soapwire/soapwire/bindings/sftp"
	soapsmtp "github.com/soapwire/soapwire/bindings/smtp"
	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/document"
)

// shutdownTimeout bounds how long serve waits, once told to stop, for the
// messages in progress.
const shutdownTimeout = 15 * time.Second

// server runs the bindings of a configuration.
type server struct {
	cfg    *config
	log    *slog.Logger
	stdout io.Writer

	out     *outbox
	store   document.Store
	policy  core.ReplyPolicy // where answers may go, checked before a message is handled
	replies core.Sender      // the outbox: what core.Serve answers through

	ftpClient  *soapftp.Client
	sftpClient *soapsftp.Client
	nc         *nats.Conn
}

func newServer(cfg *config, log *slog.Logger, stdout io.Writer) *server {
	return &server{cfg: cfg, log: log, stdout: stdout}
}

// closers collects what to close on the way out, last opened first.
type closers []func()

func (c *closers) add(f func()) { *c = append(*c, f) }
func (c *closers) run() {
	for i := len(*c) - 1; i >= 0; i-- {
		(*c)[i]()
	}
}

// run starts every binding, prints the ready lines, and serves until ctx
// is done or a binding fails.
func (s *server) run(ctx context.Context) error {
	var cl closers
	defer cl.run()
	if err := s.connect(&cl); err != nil {
		return err
	}

	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	defer wg.Wait() // before the connections close
	failed := make(chan error, 4)
	fail := func(name string, err error) {
		s.log.Error("soapwire: binding failed", slog.String("binding", name), slog.Any("err", err))
		select {
		case failed <- fmt.Errorf("%s: %w", name, err):
		default:
		}
		cancel()
	}
	var stops []func(context.Context)
	var ready []string
	for _, start := range []func(context.Context, *sync.WaitGroup, func(string, error)) (string, func(context.Context), error){
		s.startHTTP, s.startSMTP, s.startIMAP, s.startFTP, s.startSFTP, s.startFile, s.startNATS,
	} {
		line, stop, err := start(runCtx, &wg, fail)
		if err != nil {
			cancel()
			sctx, scancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownTimeout)
			defer scancel()
			for _, st := range stops {
				st(sctx)
			}
			return err
		}
		if line != "" {
			ready = append(ready, line)
			stops = append(stops, stop)
		}
	}
	for _, line := range ready {
		fmt.Fprintf(s.stdout, "soapwire serve: ready %s\n", line)
	}
	fmt.Fprintln(s.stdout, "soapwire serve: ready")
	s.log.Info("soapwire: serving", slog.Int("bindings", len(ready)))

	<-runCtx.Done()
	s.log.Info("soapwire: stopping")
	sctx, scancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownTimeout)
	defer scancel()
	for _, st := range stops {
		st(sctx)
	}
	wg.Wait()
	fmt.Fprintln(s.stdout, "soapwire serve: stopped")
	select {
	case err := <-failed:
		return err
	default:
		return nil
	}
}

// connect opens the connections (FTP, NATS, the outbox's) and sets up the
// store and the policy.
func (s *server) connect(cl *closers) error {
	cfg := s.cfg
	s.out = newOutbox()
	cl.add(func() { _ = s.out.Close() })
	var httpOut httpSettings
	if o := cfg.Outbox; o != nil && o.HTTP != nil {
		httpOut = httpSettings{user: o.HTTP.User, password: o.HTTP.password()}
	}
	s.out.addHTTP(httpOut)
	if o := cfg.Outbox; o != nil && o.SMTP != nil {
		st := smtpSettings{server: o.SMTP.Server, from: o.SMTP.From, user: o.SMTP.User, startTLS: o.SMTP.StartTLS}
		if st.user != "" {
			st.password = (&credentials{PasswordEnv: o.SMTP.PasswordEnv}).password()
		}
		if err := s.out.addSMTP(st, s.log); err != nil {
			return fmt.Errorf("outbox.smtp: %w", err)
		}
	}
	if f := cfg.FTP; f != nil {
		if f.Server != nil {
			srv, err := soapftp.StartServer(f.Server.Root, f.Server.User, f.Server.password(),
				soapftp.WithListenAddr(f.Server.Listen), soapftp.WithLogger(s.log))
			if err != nil {
				return fmt.Errorf("ftp.server: %w", err)
			}
			cl.add(func() { _ = srv.Close() })
			s.ftpClient = soapftp.NewClient(srv.Addr(), f.Server.User, f.Server.password(), soapftp.WithLogger(s.log))
			s.log.Info("soapwire: ftp server listening", slog.String("addr", srv.Addr()), slog.String("root", srv.Root()))
		} else {
			s.ftpClient = newFTPClient(ftpSettings{server: f.Remote.Addr, user: f.Remote.User, password: f.Remote.password(), tls: f.Remote.TLS}, s.log)
		}
		c := s.ftpClient
		cl.add(func() { _ = c.Close() })
	}
	if o := cfg.Outbox; o != nil && o.FTP != nil {
		s.out.addFTP(newFTPClient(ftpSettings{server: o.FTP.Addr, user: o.FTP.User, password: o.FTP.password(), tls: o.FTP.TLS}, s.log), true, s.log)
	} else if s.ftpClient != nil {
		s.out.addFTP(s.ftpClient, false, s.log)
	}
	if f := cfg.SFTP; f != nil {
		if f.Server != nil {
			if err := os.MkdirAll(f.Server.Root, 0o750); err != nil {
				return fmt.Errorf("sftp.server.root: %w", err)
			}
			srv, err := soapsftp.StartServer(f.Server.Root, f.Server.User, soapsftp.WithPassword(f.Server.password()),
				soapsftp.WithListenAddr(f.Server.Listen), soapsftp.WithLogger(s.log))
			if err != nil {
				return fmt.Errorf("sftp.server: %w", err)
			}
			cl.add(func() { _ = srv.Close() })
			s.sftpClient = soapsftp.NewClient(srv.Addr(), f.Server.User, soapsftp.WithPassword(f.Server.password()),
				soapsftp.WithHostKey(srv.HostKey()), soapsftp.WithLogger(s.log))
			s.log.Info("soapwire: sftp server listening", slog.String("addr", srv.Addr()), slog.String("root", srv.Root()),
				slog.String("host_key", ssh.FingerprintSHA256(srv.HostKey())))
		} else {
			r := f.Remote
			c, err := newSFTPClient(sftpSettings{server: r.Addr, user: r.User, keyFile: r.KeyFile,
				password: (&credentials{User: r.User, PasswordEnv: r.PasswordEnv}).password(), knownHosts: r.KnownHosts}, s.log)
			if err != nil {
				return fmt.Errorf("sftp.remote.key_file: %w", err)
			}
			s.sftpClient = c
		}
		c := s.sftpClient
		cl.add(func() { _ = c.Close() })
	}
	if o := cfg.Outbox; o != nil && o.SFTP != nil {
		r := o.SFTP
		c, err := newSFTPClient(sftpSettings{server: r.Addr, user: r.User, keyFile: r.KeyFile,
			password: (&credentials{User: r.User, PasswordEnv: r.PasswordEnv}).password(), knownHosts: r.KnownHosts}, s.log)
		if err != nil {
			return fmt.Errorf("outbox.sftp.key_file: %w", err)
		}
		s.out.addSFTP(c, true, s.log)
	} else if s.sftpClient != nil {
		s.out.addSFTP(s.sftpClient, false, s.log)
	}
	if root, field := fileOutRoot(cfg); root != "" {
		if err := os.MkdirAll(root, soapfile.DirMode); err != nil {
			return fmt.Errorf("%s: %w", field, err)
		}
		if err := s.out.addFile(root, s.log); err != nil {
			return fmt.Errorf("%s: %w", field, err)
		}
	}
	if n := cfg.NATS; n != nil {
		nc, err := connectNATS(resolveURL(n.URL, n.URLEnv))
		if err != nil {
			return err
		}
		s.nc = nc
		cl.add(func() {
			_ = nc.FlushTimeout(5 * time.Second) // what the handlers published
			nc.Close()
		})
	}
	if o := cfg.Outbox; o != nil && o.NATS != nil {
		nc, err := connectNATS(resolveURL(o.NATS.URL, o.NATS.URLEnv))
		if err != nil {
			return fmt.Errorf("outbox.nats: %w", err)
		}
		s.out.addNATS(nc, true, s.log)
	} else if s.nc != nil {
		s.out.addNATS(s.nc, false, s.log)
	}

	if cfg.StoreDir != "" {
		fs, err := document.NewFileStore(cfg.StoreDir)
		if err != nil {
			return fmt.Errorf("store_dir: %w", err)
		}
		s.store = fs
	} else {
		s.store = document.NewMemoryStore()
	}
	if p := cfg.Policy; p != nil {
		s.policy = core.ReplyPolicy{Schemes: p.Schemes, Hosts: p.Hosts, Private: p.Private, Subjects: p.Subjects, Mailboxes: p.Mailboxes}
	}
	s.replies = s.out
	return nil
}

// handler returns the handler a binding's configuration names.
func (s *server) handler(own *handlerConfig, binding string) core.Handler {
	h := s.cfg.handlerFor(own)
	log := s.log.With(slog.String("binding", binding))
	if h.Type == "forward" {
		return forward(h.To, s.out, log)
	}
	return document.NewHandler(echo,
		document.WithStore(s.store),
		document.WithOutbox(s.out),
		document.WithReplyPolicy(s.policy),
		document.WithLogger(log))
}

// echo answers a document with its own body, in the same conversation.
// Served by a document.Handler: the reply goes to ReplyTo (after the policy
// check) or back on the transport's back-channel, and a redelivered
// message is answered again without being processed twice.
func echo(_ context.Context, in *document.Incoming) (*core.Message, error) {
	var b bytes.Buffer
	if _, err := in.Message.Body().WriteTo(&b); err != nil {
		return nil, err
	}
	return in.Reply(core.RawBody(b.Bytes()), document.WithAction(in.Message.Action)), nil
}

// forward sends each message on to `to`, as it is: its id, addressing
// (ReplyTo and FaultTo are for the next hop to answer, not checked here),
// header blocks and body (streamed), so whoever answers it answers the
// original sender. It answers nothing itself (HTTP 202). A failed send is a
// Receiver fault: core.Serve sends it to FaultTo (after the policy check)
// or parks the message; over HTTP and NATS it goes back to the caller.
func forward(to string, out core.Sender, log *slog.Logger) core.Handler {
	return core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		if m.ID == "" {
			m.ID = core.NewMessageID()
		}
		m.To, m.Meta = to, nil
		if err := out.Send(ctx, m); err != nil {
			log.WarnContext(ctx, "soapwire: forward failed", slog.String("id", m.ID), slog.String("to", to), slog.Any("err", err))
			f := core.ReceiverFault("the message could not be forwarded")
			f.Cause, f.Version = err, m.Version()
			return nil, f
		}
		log.InfoContext(ctx, "soapwire: forwarded", slog.String("id", m.ID), slog.String("action", m.Action), slog.String("to", to))
		return nil, nil
	})
}

// serveLoop runs core.Serve over r until ctx is done, then closes r.
func (s *server) serveLoop(ctx context.Context, wg *sync.WaitGroup, name string, r core.Receiver, h core.Handler, n int, fail func(string, error)) {
	if n == 0 {
		n = 4
	}
	wg.Go(func() {
		defer r.Close()
		if err := core.Serve(ctx, r, h, s.replies, core.WithReplyPolicy(s.policy), core.WithLogger(s.log.With(slog.String("binding", name))), core.WithConcurrency(n)); err != nil {
			fail(name, err)
		}
	})
}

func (s *server) startHTTP(ctx context.Context, wg *sync.WaitGroup, fail func(string, error)) (string, func(context.Context), error) {
	h := s.cfg.HTTP
	if h == nil {
		return "", nil, nil
	}
	l, err := net.Listen("tcp", h.Listen)
	if err != nil {
		return "", nil, fmt.Errorf("http.listen: %w", err)
	}
	log := s.log.With(slog.String("binding", "http"))
	opts := append([]soaphttp.HandlerOption{soaphttp.WithLogger(log), soaphttp.WithLimits(s.cfg.limits())}, h.handlerOptions()...)
	if a := h.BasicAuth; a != nil {
		opts = append(opts, soaphttp.WithAuth(soaphttp.StaticCredentials(map[string]string{a.User: a.password()})))
	}
	path := h.Path
	if path == "" {
		path = "/"
	}
	mux := http.NewServeMux()
	mux.Handle(path, soaphttp.NewHandler(s.handler(h.Handler, "http"), opts...))
	srv := soaphttp.NewServer(l.Addr().String(), mux, soaphttp.WithLogger(log))
	wg.Go(func() {
		if err := srv.Serve(l); !errors.Is(err, http.ErrServerClosed) {
			fail("http", err)
		}
	})
	stop := func(ctx context.Context) {
		if err := srv.Shutdown(ctx); err != nil {
			s.log.Warn("soapwire: http shutdown", slog.Any("err", err))
			_ = srv.Close()
		}
	}
	return fmt.Sprintf("http http://%s%s", l.Addr(), path), stop, nil
}

func (s *server) startSMTP(ctx context.Context, wg *sync.WaitGroup, fail func(string, error)) (string, func(context.Context), error) {
	c := s.cfg.SMTP
	if c == nil {
		return "", nil, nil
	}
	mb, err := soapsmtp.OpenMaildir(c.Maildir)
	if err != nil {
		return "", nil, fmt.Errorf("smtp.maildir: %w", err)
	}
	log := s.log.With(slog.String("binding", "smtp"))
	line := fmt.Sprintf("smtp maildir %s", mb.Dir())
	var users sync.WaitGroup // the server and the receiving loop, which use mb
	if c.Listen != "" {
		l, err := net.Listen("tcp", c.Listen)
		if err != nil {
			return "", nil, fmt.Errorf("smtp.listen: %w", err)
		}
		opts := append([]soapsmtp.ServerOption{soapsmtp.WithAddresses(c.Addresses...), soapsmtp.WithLogger(log)}, c.serverOptions()...)
		if n := s.cfg.limits().MaxBytes; n > 0 {
			// Room for the envelope in base64 (4/3) and the mail's headers.
			opts = append(opts, soapsmtp.WithMaxMessageBytes(n+n/3+64<<10))
		}
		if c.Hostname != "" {
			opts = append(opts, soapsmtp.WithHostname(c.Hostname))
		}
		if a := c.Auth; a != nil {
			opts = append(opts, soapsmtp.WithAuth(soaphttp.StaticCredentials(map[string]string{a.User: a.password()})))
		}
		srv := soapsmtp.NewServer(l.Addr().String(), mb, opts...)
		users.Go(func() {
			if err := srv.Serve(ctx, l); err != nil {
				fail("smtp", err)
			}
		})
		line = fmt.Sprintf("smtp %s maildir %s", l.Addr(), mb.Dir())
	}
	r := soapsmtp.NewReceiver(mb, soapsmtp.WithAddresses(c.Addresses...), soapsmtp.WithLogger(log), soapsmtp.WithLimits(s.cfg.limits()))
	s.serveLoop(ctx, &users, "smtp", r, s.handler(c.Handler, "smtp"), c.Concurrency, fail)
	wg.Go(func() {
		// Once the server and the receiving loop are done: a last journal
		// checkpoint, so that a clean stop leaves none.
		users.Wait()
		if err := mb.Close(); err != nil {
			log.Error("soapwire: closing the maildir", slog.Any("err", err))
		}
	})
	return line, func(context.Context) {}, nil
}

func (s *server) startFTP(ctx context.Context, wg *sync.WaitGroup, fail func(string, error)) (string, func(context.Context), error) {
	c := s.cfg.FTP
	if c == nil {
		return "", nil, nil
	}
	p, err := soapftp.NewPoller(s.ftpClient, c.Endpoint, soapftp.WithLogger(s.log.With(slog.String("binding", "ftp"))), soapftp.WithLimits(s.cfg.limits()))
	if err != nil {
		return "", nil, fmt.Errorf("ftp.endpoint: %w", err)
	}
	mctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := p.MakeLayout(mctx); err != nil {
		return "", nil, fmt.Errorf("ftp: making the endpoint's folders: %w", err)
	}
	s.serveLoop(ctx, wg, "ftp", p, s.handler(c.Handler, "ftp"), c.Concurrency, fail)
	return "ftp " + p.Address(), func(context.Context) {}, nil
}

func (s *server) startSFTP(ctx context.Context, wg *sync.WaitGroup, fail func(string, error)) (string, func(context.Context), error) {
	c := s.cfg.SFTP
	if c == nil {
		return "", nil, nil
	}
	p, err := soapsftp.NewPoller(s.sftpClient, c.Endpoint, soapsftp.WithLogger(s.log.With(slog.String("binding", "sftp"))), soapsftp.WithLimits(s.cfg.limits()))
	if err != nil {
		return "", nil, fmt.Errorf("sftp.endpoint: %w", err)
	}
	mctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := p.MakeLayout(mctx); err != nil {
		return "", nil, fmt.Errorf("sftp: making the endpoint's folders: %w", err)
	}
	s.serveLoop(ctx, wg, "sftp", p, s.handler(c.Handler, "sftp"), c.Concurrency, fail)
	return "sftp " + p.Address(), func(context.Context) {}, nil
}

func (s *server) startFile(ctx context.Context, wg *sync.WaitGroup, fail func(string, error)) (string, func(context.Context), error) {
	c := s.cfg.File
	if c == nil {
		return "", nil, nil
	}
	p, err := soapfile.NewPoller(c.Endpoint, soapfile.WithLogger(s.log.With(slog.String("binding", "file"))), soapfile.WithLimits(s.cfg.limits()))
	if err != nil {
		return "", nil, fmt.Errorf("file.endpoint: %w", err)
	}
	if err := p.MakeLayout(ctx); err != nil {
		return "", nil, fmt.Errorf("file: making the endpoint's folders: %w", err)
	}
	s.serveLoop(ctx, wg, "file", p, s.handler(c.Handler, "file"), c.Concurrency, fail)
	return "file " + p.Address(), func(context.Context) { p.Close() }, nil
}

func (s *server) startNATS(ctx context.Context, wg *sync.WaitGroup, fail func(string, error)) (string, func(context.Context), error) {
	c := s.cfg.NATS
	if c == nil {
		return "", nil, nil
	}
	log := s.log.With(slog.String("binding", "nats"))
	h := s.handler(c.Handler, "nats")
	if c.Durable != "" {
		r, err := soapnats.NewReceiver(ctx, s.nc, c.Subject, c.Durable, soapnats.WithLogger(log), soapnats.WithLimits(s.cfg.limits()))
		if err != nil {
			return "", nil, fmt.Errorf("nats: %w", err)
		}
		s.serveLoop(ctx, wg, "nats", r, h, c.Concurrency, fail)
		return fmt.Sprintf("nats %s durable %s", c.Subject, c.Durable), func(context.Context) {}, nil
	}
	queue := soapnats.DefaultQueue
	if c.Queue != nil {
		queue = *c.Queue
	}
	if c.PendingBytes > 0 && int64(c.PendingBytes) < s.nc.MaxPayload() {
		return "", nil, fmt.Errorf("nats.pending_bytes: %d is less than the server's max payload, %d: the largest requests would always be dropped", c.PendingBytes, s.nc.MaxPayload())
	}
	opts := append([]soapnats.SubscribeOption{soapnats.WithQueue(queue), soapnats.WithLogger(log), soapnats.WithLimits(s.cfg.limits())}, c.subscribeOptions()...)
	if c.Concurrency > 0 {
		opts = append(opts, soapnats.WithConcurrency(c.Concurrency))
	}
	// The subscription outlives ctx until it is drained.
	subCtx, subCancel := context.WithCancel(context.WithoutCancel(ctx))
	sub, err := soapnats.Subscribe(subCtx, s.nc, c.Subject, h, opts...)
	if err != nil {
		subCancel()
		return "", nil, fmt.Errorf("nats: %w", err)
	}
	stop := func(ctx context.Context) {
		defer subCancel()
		if err := sub.Drain(ctx); err != nil {
			s.log.Warn("soapwire: nats drain", slog.Any("err", err))
		}
	}
	return fmt.Sprintf("nats %s queue %q", sub.Subject(), queue), stop, nil
}

// fileOutRoot returns the folder file:// replies and forwards are written
// below, and the field that gave it: outbox.file.root, else file.root, else
// the file binding's endpoint; "" when none is configured.
func fileOutRoot(cfg *config) (root, field string) {
	switch {
	case cfg.Outbox != nil && cfg.Outbox.File != nil:
		return cfg.Outbox.File.Root, "outbox.file.root"
	case cfg.File != nil && cfg.File.Root != "":
		return cfg.File.Root, "file.root"
	case cfg.File != nil:
		return cfg.File.Endpoint, "file.endpoint"
	}
	return "", ""
}
