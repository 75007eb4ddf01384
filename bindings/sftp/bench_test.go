package sftp_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pkg/sftp"
	"golang.org/x/crypto/ssh"

	soapsftp "github.com/soapwire/soapwire/bindings/sftp"
	"github.com/soapwire/soapwire/bindings/sftp/sftptest"
	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/internal/benchstat"
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
//     timed until the last Ack;
//   - alternating: both in turn, batches of dropBatch files, the order
//     swapped every round, reporting the median of the per-round ratios
//     (soapwire/raw files/s) with the lowest and highest: on a shared
//     machine two moments differ more than two builds do, two batches side
//     by side much less.
//
// raw and soapwire report files/s; the ratio soapwire/raw is the figure to
// watch. Every connection is logged in before the timer starts.
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

// dropBatch is the files of each side in a round of the alternating run.
const dropBatch = 500

func benchDrop(b *testing.B, addr, user string, auth []soapsftp.ClientOption, raw ssh.AuthMethod, hostKey ssh.PublicKey, base string, reset func(dir string)) {
	var runs atomic.Int32
	newRaw := func(b *testing.B) *rawRig {
		return startRaw(b, addr, user, raw, hostKey, path.Join(base, fmt.Sprintf("raw-%d", runs.Add(1))), reset)
	}
	newDrop := func(b *testing.B) *dropRig {
		return startDrop(b, addr, user, auth, path.Join(base, fmt.Sprintf("ep-%d", runs.Add(1))), reset)
	}
	// timed runs run (b.N files) under the timer and reports files/s.
	timed := func(b *testing.B, run func()) {
		b.SetBytes(int64(len(benchEnvelope)))
		b.ResetTimer()
		start := time.Now()
		run()
		b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "files/s")
		b.StopTimer()
	}
	b.Run("raw", func(b *testing.B) {
		r := newRaw(b)
		timed(b, func() { r.upload(b, b.N) })
	})
	b.Run("soapwire", func(b *testing.B) {
		d := newDrop(b)
		timed(b, func() { d.drop(b, b.N) })
	})
	b.Run("alternating", func(b *testing.B) {
		r, d := newRaw(b), newDrop(b)
		batch := min(dropBatch, b.N)
		rounds := b.N / batch
		var rawRate, dropRate, ratios []float64
		b.SetBytes(int64(len(benchEnvelope)))
		b.ResetTimer()
		for i := range rounds {
			rate := func(run func()) float64 {
				start := time.Now()
				run()
				return float64(batch) / time.Since(start).Seconds()
			}
			var rr, dr float64
			if i%2 == 0 {
				rr = rate(func() { r.upload(b, batch) })
				dr = rate(func() { d.drop(b, batch) })
			} else {
				dr = rate(func() { d.drop(b, batch) })
				rr = rate(func() { r.upload(b, batch) })
			}
			rawRate, dropRate, ratios = append(rawRate, rr), append(dropRate, dr), append(ratios, dr/rr)
		}
		b.StopTimer()
		b.ReportMetric(benchstat.Median(rawRate), "raw-files/s")
		b.ReportMetric(benchstat.Median(dropRate), "soapwire-files/s")
		b.ReportMetric(benchstat.Median(ratios), "soapwire/raw")
		b.ReportMetric(slices.Min(ratios), "min")
		b.ReportMetric(slices.Max(ratios), "max")
	})
}

// rawRig uploads files with pkg/sftp on one logged-in connection.
type rawRig struct {
	c   *sftp.Client
	dir string
	n   int
}

func startRaw(b *testing.B, addr, user string, auth ssh.AuthMethod, hostKey ssh.PublicKey, dir string, reset func(dir string)) *rawRig {
	sc, err := ssh.Dial("tcp", addr, &ssh.ClientConfig{User: user, Auth: []ssh.AuthMethod{auth}, HostKeyCallback: ssh.FixedHostKey(hostKey)})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { sc.Close() })
	c, err := sftp.NewClient(sc)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	if err := c.MkdirAll(dir); err != nil {
		b.Fatal(err)
	}
	if reset != nil {
		b.Cleanup(func() { reset(dir) })
	}
	return &rawRig{c: c, dir: dir}
}

// upload uploads n files (create, write, close), one after another.
func (r *rawRig) upload(b *testing.B, n int) {
	for range n {
		f, err := r.c.Create(fmt.Sprintf("%s/%d.xml", r.dir, r.n))
		if err != nil {
			b.Fatal(err)
		}
		r.n++
		if _, err := f.Write(benchEnvelope); err != nil {
			b.Fatal(err)
		}
		if err := f.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// dropRig is a whole drop: a Sender on a Client of one connection, a
// Poller on a Client of its own serving a handler that decodes the body.
type dropRig struct {
	s     *soapsftp.Sender
	to    string
	ctx   context.Context
	acked chan struct{} // a token per successful Ack
}

func startDrop(b *testing.B, addr, user string, auth []soapsftp.ClientOption, root string, reset func(dir string)) *dropRig {
	sc := soapsftp.NewClient(addr, user, append(auth, soapsftp.WithPoolSize(1))...)
	b.Cleanup(func() { sc.Close() })
	pc := soapsftp.NewClient(addr, user, auth...)
	b.Cleanup(func() { pc.Close() })
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
	b.Cleanup(func() { p.Close() })
	if err := p.MakeLayout(context.Background()); err != nil {
		b.Fatal(err)
	}
	d := &dropRig{s: soapsftp.NewSender(sc), to: p.Address(), acked: make(chan struct{}, 1<<20)}
	r := &ackCounter{Receiver: p, acked: func() { d.acked <- struct{}{} }}
	h := core.HandlerFunc(func(_ context.Context, m *core.Message) (*core.Message, error) {
		var v struct {
			Text string `xml:",chardata"`
		}
		return nil, m.Body().Decode(&v)
	})
	ctx, cancel := context.WithCancel(context.Background())
	d.ctx = ctx
	served := make(chan error, 1)
	go func() { served <- core.Serve(ctx, r, h, nil, core.WithConcurrency(4)) }()
	b.Cleanup(func() {
		cancel()
		if err := <-served; err != nil {
			b.Error(err)
		}
		if reset != nil {
			reset(root)
		}
	})
	// The connections are logged in before any timer starts, as raw's
	// is: the Sender's one, and the Poller's pool (its downloads run
	// four at once).
	if err := soapsftp.Warm(ctx, sc, 1); err != nil {
		b.Fatal(err)
	}
	if err := soapsftp.Warm(ctx, pc, soapsftp.DefaultPoolSize); err != nil {
		b.Fatal(err)
	}
	return d
}

// drop sends n documents one after another and waits until all were
// acknowledged.
func (d *dropRig) drop(b *testing.B, n int) {
	for range n {
		m := core.NewMessage(core.V11, core.RawBody(benchBody))
		m.ID, m.To, m.Action = core.NewMessageID(), d.to, testNS+"/Ping"
		if err := d.s.Send(d.ctx, m); err != nil {
			b.Fatal(err)
		}
	}
	timeout := time.After(time.Minute)
	for i := range n {
		select {
		case <-d.acked:
		case <-timeout:
			b.Fatalf("%d of %d acked", i, n)
		}
	}
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
