package imap

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"strings"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
	"github.com/emersion/go-sasl"

	mailfmt "github.com/soapwire/soapwire/bindings/internal/mail"
)

// session is one logged-in IMAP connection with a folder selected.
type session struct {
	c      *imapclient.Client
	folder string
	// exists is signalled (without blocking) when the server says the
	// selected folder's message count changed: new mail, under IDLE.
	exists chan struct{}
	// mod sees the MODIFIED codes of conditional STOREs (the inbox
	// session's; nil on others).
	mod *modified
	// keywords: the selected folder takes keywords of the client's own
	// (PERMANENTFLAGS holds \*).
	keywords bool
}

// close ends the connection without a word (LOGOUT waits for the server).
func (s *session) close() { s.c.Close() }

// caps returns the server's capabilities.
func (s *session) caps() imap.CapSet { return s.c.Caps() }

// watch closes the connection when ctx is done before stop is called: the
// go-imap client has no ctx, and a closed connection ends every command
// waiting on it.
func (s *session) watch(ctx context.Context) (stop func() bool) {
	return context.AfterFunc(ctx, func() { s.c.Close() })
}

// dial connects to e, secures the connection as e's scheme says, logs in
// and selects folder (none when it is ""), all within c.dialTimeout and ctx.
func dial(parent context.Context, e endpoint, c *clientConfig, folder string) (*session, error) {
	return dialSession(parent, e, c, folder, false)
}

// dialInbox is dial for the inbox session, which reads MODIFIED codes.
func dialInbox(parent context.Context, e endpoint, c *clientConfig) (*session, error) {
	return dialSession(parent, e, c, e.folder, true)
}

func dialSession(parent context.Context, e endpoint, c *clientConfig, folder string, sniff bool) (*session, error) {
	ctx, cancel := context.WithTimeout(parent, c.dialTimeout)
	defer cancel()
	fail := func(stage string, err error) (*session, error) {
		if parent.Err() != nil {
			err = parent.Err()
		} else if ctx.Err() != nil {
			err = fmt.Errorf("%w (WithDialTimeout %v)", context.DeadlineExceeded, c.dialTimeout)
		}
		return nil, fmt.Errorf("imap: %s %s: %w", stage, e.addr(), err)
	}
	var d net.Dialer
	raw, err := d.DialContext(ctx, "tcp", e.addr())
	if err != nil {
		return fail("dial", err)
	}
	s := &session{exists: make(chan struct{}, 1), folder: folder}
	opts := &imapclient.Options{}
	if sniff {
		s.mod = &modified{}
		opts.DebugWriter = s.mod
	}
	*opts = imapclient.Options{
		DebugWriter: opts.DebugWriter,
		UnilateralDataHandler: &imapclient.UnilateralDataHandler{
			Mailbox: func(data *imapclient.UnilateralDataMailbox) {
				if data.NumMessages != nil {
					select {
					case s.exists <- struct{}{}:
					default:
					}
				}
			},
		},
	}
	stopRaw := context.AfterFunc(ctx, func() { raw.Close() })
	defer stopRaw()
	cfg := c.tls.Clone()
	if cfg == nil {
		cfg = &tls.Config{}
	}
	if cfg.ServerName == "" {
		cfg.ServerName = e.host
	}
	switch e.mode {
	case tlsImplicit:
		tc := tls.Client(raw, cfg)
		if err := tc.HandshakeContext(ctx); err != nil {
			raw.Close()
			return fail("TLS", err)
		}
		s.c = imapclient.New(tc, opts)
	case tlsStartTLS:
		opts.TLSConfig = cfg
		s.c, err = imapclient.NewStartTLS(raw, opts)
		var ie *imap.Error
		if errors.As(err, &ie) && ie.Type != imap.StatusResponseTypeBye {
			// The server refused STARTTLS.
			if !c.plaintext {
				return fail("STARTTLS", fmt.Errorf("%w (%v)", ErrNoTLS, err))
			}
			opts.TLSConfig = nil
			if raw, err = d.DialContext(ctx, "tcp", e.addr()); err != nil {
				return fail("dial", err)
			}
			stop := context.AfterFunc(ctx, func() { raw.Close() })
			defer stop()
			s.c = imapclient.New(raw, opts)
		} else if err != nil {
			return fail("STARTTLS", err)
		}
	}
	if err := s.c.WaitGreeting(); err != nil {
		s.close()
		return fail("greeting", err)
	}
	if s.c.State() == imap.ConnStateNotAuthenticated {
		if err := login(ctx, s, e, c); err != nil {
			s.close()
			return fail("login", err)
		}
	}
	if folder == "" {
		return s, nil
	}
	data, err := s.c.Select(folder, nil).Wait()
	if err != nil {
		s.close()
		return fail("SELECT "+folder, err)
	}
	for _, f := range data.PermanentFlags {
		if f == imap.FlagWildcard {
			s.keywords = true
		}
	}
	return s, nil
}

// login authenticates as c says: OAuth (OAUTHBEARER, else XOAUTH2), else
// the password (AUTHENTICATE PLAIN, else LOGIN).
func login(ctx context.Context, s *session, e endpoint, c *clientConfig) error {
	caps := s.caps()
	user := c.user
	if user == "" {
		user = e.user
	}
	switch {
	case c.token != nil:
		mech := ""
		switch {
		case caps.Has(imap.Cap("AUTH=" + mailfmt.MechOAuthBearer)):
			mech = mailfmt.MechOAuthBearer
		case caps.Has(imap.Cap("AUTH=" + mailfmt.MechXOAuth2)):
			mech = mailfmt.MechXOAuth2
		default:
			return fmt.Errorf("%w: the server offers neither AUTH=OAUTHBEARER nor AUTH=XOAUTH2", ErrNoAuth)
		}
		token, err := c.token(ctx)
		if err != nil {
			return fmt.Errorf("the OAuth token: %w", err)
		}
		ir, err := mailfmt.OAuthResponse(mech, user, token, e.host, e.port)
		if err != nil {
			return err
		}
		return s.c.Authenticate(&mailfmt.OAuthClient{Mech: mech, IR: ir})
	case c.hasCreds || user != "" && c.pass != "":
		if caps.Has(imap.AuthCap(sasl.Plain)) {
			return s.c.Authenticate(sasl.NewPlainClient("", user, c.pass))
		}
		if caps.Has(imap.CapLoginDisabled) {
			return fmt.Errorf("%w: LOGINDISABLED and no AUTH=PLAIN", ErrNoAuth)
		}
		return s.c.Login(user, c.pass).Wait()
	}
	return fmt.Errorf("%w: no credentials (WithCredentials or WithOAuth)", ErrNoAuth)
}

// isConnErr reports whether err means the connection is gone (rather than a
// command the server refused): then the session is dropped and a new one
// dialled.
func isConnErr(err error) bool {
	if err == nil {
		return false
	}
	var ie *imap.Error
	if errors.As(err, &ie) {
		return ie.Type == imap.StatusResponseTypeBye
	}
	return true
}

// errAlreadyExists reports whether a CREATE failed because the folder
// exists.
func errAlreadyExists(err error) bool {
	var ie *imap.Error
	if !errors.As(err, &ie) {
		return false
	}
	return ie.Code == imap.ResponseCodeAlreadyExists || strings.Contains(strings.ToLower(ie.Text), "exists")
}
