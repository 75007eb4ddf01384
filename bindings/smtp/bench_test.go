package smtp_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	gosmtp "github.com/emersion/go-smtp"
	"github.com/stretchr/testify/require"

	soapsmtp "github.com/soapwire/soapwire/bindings/smtp"
	"github.com/soapwire/soapwire/core"
)

// benchConcurrency is how many mails are in flight at once.
const benchConcurrency = 32

// benchDoc is a 1 KB purchase-order document.
var benchDoc = func() []byte {
	var b bytes.Buffer
	b.WriteString(`<po:order xmlns:po="urn:example:po" id="4711"><po:customer>ACME Corp.</po:customer>`)
	for i := 0; b.Len() < 1000; i++ {
		fmt.Fprintf(&b, `<po:item sku="SKU-%05d" qty="%d">widget %d</po:item>`, i, i%7+1, i)
	}
	b.WriteString(`</po:order>`)
	return b.Bytes()
}()

// BenchmarkMail: 1 KB documents by mail with 32 in flight.
//
//   - raw-go-smtp: go-smtp's client (one reused session per sender) to a
//     go-smtp server whose backend keeps each mail in memory: the floor.
//   - raw-go-smtp-fsync: the same, with a backend that stores each mail the
//     way the Maildir standard says (a new file in tmp/, fsync, rename into
//     new/, fsync new/) before it answers: the floor for durable intake,
//     with no receiving side at all.
//   - soapwire: Sender (pooled sessions) → Server → Maildir (every mail's
//     data synced, and new/ too, before 250; the mails that arrive together
//     share the syncs) → Receiver → core.Serve → a handler that reads the
//     document; done when the handler has seen every mail. SyncFiles.
//   - soapwire-syncfs: the same with WithSyncMode(SyncFilesystem).
//   - soapwire-journal: the same with WithSyncMode(SyncJournal), the
//     default: each batch's mails are synced in one journal file before
//     250.
//
// All report msgs/s, and the CPU time the whole process (clients, server
// and receiver) spent per mail, which disk contention from other processes
// does not inflate; soapwire also reports the mails per batch.
func BenchmarkMail(b *testing.B) {
	b.Run("raw-go-smtp", func(b *testing.B) { benchRaw(b, &memBackend{}) })
	b.Run("raw-go-smtp-fsync", func(b *testing.B) { benchRaw(b, &fileBackend{dir: b.TempDir()}) })
	b.Run("soapwire", func(b *testing.B) { benchSoapwire(b, soapsmtp.SyncFiles) })
	b.Run("soapwire-syncfs", func(b *testing.B) { benchSoapwire(b, soapsmtp.SyncFilesystem) })
	b.Run("soapwire-journal", func(b *testing.B) { benchSoapwire(b, soapsmtp.SyncJournal) })
}

// memBackend is the raw baseline's server backend.
type memBackend struct {
	mu    sync.Mutex
	mails [][]byte
	n     atomic.Int64
}

func (be *memBackend) NewSession(*gosmtp.Conn) (gosmtp.Session, error) {
	return &memSession{be: be}, nil
}

func (be *memBackend) received() int64 { return be.n.Load() }

type memSession struct{ be *memBackend }

func (s *memSession) Reset()                                 {}
func (s *memSession) Logout() error                          { return nil }
func (s *memSession) Mail(string, *gosmtp.MailOptions) error { return nil }
func (s *memSession) Rcpt(string, *gosmtp.RcptOptions) error { return nil }
func (s *memSession) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	s.be.mu.Lock()
	s.be.mails = append(s.be.mails, b)
	s.be.mu.Unlock()
	s.be.n.Add(1)
	return nil
}

// fileBackend is a backend that stores each mail durably, Maildir style.
type fileBackend struct {
	dir string
	seq atomic.Int64
	n   atomic.Int64
}

func (be *fileBackend) NewSession(*gosmtp.Conn) (gosmtp.Session, error) {
	return &fileSession{be: be}, nil
}

func (be *fileBackend) received() int64 { return be.n.Load() }

type fileSession struct{ be *fileBackend }

func (s *fileSession) Reset()                                 {}
func (s *fileSession) Logout() error                          { return nil }
func (s *fileSession) Mail(string, *gosmtp.MailOptions) error { return nil }
func (s *fileSession) Rcpt(string, *gosmtp.RcptOptions) error { return nil }
func (s *fileSession) Data(r io.Reader) error {
	name := fmt.Sprintf("%d.%d", time.Now().UnixNano(), s.be.seq.Add(1))
	tmp, dst := filepath.Join(s.be.dir, "tmp-"+name), filepath.Join(s.be.dir, "new", name)
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = io.Copy(f, r)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, dst)
	}
	if err == nil {
		var d *os.File
		if d, err = os.Open(filepath.Join(s.be.dir, "new")); err == nil {
			err = d.Sync()
			d.Close()
		}
	}
	if err != nil {
		return err
	}
	s.be.n.Add(1)
	return nil
}

