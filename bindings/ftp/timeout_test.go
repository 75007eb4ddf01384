package ftp_test

import (
	"bufio"
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soapftp "github.com/soapwire/soapwire/bindings/ftp"
	"github.com/soapwire/soapwire/core"
)

// stallingServer speaks just enough FTP to log in, then stops answering
// at the command named stallAt ("" : it never even greets). It injects the
// one failure a real server will not do on demand: going silent.
func stallingServer(t *testing.T, stallAt string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	done := make(chan struct{})
	t.Cleanup(func() { close(done); l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				if stallAt == "" {
					<-done
					return
				}
				w := bufio.NewWriter(c)
				reply := func(s string) { w.WriteString(s + "\r\n"); w.Flush() }
				reply("220 hello")
				r := bufio.NewReader(c)
				for {
					line, err := r.ReadString('\n')
					if err != nil {
						return
					}
					cmd, _, _ := strings.Cut(strings.TrimSpace(line), " ")
					if cmd == stallAt {
						<-done
						return
					}
					switch cmd {
					case "USER":
						reply("331 password please")
					case "PASS":
						reply("230 in")
					case "FEAT":
						reply("211 no features")
					case "TYPE":
						reply("200 ok")
					default:
						reply("502 no")
					}
				}
			}()
		}
	}()
	return l.Addr().String()
}

// TestSilentServer: a server that goes silent never hangs a caller: the
// dial timeout bounds connecting and logging in, the I/O timeout bounds an
// operation even without a ctx deadline, and a ctx deadline bounds both.
func TestSilentServer(t *testing.T) {
	tests := []struct {
		name    string
		stallAt string
		opts    []soapftp.ClientOption
		ctx     func() (context.Context, context.CancelFunc)
	}{
		{"NoGreeting", "", []soapftp.ClientOption{soapftp.WithDialTimeout(200 * time.Millisecond)}, background},
		{"LoginStalls", "PASS", []soapftp.ClientOption{soapftp.WithDialTimeout(200 * time.Millisecond)}, background},
		{"TransferStalls", "EPSV", []soapftp.ClientOption{soapftp.WithIOTimeout(200 * time.Millisecond)}, background},
		{"Deadline", "EPSV", nil, func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 200*time.Millisecond)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			addr := stallingServer(t, tt.stallAt)
			c := soapftp.NewClient(addr, "u", "p", tt.opts...)
			t.Cleanup(func() { c.Close() })
			m := ping(core.V11, "x")
			m.To = "ftp://" + addr + "/in"
			ctx, cancel := tt.ctx()
			defer cancel()
			done := make(chan error, 1)
			go func() { done <- soapftp.NewSender(c).Send(ctx, m) }()
			select {
			case err := <-done:
				require.Error(t, err)
				var ne net.Error
				timeout := errors.As(err, &ne) && ne.Timeout()
				assert.True(t, timeout || errors.Is(err, context.DeadlineExceeded), "not a timeout: %v", err)
			case <-time.After(10 * time.Second):
				t.Fatal("Send hung on a silent server")
			}
		})
	}
}

func background() (context.Context, context.CancelFunc) {
	return context.WithCancel(context.Background())
}
