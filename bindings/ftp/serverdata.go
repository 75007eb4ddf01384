package ftp

import (
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	server "goftp.io/server/v2"
)

// The embedded server's data connections are its own, not goftp's. goftp's
// PASV and EPSV open a listener on every interface (data_socket.go listens
// on ":port", whatever Hostname, PublicIP or PassivePorts say: they only
// choose the address it advertises and the port), keep it for up to 60 s
// with a goroutine nobody can stop, and take the first connection that
// comes from anywhere; a session waiting on it outlives Close. goftp's
// Options have no listener factory, and the data socket is an unexported
// field of the Session that only goftp's own commands set. So the server
// replaces, through Options.Commands, the commands that open or use a data
// connection (PASV, EPSV, LIST, NLST, MLSD, RETR, STOR, APPE, REST, PROT)
// and drops active mode (PORT, EPRT, LPRT: goftp would connect wherever a
// client says, an FTP bounce). Its passive listeners:
//   - listen on the server's own IP (127.0.0.1 by default; every interface
//     only when the server itself listens on a wildcard address);
//   - accept only a connection from the control connection's IP (others are
//     closed and logged), for passiveTimeout at most;
//   - are closed when the session ends, when it asks for another one, and by
//     Server.Close, which also closes the data connections in use, so no
//     session waits on one after Close.

// passiveTimeout bounds how long a passive listener waits for its client.
const passiveTimeout = 30 * time.Second

// sessionKey is where a session's data state sits in Session.Data.
const sessionKey = "soapwire.ftp.data"

// dataSession is one goftp session's data-connection state. Only the
// session's goroutine (commands run on it) touches it, but for ln, which
// the end of the session may close from another goroutine.
type dataSession struct {
	ctrl      *ctrlConn // the session's control connection (nil if unknown)
	client    net.IP    // the client's IP: data connections must come from it
	rest      int64     // REST's offset
	last      string    // the previous command
	afterRest bool      // the command being run follows a REST
	tls       bool      // the control connection is TLS (AUTH TLS)
	prot      bool      // PROT P: data connections are TLS

	mu    sync.Mutex
	ln    *passiveLn  // a passive listener waiting for its connection
	timer *time.Timer // closes ln after passiveTimeout
}

// take removes and returns the session's passive listener (nil if none).
func (st *dataSession) take() *passiveLn {
	st.mu.Lock()
	defer st.mu.Unlock()
	pl := st.ln
	if pl != nil {
		st.timer.Stop()
		st.ln, st.timer = nil, nil
	}
	return pl
}

// dataCommands builds the replacement commands.
type dataCommands struct {
	s    *Server
	drv  server.Driver
	perm server.Perm
	host string      // the IP passive listeners bind ("" = every interface)
	tls  *tls.Config // nil without WithTLS
	log  *slog.Logger
}

// command is a goftp command with the session bookkeeping around it. It is
// used by pointer: goftp compares commands with ==.
type command struct {
	server.Command // goftp's, for IsExtend, RequireParam and RequireAuth
	name           string
	d              *dataCommands
	run            func(sess *server.Session, st *dataSession, param string)
}

func (c *command) Execute(sess *server.Session, param string) {
	st := c.d.session(sess)
	st.afterRest, st.last = st.last == "REST", c.name
	c.run(sess, st, param)
}

// commands returns goftp's commands with ours in place of the data ones.
func (d *dataCommands) commands(base map[string]server.Command) map[string]server.Command {
	ours := map[string]func(*server.Session, *dataSession, string){
		"PASV": d.pasv, "EPSV": d.epsv,
		"LIST": d.list, "NLST": d.nlst, "MLSD": d.mlsd,
		"RETR": d.retr, "STOR": d.stor, "APPE": d.appe, "REST": d.restart,
	}
	cmds := make(map[string]server.Command, len(base))
	for name, orig := range base {
		switch name {
		case "PORT", "EPRT", "LPRT":
			continue // active mode: not offered
		}
		run, ok := ours[name]
		if !ok {
			run = func(sess *server.Session, _ *dataSession, param string) { orig.Execute(sess, param) }
		}
		cmds[name] = &command{Command: orig, name: name, d: d, run: run}
	}
	auth, prot := cmds["AUTH"].(*command), cmds["PROT"].(*command)
	authRun, protRun := auth.run, prot.run
	auth.run = func(sess *server.Session, st *dataSession, param string) {
		authRun(sess, st, param)
		st.tls = st.tls || (param == "TLS" && d.tls != nil) // goftp upgraded the connection
	}
	prot.run = func(sess *server.Session, st *dataSession, param string) {
		protRun(sess, st, param) // goftp answers: P under TLS only
		st.prot = st.tls && param == "P"
	}
	return cmds
}

