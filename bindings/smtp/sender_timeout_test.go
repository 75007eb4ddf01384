package smtp_test

import (
	"bufio"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soapsmtp "github.com/soapwire/soapwire/bindings/smtp"
	"github.com/soapwire/soapwire/core"
)

// stallServer is an SMTP server on loopback that goes silent at a point of
// each session: "greeting" (it never greets) or "data" (it takes the data
// and never answers it).
func stallServer(t *testing.T, at string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var wg sync.WaitGroup
	done := make(chan struct{})
	t.Cleanup(func() { close(done); l.Close(); wg.Wait() })
	wg.Go(func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			wg.Go(func() {
				defer c.Close()
				go func() { <-done; c.Close() }()
				if at == "greeting" {
					<-done
					return
				}
				br := bufio.NewReader(c)
				c.Write([]byte("220 stall ESMTP\r\n"))
				for {
					line, err := br.ReadString('\n')
					if err != nil {
						return
					}
					switch verb := strings.ToUpper(strings.Fields(line + " x")[0]); verb {
					case "EHLO":
						c.Write([]byte("250 stall\r\n"))
					case "DATA":
						c.Write([]byte("354 go ahead\r\n"))
						for line != ".\r\n" {
							if line, err = br.ReadString('\n'); err != nil {
								return
							}
						}
						<-done // silent
						return
					default:
						c.Write([]byte("250 2.0.0 OK\r\n"))
					}
				}
			})
		}
	})
	return l.Addr().String()
}

// TestSenderTimeouts: a session that cannot be opened within
// WithDialTimeout (the server never greets), or a server silent beyond
// WithIOTimeout (it never answers the data), fails the Send with a
// deadline error although its ctx has time left.
func TestSenderTimeouts(t *testing.T) {
	tests := []struct {
		name  string
		at    string
		opt   soapsmtp.SenderOption
		stage string
	}{
		{"DialTimeout", "greeting", soapsmtp.WithDialTimeout(200 * time.Millisecond), "CONNECT"},
		{"IOTimeout", "data", soapsmtp.WithIOTimeout(200 * time.Millisecond), "DATA"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newSender(t, stallServer(t, tt.at), tt.opt, soapsmtp.WithRetry(1, 0))
			m := ping(core.V12, "stalled")
			m.To = "mailto:soap@example.test"
			ctx := ctxT(t)
			err := s.Send(ctx, m)
			require.ErrorIs(t, err, os.ErrDeadlineExceeded)
			assert.Contains(t, err.Error(), tt.stage)
			assert.NoError(t, ctx.Err(), "the Send's ctx had time left")
		})
	}
}
