package smtp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"time"

	gosmtp "github.com/emersion/go-smtp"

	"github.com/soapwire/soapwire/bindings/internal/ratelog"
)

// Server is an SMTP server (go-smtp) that accepts mail for the service's
// addresses and writes each mail durably into a Maildir before it answers
// 250: once a sender has heard 250, a crash loses nothing. A Receiver on
// the same Maildir then takes the mail from there.
//
// Refusals: a recipient not among WithAddresses 550 5.1.1; a mail over
// WithMaxMessageBytes 552 5.3.4 (at MAIL when the client declares SIZE,
// else during the data); too many recipients 452 4.5.3; a line over
// WithMaxLineLength 500 and the session closed; a session beyond
// WithMaxSessions 421 4.3.2, beyond its address's WithMaxSessionsPerIP
// 421 4.7.0; a session over WithSessionTimeout, silent beyond
// WithIOTimeout after a reply, or slower than WithMinDataRate (the session
// budget: see budget.go), 421 4.4.2; MAIL without the required AUTH or STARTTLS 530
// 5.7.0; wrong credentials 535 5.7.8; a Maildir that cannot be written 451
// 4.3.0, so that the sender tries again later.
type Server struct {
	addr   string
	mb     *Maildir
	o      serverConfig
	exact  map[string]bool
	domain map[string]bool

	// logs bounds the refusal lines a flood makes: each kind (the session
	// refusals and cuts, a refused AUTH, MAIL, RCPT or mail) at once, then
	// at most one line per DefaultLogInterval with the count
	logs *ratelog.Limiter

	mu      sync.Mutex
	bound   string             // the listener's address, once serving
	stop    context.CancelFunc // StartServer's: ends Serve
	done    chan error         // StartServer's: Serve's result
	stopped bool
}

// NewServer returns a Server that will listen on addr ("host:port"; see
// ListenAndServe and Serve) and deliver into mb. WithAddresses is
// required: it names the addresses the server accepts mail for. NewServer
// panics without WithAddresses, with a nil mb, or with WithRequireTLS but
// no WithTLS: those are setup mistakes.
func NewServer(addr string, mb *Maildir, opts ...ServerOption) *Server {
	s, err := newServer(addr, mb, opts)
	if err != nil {
		panic(err.Error())
	}
	return s
}

// StartServer starts a Server delivering into mb: it listens on
// WithListenAddr (default DefaultListenAddr, a free loopback port) and
// serves in the background until Close. Addr says where it listens. It
// takes the options of NewServer, and fails on the setup mistakes NewServer
// panics on and when it cannot listen. It suits tests, examples and small
// setups; a service that owns its lifetime uses NewServer and Serve.
func StartServer(mb *Maildir, opts ...ServerOption) (*Server, error) {
	s, err := newServer(DefaultListenAddr, mb, opts)
	if err != nil {
		return nil, err
	}
	var lc net.ListenConfig
	l, err := lc.Listen(context.Background(), "tcp", s.addr)
	if err != nil {
		return nil, fmt.Errorf("smtp: listen %s: %w", s.addr, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.stop, s.done = cancel, make(chan error, 1)
	s.setBound(l.Addr().String())
	go func() { s.done <- s.Serve(ctx, l) }()
	return s, nil
}

// newServer is NewServer returning its setup mistakes as errors.
func newServer(addr string, mb *Maildir, opts []ServerOption) (*Server, error) {
	if mb == nil {
		return nil, errors.New("smtp: NewServer with a nil Maildir")
	}
	s := &Server{addr: addr, mb: mb, o: newServerConfig(opts), exact: map[string]bool{}, domain: map[string]bool{}}
	s.logs = ratelog.New(s.o.logInterval)
	if s.o.listen != "" {
		s.addr = s.o.listen
	}
	if len(s.o.addresses) == 0 {
		return nil, errors.New("smtp: NewServer needs WithAddresses: the addresses it accepts mail for")
	}
	if s.o.requireTLS && s.o.tls == nil {
		return nil, errors.New("smtp: WithRequireTLS needs WithTLS")
	}
	for _, a := range s.o.addresses {
		a = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(a, "mailto:")))
		if d, ok := strings.CutPrefix(a, "@"); ok {
			s.domain[d] = true
		} else {
			s.exact[a] = true
		}
	}
	return s, nil
}

// Addr returns the address the Server listens on ("host:port"): its
// listener's once it serves (at once for StartServer's), else the address
// it was made with.
func (s *Server) Addr() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.bound != "" {
		return s.bound
	}
	return s.addr
}

func (s *Server) setBound(addr string) {
	s.mu.Lock()
	s.bound = addr
	s.mu.Unlock()
}

// Close stops a Server started by StartServer as Serve does when its ctx
// is done (mails being received may finish, up to WithShutdownTimeout) and
// returns once it has stopped, with the error that stopped it earlier if
// any. Later calls return nil. For a Server from NewServer, Close does
// nothing: Serve's ctx stops it.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.stop == nil || s.stopped {
		s.mu.Unlock()
		return nil
	}
	s.stopped = true
	s.mu.Unlock()
	s.stop()
	return <-s.done
}

