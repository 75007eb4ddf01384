// Command sftp1g drops one very large SOAP document (1 GiB by default)
// through SFTP, the whole way: a soapwire Sender uploads it to an embedded
// SFTP server as it generates it, a Poller claims and downloads it (the
// spool holds 1 MiB in memory, the rest in an unlinked temporary file), and
// core.Serve hands it to a handler that reads the body to its end. It
// reports this process's peak memory (VmHWM from /proc/self/status) and
// fails above -max-rss: everything streams, so the peak stays flat however
// large the document is. The server, the client and the Poller all run in
// this one process, so the bound covers all three.
//
//	go run ./bench/sftp1g                   # 1 GiB, fails above 64 MiB peak RSS
//	go run ./bench/sftp1g -size 256MiB -max-rss 64MiB
package main

import (
	"context"
	"encoding/xml"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"strconv"
	"strings"
	"time"

	soapsftp "github.com/soapwire/soapwire/bindings/sftp"
	"github.com/soapwire/soapwire/core"
)

const docNS = "urn:soapwire:sftp1g"

func main() {
	size := flag.String("size", "1GiB", "document size: bytes, or with a KiB, MiB or GiB suffix")
	maxRSS := flag.String("max-rss", "64MiB", "fail when this process's peak RSS is above this")
	flag.Parse()
	n, err1 := parseSize(*size)
	limit, err2 := parseSize(*maxRSS)
	if err := errors.Join(err1, err2); err != nil {
		log.Fatal(err)
	}
	res, err := run(context.Background(), n)
	if err != nil {
		log.Fatal(err)
	}
	res.print(os.Stdout, limit)
	if res.PeakRSS > limit {
		os.Exit(1)
	}
}

// parseSize reads "1073741824", "512MiB", "1GiB" or "64KiB".
func parseSize(s string) (int64, error) {
	mult := int64(1)
	for suffix, m := range map[string]int64{"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30} {
		if strings.HasSuffix(s, suffix) {
			s, mult = strings.TrimSuffix(s, suffix), m
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("sftp1g: bad size %q", s)
	}
	return n * mult, nil
}

// result is what a run measured.
type result struct {
	Size    int64         // body bytes generated
	Read    int64         // body bytes the handler read
	Sent    time.Duration // the upload
	Elapsed time.Duration // from the first byte sent to the Ack
	PeakRSS int64         // this process's VmHWM
}

func (r result) print(w io.Writer, limit int64) {
	mib := func(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
	verdict := "ok"
	if r.PeakRSS > limit {
		verdict = "OVER THE LIMIT"
	}
	fmt.Fprintf(w, "dropped a %s body through SFTP: uploaded in %v, received and read in %v in all (%.0f MB/s)\n",
		mib(r.Size), r.Sent.Round(time.Millisecond), r.Elapsed.Round(time.Millisecond), float64(r.Size)/r.Elapsed.Seconds()/1e6)
	fmt.Fprintf(w, "the handler read %d bytes of body\n", r.Read)
	fmt.Fprintf(w, "peak RSS (VmHWM) of the process (server, client, poller): %s, limit %s: %s\n", mib(r.PeakRSS), mib(limit), verdict)
}

// run drops one document of about size body bytes and waits for its Ack.
func run(ctx context.Context, size int64) (result, error) {
	root, err := os.MkdirTemp("", "sftp1g-root")
	if err != nil {
		return result{}, err
	}
	defer os.RemoveAll(root)
	spool, err := os.MkdirTemp("", "sftp1g-spool")
	if err != nil {
		return result{}, err
	}
	defer os.RemoveAll(spool)
	srv, err := soapsftp.StartServer(root, "bench", soapsftp.WithPassword("bench"))
	if err != nil {
		return result{}, err
	}
	defer srv.Close()
	c := soapsftp.NewClient(srv.Addr(), "bench", soapsftp.WithPassword("bench"), soapsftp.WithHostKey(srv.HostKey()))
	defer c.Close()
	p, err := soapsftp.NewPoller(c, "/drop", soapsftp.WithLimits(core.Limits{MaxBytes: -1}), soapsftp.WithSpool(1<<20, spool))
	if err != nil {
		return result{}, err
	}
	defer p.Close()
	if err := p.MakeLayout(ctx); err != nil {
		return result{}, err
	}

	read := make(chan int64, 1)
	h := core.HandlerFunc(func(_ context.Context, m *core.Message) (*core.Message, error) {
		n, err := m.Body().WriteTo(io.Discard)
		read <- n
		return nil, err
	})
	sctx, stop := context.WithCancel(ctx)
	defer stop()
	served := make(chan error, 1)
	go func() { served <- core.Serve(sctx, p, h, nil) }()

	m := core.NewMessage(core.V11, core.StreamBody(xml.Name{Space: docNS, Local: "Blob"}, func(w io.Writer) error {
		return generate(w, size)
	}))
	m.ID, m.To, m.Action = core.NewMessageID(), p.Address(), docNS+"/Blob"
	start := time.Now()
	if err := soapsftp.NewSender(c).Send(ctx, m); err != nil {
		return result{}, err
	}
	res := result{Size: size, Sent: time.Since(start)}
	select {
	case res.Read = <-read:
	case <-time.After(30 * time.Minute):
		return res, errors.New("sftp1g: not received within 30 minutes")
	}
	res.Elapsed = time.Since(start)
	stop()
	if err := <-served; err != nil {
		return res, err
	}
	res.PeakRSS = peakRSS()
	return res, nil
}

// generate writes the body, <d:Blob>: size bytes of text in 32 KiB chunks,
// never holding more.
func generate(w io.Writer, size int64) error {
	if _, err := io.WriteString(w, `<d:Blob xmlns:d="`+docNS+`">`); err != nil {
		return err
	}
	chunk := []byte(strings.Repeat("abcdefghijklmnopqrstuvwxyz012345", 1024))
	for left := size; left > 0; {
		n := min(left, int64(len(chunk)))
		if _, err := w.Write(chunk[:n]); err != nil {
			return err
		}
		left -= n
	}
	_, err := io.WriteString(w, `</d:Blob>`)
	return err
}

// peakRSS returns this process's VmHWM in bytes (0 when unknown).
func peakRSS() int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}