// benchMailBytes is the mail the raw baseline sends: the headers and
// body the Sender would write for benchDoc.
func benchMailBytes() []byte {
	m := core.NewMessage(core.V12, core.RawBody(benchDoc))
	m.ID, m.To, m.Action = core.NewMessageID(), "mailto:soap@example.test", "urn:example:po:order"
	var env bytes.Buffer
	m.Write(&env, core.WriteOptions{XMLDeclaration: true})
	head := "From: <sender@example.test>\r\nTo: <soap@example.test>\r\nSubject: urn:example:po:order\r\n" +
		"Date: " + time.Now().Format(time.RFC1123Z) + "\r\nMessage-ID: " + soapsmtp.MessageIDHeader(m.ID) + "\r\n" +
		"X-Loop: sender@example.test\r\nMIME-Version: 1.0\r\n" +
		"Content-Type: application/soap+xml; action=\"urn:example:po:order\"; charset=utf-8\r\n" +
		"Content-Transfer-Encoding: quoted-printable\r\n\r\n"
	return append([]byte(head), env.Bytes()...)
}

// run sends b.N mails from benchConcurrency goroutines with send and
// returns when done() says all were received.
func run(b *testing.B, send func(i int) error, received func() int64) {
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, benchConcurrency)
	start, cpu0, sys0 := time.Now(), cpuTime(), sysTime()
	b.ResetTimer()
	for range benchConcurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1)
				if i > int64(b.N) {
					return
				}
				if err := send(int(i)); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	for received() < int64(b.N) {
		select {
		case err := <-errs:
			b.Fatal(err)
		case <-time.After(100 * time.Microsecond):
		}
	}
	elapsed, cpu, sys := time.Since(start), cpuTime()-cpu0, sysTime()-sys0
	b.StopTimer()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "msgs/s")
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/msg")
	b.ReportMetric(float64(sys.Microseconds())/float64(b.N), "sys-µs/msg")
}

// rawBackend is a baseline's backend.
type rawBackend interface {
	gosmtp.Backend
	received() int64
}

func benchRaw(b *testing.B, be rawBackend) {
	if fb, ok := be.(*fileBackend); ok {
		require.NoError(b, os.Mkdir(filepath.Join(fb.dir, "new"), 0o700))
	}
	srv := gosmtp.NewServer(be)
	srv.Domain = "localhost"
	srv.ErrorLog = logAdapterDiscard{}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(b, err)
	go srv.Serve(l)
	defer srv.Close()
	clients := make(chan *gosmtp.Client, benchConcurrency)
	for range benchConcurrency {
		c, err := gosmtp.Dial(l.Addr().String())
		require.NoError(b, err)
		require.NoError(b, c.Hello("client.example.test"))
		defer c.Close()
		clients <- c
	}
	mail := benchMailBytes()
	run(b, func(int) error {
		c := <-clients
		defer func() { clients <- c }()
		if err := c.Mail("sender@example.test", &gosmtp.MailOptions{Size: int64(len(mail))}); err != nil {
			return err
		}
		if err := c.Rcpt("soap@example.test", nil); err != nil {
			return err
		}
		w, err := c.Data()
		if err != nil {
			return err
		}
		if _, err := w.Write(mail); err != nil {
			return err
		}
		return w.Close()
	}, be.received)
}

func benchSoapwire(b *testing.B, mode soapsmtp.SyncMode) {
	mb, err := soapsmtp.OpenMaildir(b.TempDir(), soapsmtp.WithSyncMode(mode))
	require.NoError(b, err)
	var batches, mails atomic.Int64
	soapsmtp.SetSyncHook(mb, func(stage string, names []string) error {
		if stage == "data" {
			batches.Add(1)
			mails.Add(int64(len(names)))
		}
		return nil
	})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(b, err)
	ctx, cancel := context.WithCancel(context.Background())
	srv := soapsmtp.NewServer(l.Addr().String(), mb, soapsmtp.WithAddresses("soap@example.test"), soapsmtp.WithHostname("localhost"))
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, l) }()

	var got atomic.Int64
	h := core.HandlerFunc(func(_ context.Context, m *core.Message) (*core.Message, error) {
		if _, err := m.Body().WriteTo(io.Discard); err != nil {
			return nil, err
		}
		got.Add(1)
		return nil, nil
	})
	r := soapsmtp.NewReceiver(mb)
	serving := make(chan error, 1)
	go func() { serving <- core.Serve(ctx, r, h, nil, core.WithConcurrency(benchConcurrency)) }()

	s, err := soapsmtp.NewSender(l.Addr().String(), "sender@example.test", soapsmtp.WithMaxSessions(benchConcurrency), soapsmtp.WithHostname("client.example.test"))
	require.NoError(b, err)
	defer func() {
		s.Close()
		cancel()
		<-serving
		r.Close()
		<-served
	}()
	run(b, func(int) error {
		m := core.NewMessage(core.V12, core.RawBody(benchDoc))
		m.To, m.Action = "mailto:soap@example.test", "urn:example:po:order"
		return s.Send(ctx, m)
	}, got.Load)
	if n := batches.Load(); n > 0 {
		b.ReportMetric(float64(mails.Load())/float64(n), "mails/batch")
	}
}

// logAdapterDiscard silences go-smtp's log in the baseline.
type logAdapterDiscard struct{}

func (logAdapterDiscard) Printf(string, ...any) {}
func (logAdapterDiscard) Println(...any)        {}
