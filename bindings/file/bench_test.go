package file_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	soapfile "github.com/soapwire/soapwire/bindings/file"
	"github.com/soapwire/soapwire/core"
)

// benchBody is the body of a 1 KiB SOAP 1.1 envelope, benchEnvelope such
// an envelope.
var benchBody, benchEnvelope = func() ([]byte, []byte) {
	m := ping(core.V11, "|")
	m.To = "file:///tmp/bench/inbox"
	var b bytes.Buffer
	m.WriteTo(&b)
	body := []byte(`<t:Ping xmlns:t="` + testNS + `">` + strings.Repeat("x", 1024-b.Len()+1) + `</t:Ping>`)
	m.Envelope.Body = core.RawBody(body)
	b.Reset()
	m.WriteTo(&b)
	return body, b.Bytes()
}()

// BenchmarkDrop compares, in one folder tree in one run:
//
//   - raw: 1 KiB files written one after another as a careful program
//     would: create, write, fsync, close, rename into place (the floor of
//     any durable local drop);
//   - soapwire: 1 KiB documents end to end: a Sender (O_EXCL temporary
//     file, write, fsync, rename, fsync of the folder) → a Poller (list,
//     claim by rename, read, parse) → core.Serve with a handler → Ack
//     (remove), timed until the last Ack.
//
// Both report files/s; the ratio soapwire/raw is the figure to watch.
func BenchmarkDrop(b *testing.B) {
	base := b.TempDir()
	var runs atomic.Int32
	b.Run("raw", func(b *testing.B) {
		dir := filepath.Join(base, fmt.Sprintf("raw-%d", runs.Add(1)))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(len(benchEnvelope)))
		b.ResetTimer()
		start := time.Now()
		for i := 0; i < b.N; i++ {
			tmp, final := filepath.Join(dir, fmt.Sprintf(".%d.tmp", i)), filepath.Join(dir, fmt.Sprintf("%d.xml", i))
			f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o640)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := f.Write(benchEnvelope); err != nil {
				b.Fatal(err)
			}
			if err := f.Sync(); err != nil {
				b.Fatal(err)
			}
			f.Close()
			if err := os.Rename(tmp, final); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "files/s")
		b.StopTimer()
		os.RemoveAll(dir)
	})
	b.Run("soapwire", func(b *testing.B) {
		dir := filepath.Join(base, fmt.Sprintf("ep-%d", runs.Add(1)))
		p, err := soapfile.NewPoller(dir, soapfile.WithPollInterval(5*time.Millisecond), soapfile.WithMaxPollInterval(20*time.Millisecond))
		if err != nil {
			b.Fatal(err)
		}
		defer p.Close()
		if err := p.MakeLayout(context.Background()); err != nil {
			b.Fatal(err)
		}
		s, err := soapfile.NewSender(dir)
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
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
		os.RemoveAll(dir)
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