// session returns sess's data state, made on its first command.
func (d *dataCommands) session(sess *server.Session) *dataSession {
	if st, ok := sess.Data[sessionKey].(*dataSession); ok {
		return st
	}
	st := &dataSession{rest: -1}
	seen := sess.RemoteAddr().String()
	st.ctrl = d.s.ctrlFor(seen)
	client := seen
	if st.ctrl != nil {
		client = st.ctrl.client.String()
		st.ctrl.attach(st)
	}
	if host, _, err := net.SplitHostPort(client); err == nil {
		st.client = net.ParseIP(host)
	}
	sess.Data[sessionKey] = st
	return st
}

// passive opens a passive listener for sess, closing any earlier one.
func (d *dataCommands) passive(st *dataSession) (*passiveLn, error) {
	d.drop(st)
	ln, err := net.Listen("tcp", net.JoinHostPort(d.host, "0"))
	if err != nil {
		return nil, err
	}
	pl := &passiveLn{Listener: ln, s: d.s}
	if !d.s.track(pl) {
		ln.Close()
		return nil, net.ErrClosed
	}
	if tl, ok := ln.(*net.TCPListener); ok {
		_ = tl.SetDeadline(time.Now().Add(passiveTimeout))
	}
	st.mu.Lock()
	st.ln = pl
	st.timer = time.AfterFunc(passiveTimeout, func() { pl.Close() })
	st.mu.Unlock()
	return pl, nil
}

// drop closes the session's passive listener, if any.
func (d *dataCommands) drop(st *dataSession) {
	if pl := st.take(); pl != nil {
		pl.Close()
	}
}

// pasv answers PASV: 227 with the listener's IPv4 address and port.
func (d *dataCommands) pasv(sess *server.Session, st *dataSession, _ string) {
	ip := d.advertised(st)
	if ip == nil {
		sess.WriteMessage(425, "PASV needs IPv4; use EPSV")
		return
	}
	ln, err := d.passive(st)
	if err != nil {
		d.log.Error("ftp server: passive listener", slog.Any("err", err))
		sess.WriteMessage(425, "Can't open data connection")
		return
	}
	port := ln.port()
	sess.WriteMessage(227, fmt.Sprintf("Entering Passive Mode (%d,%d,%d,%d,%d,%d)", ip[0], ip[1], ip[2], ip[3], port>>8, port&0xff))
}

// epsv answers EPSV: 229 with the listener's port (RFC 2428).
func (d *dataCommands) epsv(sess *server.Session, st *dataSession, param string) {
	switch strings.ToUpper(param) {
	case "", "ALL", "1", "2":
	default:
		sess.WriteMessage(522, "Network protocol not supported, use (1,2)")
		return
	}
	if strings.EqualFold(param, "ALL") {
		sess.WriteMessage(200, "EPSV ALL ok")
		return
	}
	ln, err := d.passive(st)
	if err != nil {
		d.log.Error("ftp server: passive listener", slog.Any("err", err))
		sess.WriteMessage(425, "Can't open data connection")
		return
	}
	sess.WriteMessage(229, fmt.Sprintf("Entering Extended Passive Mode (|||%d|)", ln.port()))
}

// advertised is the IPv4 address PASV gives: the server's, or for a server
// on every interface the one the client reaches it by; nil if none.
func (d *dataCommands) advertised(st *dataSession) net.IP {
	if ip := net.ParseIP(d.host); ip != nil && !ip.IsUnspecified() {
		return ip.To4()
	}
	if st.ctrl != nil {
		if a, ok := st.ctrl.local.(*net.TCPAddr); ok && !a.IP.IsUnspecified() {
			return a.IP.To4()
		}
	}
	return net.IPv4(127, 0, 0, 1).To4()
}

// data returns the session's data connection: the passive listener's
// first connection from the client's IP.
func (d *dataCommands) data(st *dataSession) (net.Conn, error) {
	pl := st.take()
	if pl == nil {
		return nil, errors.New("no passive listener: PASV or EPSV first")
	}
	defer pl.Close()
	for {
		c, err := pl.Accept()
		if err != nil {
			return nil, err
		}
		if ra, ok := c.RemoteAddr().(*net.TCPAddr); !ok || st.client == nil || !ra.IP.Equal(st.client) {
			d.log.Warn("ftp server: refused a data connection from another address",
				slog.String("from", c.RemoteAddr().String()), slog.String("client", st.client.String()))
			c.Close()
			continue
		}
		dc := &dataConn{Conn: c, s: d.s}
		if !d.s.track(dc) {
			c.Close()
			return nil, net.ErrClosed
		}
		if !st.prot {
			return dc, nil
		}
		tc := tls.Server(dc, d.tls)
		_ = c.SetDeadline(time.Now().Add(passiveTimeout))
		if err := tc.Handshake(); err != nil {
			dc.Close()
			return nil, err
		}
		_ = c.SetDeadline(time.Time{})
		return tc, nil
	}
}