// accepts reports whether rcpt is one of the server's addresses.
func (s *Server) accepts(rcpt string) bool {
	rcpt = strings.ToLower(rcpt)
	if s.exact[rcpt] {
		return true
	}
	_, dom, ok := strings.Cut(rcpt, "@")
	return ok && s.domain[dom]
}

// ListenAndServe listens on the Server's address (NewServer's addr, or
// WithListenAddr) and serves until ctx is done; see Serve.
func (s *Server) ListenAndServe(ctx context.Context) error {
	var lc net.ListenConfig
	l, err := lc.Listen(ctx, "tcp", s.addr)
	if err != nil {
		return fmt.Errorf("smtp: listen %s: %w", s.addr, err)
	}
	return s.Serve(ctx, l)
}

// Serve accepts sessions on l until ctx is done, then stops: it closes l,
// answers idle sessions 421, lets mails being received finish (up to
// WithShutdownTimeout) and returns nil. It returns an error if l fails.
func (s *Server) Serve(ctx context.Context, l net.Listener) error {
	s.setBound(l.Addr().String())
	ss := &sessions{Listener: l, max: s.o.maxSessions, perIP: s.o.sessionsPerIP(), life: s.o.sessionTimeout, idle: s.o.ioTimeout,
		grace: s.o.rateGrace, rate: int64(s.o.minDataRate), conns: map[*capConn]struct{}{}, byIP: map[string]int{}, busy: s.busy, slow: s.slow}
	srv := gosmtp.NewServer(&backend{s: s, ctx: ctx})
	srv.Domain = s.o.hostname
	srv.TLSConfig = s.o.tls
	srv.AllowInsecureAuth = s.o.tls == nil
	srv.MaxMessageBytes = s.o.maxMessageBytes
	srv.MaxRecipients = s.o.maxRecipients
	srv.MaxLineLength = s.o.maxLineLength
	srv.ReadTimeout = s.o.ioTimeout
	srv.WriteTimeout = s.o.ioTimeout
	srv.ErrorLog = logAdapter{s.o.log}
	defer s.logs.Flush() // the refusals held back are in the log when Serve returns
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ss) }()
	s.o.log.InfoContext(ctx, "smtp: serving", slog.String("addr", l.Addr().String()), slog.String("maildir", s.mb.Dir()))
	select {
	case err := <-errc:
		srv.Close()
		return fmt.Errorf("smtp: serve %s: %w", l.Addr(), err)
	case <-ctx.Done():
	}
	ss.shutdown()
	if err := ss.Close(); err != nil { // srv.Serve may not have registered it yet
		s.o.log.WarnContext(ctx, "smtp: closing the listener", slog.Any("err", err))
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.o.shutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		// Only its ctx can fail it now: ss.Close is done.
		s.o.log.WarnContext(ctx, "smtp: sessions still open at shutdown; closing them", slog.Any("err", err), slog.Duration("waited", s.o.shutdownTimeout))
		srv.Close()
	}
	<-errc
	return nil
}

// refused logs a refusal (or a cut) at Warn, at most one line of its kind
// per DefaultLogInterval, the ones held back counted in the next.
func (s *Server) refused(log *slog.Logger, msg string, args ...any) {
	s.logs.Log(context.Background(), log, slog.LevelWarn, msg, args...)
}

// busy answers a connection the server has no room for: every session is
// taken, or (fromOne) the sessions its address may hold. It logs at most
// one line per DefaultLogInterval of each kind.
func (s *Server) busy(c net.Conn, fromOne bool) {
	c.SetWriteDeadline(time.Now().Add(time.Second))
	if fromOne {
		s.refused(s.o.log, "smtp: too many sessions from one address; connection refused", slog.String("remote", c.RemoteAddr().String()), slog.Int("max_per_ip", s.o.sessionsPerIP()))
		fmt.Fprintf(c, "421 4.7.0 %s Too many sessions from your address, try again later\r\n", s.o.hostname)
	} else {
		s.refused(s.o.log, "smtp: too many sessions; connection refused", slog.String("remote", c.RemoteAddr().String()), slog.Int("max", s.o.maxSessions))
		fmt.Fprintf(c, "421 4.3.2 %s Too many sessions, try again later\r\n", s.o.hostname)
	}
	c.Close()
}

// slow logs a session cut by its budget (silent, or too slow for
// WithMinDataRate), at most one line per DefaultLogInterval.
func (s *Server) slow(c net.Conn, got int64, took time.Duration) {
	s.refused(s.o.log, "smtp: session too slow or silent; cut with 421", slog.String("remote", c.RemoteAddr().String()), slog.Int64("bytes", got), slog.Duration("took", took))
}

// logAdapter sends go-smtp's error log to slog.
type logAdapter struct{ l *slog.Logger }

func (a logAdapter) Printf(format string, v ...any) {
	a.l.Warn("smtp: server: " + strings.TrimSpace(fmt.Sprintf(format, v...)))
}

func (a logAdapter) Println(v ...any) {
	a.l.Warn("smtp: server: " + strings.TrimSpace(fmt.Sprintln(v...)))
}
