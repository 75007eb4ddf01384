package sftp_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pkg/sftp"
	"golang.org/x/crypto/ssh"

	soapsftp "github.com/soapwire/soapwire/bindings/sftp"
	"github.com/soapwire/soapwire/bindings/sftp/sftptest"
	"github.com/soapwire/soapwire/core"
)

// benchBody is the body of a 1 KiB SOAP 1.1 envelope, benchEnvelope such
// an envelope.
var benchBody, benchEnvelope = func() ([]byte, []byte) {
	m := ping(core.V11, "|")
	m.To = "sftp://bench@127.0.0.1:22/bench-1/inbox"
	var b bytes.Buffer
	m.WriteTo(&b)
	body := []byte(`<t:Ping xmlns:t="` + testNS + `">` + strings.Repeat("x", 1024-b.Len()+1) + `</t:Ping>`)
	m.Envelope.Body = core.RawBody(body)
	b.Reset()
	m.WriteTo(&b)
	return body, b.Bytes()
}()

// BenchmarkDrop compares, on one embedded server in one run:
//
//   - raw: pkg/sftp uploading 1 KiB files one after another on one
//     logged-in connection (create, write, close: the floor of any SFTP
//     transport);
//   - soapwire: 1 KiB documents end to end: a Sender (upload to a
//     temporary name, posix-rename) → the server → a Poller (list, claim by
//     rename, download, parse) → core.Serve with a handler → Ack (remove),
//     timed until the last Ack.
//
// Both report files/s; the ratio soapwire/raw is the figure to watch.
func BenchmarkDrop(b *testing.B) {
	srv := startServer(b)
	auth := []soapsftp.ClientOption{soapsftp.WithPassword(testPass), soapsftp.WithHostKey(srv.HostKey())}
	benchDrop(b, srv.Addr(), testUser, auth, ssh.Password(testPass), srv.HostKey(), "/", func(dir string) {
		os.RemoveAll(srv.Root() + dir)
	})
}

// BenchmarkDropOpenSSH is BenchmarkDrop against Debian's OpenSSH.
func BenchmarkDropOpenSSH(b *testing.B) {
	d := sftptest.StartSSHD(b)
	auth := []soapsftp.ClientOption{soapsftp.WithKey(d.Key), soapsftp.WithHostKey(d.HostKey)}
	benchDrop(b, d.Addr, d.User, auth, ssh.PublicKeys(d.Key), d.HostKey, d.Dir, nil)
}

func benchDrop(b *testing.B, addr, user string, auth []soapsftp.ClientOption, raw ssh.AuthMethod, hostKey ssh.PublicKey, base string, reset func(dir string)) {
	var runs atomic.Int32
	b.Run("raw", func(b *testing.B) {
		sc, err := ssh.Dial("tcp", addr, &ssh.ClientConfig{User: user, Auth: []ssh.AuthMethod{raw}, HostKeyCallback: ssh.FixedHostKey(hostKey)})
		if err != nil {
			b.Fatal(err)
		}
		defer sc.Close()
		c, err := sftp.NewClient(sc)
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		dir := path.Join(base, fmt.Sprintf("raw-%d", runs.Add(1)))
		if err := c.MkdirAll(dir); err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(len(benchEnvelope)))
		b.ResetTimer()
		start := time.Now()
		for i := 0; i < b.N; i++ {
			f, err := c.Create(fmt.Sprintf("%s/%d.xml", dir, i))
			if err != nil {
				b.Fatal(err)
			}
			if _, err := f.Write(benchEnvelope); err != nil {
				b.Fatal(err)
			}
			if err := f.Close(); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "files/s")
		b.StopTimer()
		if reset != nil {
			reset(dir)
		}
	})
	b.Run("soapwire", func(b *testing.B) {
		sc := soapsftp.NewClient(addr, user, append(auth, soapsftp.WithPoolSize(1))...)
		defer sc.Close()
		pc := soapsftp.NewClient(addr, user, auth...)
		defer pc.Close()
		root := path.Join(base, fmt.Sprintf("ep-%d", runs.Add(1)))
		// A busy Poller lists the inbox again once it took what the last
		// listing found, at most every poll interval: at 5 ms it listed
		// every third file (a listing is 4 requests one after another:
		// OPENDIR, READDIR, the READDIR that finds the end, CLOSE), at 20 ms
		// every tenth or so. Both far below the 200 ms default; the run's
		// end waits at most 50 ms for the last listing.
		p, err := soapsftp.NewPoller(pc, root, soapsftp.WithPollInterval(20*time.Millisecond), soapsftp.WithMaxPollInterval(50*time.Millisecond))
		if err != nil {
			b.Fatal(err)
		}
		defer p.Close()
		if err := p.MakeLayout(context.Background()); err != nil {
			b.Fatal(err)
		}
		var acked atomic.Int64
		done := make(chan struct{})
		var once sync.Once
		r := &ackCounter{Receiver: p, acked: func() {
			if acked.Add(1) == int64(b.N) {
				once.Do(func() { close(done) })
			}
		}}
		h := core.HandlerFunc(func(_ context.Context, m *core.Message) (*core.Message, error) {
			var v struct {
				Text string `xml:",chardata"`
			}
			return nil, m.Body().Decode(&v)
		})
		ctx, cancel := context.WithCancel(context.Background())
		served := make(chan error, 1)
		go func() { served <- core.Serve(ctx, r, h, nil, core.WithConcurrency(4)) }()
		s := soapsftp.NewSender(sc)
		to := p.Address()
		// The connections are logged in before the timer starts, as raw's
		// is: the Sender's one, and the Poller's pool (its downloads run
		// four at once).
		if err := soapsftp.Warm(ctx, sc, 1); err != nil {
			b.Fatal(err)
		}
		if err := soapsftp.Warm(ctx, pc, soapsftp.DefaultPoolSize); err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(len(benchEnvelope)))
		b.ResetTimer()
		start := time.Now()
		for i := 0; i < b.N; i++ {
			m := core.NewMessage(core.V11, core.RawBody(benchBody))
			m.ID, m.To, m.Action = core.NewMessageID(), to, testNS+"/Ping"
			if err := s.Send(ctx, m); err != nil {
				b.Fatal(err)
			}
		}
		select {
		case <-done:
		case <-time.After(time.Minute):
			b.Fatalf("%d of %d acked", acked.Load(), b.N)
		}
		b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "files/s")
		b.StopTimer()
		cancel()
		if err := <-served; err != nil {
			b.Fatal(err)
		}
		if reset != nil {
			reset(root)
		}
	})
}

// ackCounter counts the successful Acks of a Receiver's deliveries.
type ackCounter struct {
	core.Receiver
	acked func()
}

func (a *ackCounter) Receive(ctx context.Context) (core.Delivery, error) {
	d, err := a.Receiver.Receive(ctx)
	if err != nil {
		return nil, err
	}
	return countedDelivery{d, a.acked}, nil
}

type countedDelivery struct {
	core.Delivery
	acked func()
}

func (d countedDelivery) Ack(ctx context.Context) error {
	err := d.Delivery.Ack(ctx)
	if err == nil {
		d.acked()
	}
	return err
}