// open replies 150 and returns the data connection, or replies 425.
func (d *dataCommands) open(sess *server.Session, st *dataSession, what string) (net.Conn, bool) {
	sess.WriteMessage(150, what)
	c, err := d.data(st)
	if err != nil {
		d.log.Debug("ftp server: no data connection", slog.Any("err", err))
		sess.WriteMessage(425, "Can't open data connection")
		return nil, false
	}
	return c, true
}

// restart answers REST: the next RETR, STOR or APPE starts at the offset.
func (d *dataCommands) restart(sess *server.Session, st *dataSession, param string) {
	n, err := strconv.ParseInt(param, 10, 64)
	if err != nil || n < 0 {
		sess.WriteMessage(501, "Bad restart offset")
		return
	}
	st.rest = n
	sess.WriteMessage(350, fmt.Sprintf("Restarting at %d", n))
}

// offset is REST's offset when it came right before, else none.
func (st *dataSession) offset() int64 {
	if st.afterRest {
		return st.rest
	}
	return -1
}

func (d *dataCommands) ctx(sess *server.Session, cmd, param string) *server.Context {
	return &server.Context{Sess: sess, Cmd: cmd, Param: param, Data: map[string]any{}}
}

// retr sends a file.
func (d *dataCommands) retr(sess *server.Session, st *dataSession, param string) {
	from := max(st.offset(), 0)
	size, rc, err := d.drv.GetFile(d.ctx(sess, "RETR", param), sess.BuildPath(param), from)
	if err != nil {
		d.drop(st)
		sess.WriteMessage(550, "File not available")
		return
	}
	defer rc.Close()
	c, ok := d.open(sess, st, fmt.Sprintf("Data transfer starting %d bytes", size))
	if !ok {
		return
	}
	n, err := io.Copy(c, rc)
	if cerr := c.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		d.log.Debug("ftp server: RETR", slog.String("file", param), slog.Any("err", err))
		sess.WriteMessage(426, "Connection closed; transfer aborted")
		return
	}
	sess.WriteMessage(226, fmt.Sprintf("Closing data connection, sent %d bytes", n))
}

// stor receives a file (replacing it, or from REST's offset).
func (d *dataCommands) stor(sess *server.Session, st *dataSession, param string) {
	d.put(sess, st, "STOR", param, st.offset())
}

// appe appends to a file (creating it).
func (d *dataCommands) appe(sess *server.Session, st *dataSession, param string) {
	d.put(sess, st, "APPE", param, max(st.offset(), 0))
}

func (d *dataCommands) put(sess *server.Session, st *dataSession, cmd, param string, offset int64) {
	c, ok := d.open(sess, st, "Data transfer starting")
	if !ok {
		return
	}
	n, err := d.drv.PutFile(d.ctx(sess, cmd, param), sess.BuildPath(param), c, offset)
	if cerr := c.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		d.log.Debug("ftp server: "+cmd, slog.String("file", param), slog.Any("err", err))
		sess.WriteMessage(450, "Error during transfer")
		return
	}
	sess.WriteMessage(226, fmt.Sprintf("OK, received %d bytes", n))
}

// send replies 150, writes b on the data connection and replies 226.
func (d *dataCommands) send(sess *server.Session, st *dataSession, b []byte) {
	c, ok := d.open(sess, st, "Opening ASCII mode data connection for file list")
	if !ok {
		return
	}
	_, err := c.Write(b)
	if cerr := c.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		sess.WriteMessage(426, "Connection closed; transfer aborted")
		return
	}
	sess.WriteMessage(226, fmt.Sprintf("Closing data connection, sent %d bytes", len(b)))
}

// passiveLn is a passive listener the Server tracks.
type passiveLn struct {
	net.Listener
	s *Server
}

func (l *passiveLn) Close() error {
	l.s.untrack(l)
	return l.Listener.Close()
}

func (l *passiveLn) port() int { return l.Addr().(*net.TCPAddr).Port }

// dataConn is a data connection the Server tracks.
type dataConn struct {
	net.Conn
	s *Server
}

func (c *dataConn) Close() error {
	c.s.untrack(c)
	return c.Conn.Close()
}
