package ftp_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jlaffaye/ftp"

	soapftp "github.com/soapwire/soapwire/bindings/ftp"
	"github.com/soapwire/soapwire/bindings/ftp/ftptest"
	"github.com/soapwire/soapwire/core"
)

// benchBody is the body of a 1 KiB SOAP 1.1 envelope (with its
// WS-Addressing headers), benchEnvelope such an envelope.
var benchBody, benchEnvelope = func() ([]byte, []byte) {
	m := ping(core.V11, "|")
	m.ID = core.NewMessageID()
	m.To = "ftp://127.0.0.1:21/bench-1/inbox"
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
//   - raw: jlaffaye/ftp uploading 1 KiB files one after another on one
//     logged-in connection (STOR only: the floor of any FTP transport);
//   - soapwire: 1 KiB documents end to end: one Sender on one connection
//     (upload to a temporary name, rename) → the server → a Poller (list,
//     claim by rename, download, parse) → core.Serve with a handler →
//     Ack (delete), timed until the last Ack.
//
// Both report files/s; the ratio soapwire/raw is the figure to watch.
func BenchmarkDrop(b *testing.B) {
	srv := startServer(b)
	benchDrop(b, srv.Addr(), testUser, testPass, "/", func(dir string) {
		os.RemoveAll(srv.Root() + dir)
		os.MkdirAll(srv.Root()+dir, 0o755)
	})
}

// BenchmarkDropVsftpd is BenchmarkDrop against Debian's vsftpd.
func BenchmarkDropVsftpd(b *testing.B) {
	v := ftptest.StartVsftpd(b, ftptest.Options{})
	benchDrop(b, v.Addr, v.User, v.Password, v.Dir, nil)
}

func benchDrop(b *testing.B, addr, user, pass, base string, reset func(dir string)) {
	var runs atomic.Int32
	b.Run("raw", func(b *testing.B) {
		c, err := ftp.Dial(addr)
		if err != nil {
			b.Fatal(err)
		}
		defer c.Quit()
		if err := c.Login(user, pass); err != nil {
			b.Fatal(err)
		}
		dir := fmt.Sprintf("%s/raw-%d", strings.TrimSuffix(base, "/"), runs.Add(1))
		if err := c.MakeDir(dir); err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(len(benchEnvelope)))
		b.ResetTimer()
		start := time.Now()
		for i := 0; i < b.N; i++ {
			if err := c.Stor(fmt.Sprintf("%s/%d.xml", dir, i), bytes.NewReader(benchEnvelope)); err != nil {
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
		sc := soapftp.NewClient(addr, user, pass, soapftp.WithPoolSize(1))
		defer sc.Close()
		pc := soapftp.NewClient(addr, user, pass)
		defer pc.Close()
		root := fmt.Sprintf("%s/ep-%d", strings.TrimSuffix(base, "/"), runs.Add(1))
		p, err := soapftp.NewPoller(pc, root, soapftp.WithPollInterval(5*time.Millisecond), soapftp.WithMaxPollInterval(20*time.Millisecond))
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
		s := soapftp.NewSender(sc)
		to := p.Address()
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
