package main

import (
	"bufio"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/textproto"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/soapwire/soapwire/bench/internal/child"
	soapfile "github.com/soapwire/soapwire/bindings/file"
	"github.com/soapwire/soapwire/core"
)

// The file-drop mode (-transport file): the client drops the message as one
// MIME file (soapfile.Sender: written under a temporary name, renamed into
// the endpoint's inbox) and each server, in a child process of its own,
// takes it from there:
//
//   - soapwire: a soapfile.Poller under core.Serve, the same store handler
//     as over HTTP (core.Binary resolves the xop:Include to its part, which
//     is copied to the destination file), the reply dropped in the
//     endpoint's outbox (the Poller's answer to an anonymous ReplyTo);
//   - plain: a loop that lists the inbox every 2 ms, renames a file into
//     work/, reads its MIME header with net/textproto and the package with
//     mime/multipart, copies the second part to the destination file and
//     writes the same reply into the outbox (temporary name, rename). No
//     SOAP.
//
// A round's time runs from the rename that makes the file appear in the
// inbox to the reply's appearance in the outbox (listed every 2 ms); the
// time the client took to write the file is reported beside it.

// fileKinds are the servers of the file mode, as serveEnv names them.
var fileKinds = map[string]string{"soapwire": "file-soapwire", "plain": "file-plain"}

// bench is the request body: the name and the attachment, a core.Binary
// (an xop:Include under MTOM).
type bench struct {
	XMLName xml.Name    `xml:"urn:soapwire:attach1g store"`
	Name    string      `xml:"urn:soapwire:attach1g name"`
	Data    core.Binary `xml:"urn:soapwire:attach1g data"`
}

// partReader generates the part's bytes (block(), repeated) as they are
// read.
type partReader struct {
	part      []byte
	size, off int64
}

func (r *partReader) Read(b []byte) (int, error) {
	if r.off >= r.size {
		return 0, io.EOF
	}
	end := min(r.size-r.off, int64(len(b)))
	n := 0
	for int64(n) < end {
		n += copy(b[n:end], r.part[(r.off+int64(n))%blockSize:])
	}
	r.off += int64(n)
	return n, nil
}

// fileMessage is the dropped message: SOAP 1.1, MTOM, its data a part of
// size bytes generated as the file is written.
func fileMessage(to string, size int64) *core.Message {
	m := core.NewMessage(core.V11, core.Body{})
	m.ID, m.To, m.Action, m.Packaging = core.NewMessageID(), to, docNS+"#store", core.MTOM
	part := block()
	data := m.AttachBinary(core.NewAttachment("image/tiff", func() (io.ReadCloser, error) {
		return io.NopCloser(&partReader{part: part, size: size}), nil
	}, size))
	data.ContentType = "image/tiff"
	m.Envelope.Body = core.ValueBody(&bench{Name: "scan.tiff", Data: data})
	return m
}

// runFile is run for the file mode: both servers, rounds drops each.
func runFile(ctx context.Context, size int64, rounds int, keep string) (result, error) {
	res := result{Size: size, Times: map[string][]time.Duration{}, Writes: map[string][]time.Duration{},
		PeakRSS: map[string]int64{}, Files: map[string]string{}, Transport: "file"}
	tmp, err := os.MkdirTemp("", "attach1g-file-")
	if err != nil {
		return res, err
	}
	defer os.RemoveAll(tmp)
	dir := keep
	if dir == "" {
		dir = tmp
	}
	spool := filepath.Join(tmp, "spool")
	if err := os.Mkdir(spool, 0o700); err != nil {
		return res, err
	}
	sender, err := soapfile.NewSender(tmp)
	if err != nil {
		return res, err
	}
	defer sender.Close()
	children := map[string]*child.Process{}
	for _, s := range servers {
		res.Files[s] = filepath.Join(dir, s+".bin")
		c, err := child.Start(serveEnv, fileKinds[s]+"|"+res.Files[s]+"|"+spool+"|"+filepath.Join(tmp, "ep-"+s))
		if err != nil {
			return res, err
		}
		defer c.Stop()
		children[s] = c
	}
	for i := 0; i < rounds; i++ {
		order := servers
		if i%2 == 1 {
			order = []string{servers[1], servers[0]}
		}
		for _, s := range order {
			ep := children[s].Addr // the child prints its endpoint's folder
			m := fileMessage(soapfile.URL(filepath.Join(ep, "inbox")), size)
			start := time.Now()
			if err := sender.Send(ctx, m); err != nil {
				return res, fmt.Errorf("attach1g: dropping for %s: %w", s, err)
			}
			dropped := time.Now()
			if res.Posted == 0 {
				empty := fileMessage(m.To, 0) // the same lengths but the part's
				res.Posted = int64(len(mimeHeader(empty))) + packageLen(empty) + size
			}
			n, err := awaitReply(ctx, filepath.Join(ep, "outbox"))
			if err != nil {
				return res, fmt.Errorf("attach1g: %s server: %w", s, err)
			}
			if n != size {
				return res, fmt.Errorf("attach1g: the %s server stored %d bytes of %d", s, n, size)
			}
			res.Times[s] = append(res.Times[s], time.Since(dropped))
			res.Writes[s] = append(res.Writes[s], dropped.Sub(start))
		}
	}
	for _, s := range servers {
		if res.PeakRSS[s], err = memStat(children[s].Pid(), "VmHWM"); err != nil {
			return res, err
		}
	}
	return res, nil
}

// mimeHeader is the header a MIME file starts with.
func mimeHeader(m *core.Message) string {
	return "MIME-Version: 1.0\r\nContent-Type: " + m.ContentType() + "\r\n\r\n"
}

// packageLen is the length of m's package as WriteTo writes it.
func packageLen(m *core.Message) int64 {
	n, _ := m.WriteTo(io.Discard)
	return n
}

// awaitReply waits for a reply file in outbox, reads the byte count it
// holds and removes it.
func awaitReply(ctx context.Context, outbox string) (int64, error) {
	for {
		ents, err := os.ReadDir(outbox)
		if err != nil {
			return 0, err
		}
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), ".") || !strings.HasSuffix(e.Name(), ".xml") {
				continue
			}
			p := filepath.Join(outbox, e.Name())
			data, err := os.ReadFile(p)
			if err != nil {
				return 0, err
			}
			os.Remove(p)
			return storedBytes(data)
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(2 * time.Millisecond):
		}
	}
}

// storedBytes reads the count of a reply's a:bytes.
func storedBytes(reply []byte) (int64, error) {
	s := string(reply)
	i := strings.Index(s, "bytes>")
	j := strings.Index(s, "</a:bytes>")
	if i < 0 || j < i {
		return 0, fmt.Errorf("not a reply of the store handler: %.300q", reply)
	}
	return strconv.ParseInt(s[i+len("bytes>"):j], 10, 64)
}

// serveFile runs a file-drop server of the given kind on the endpoint ep,
// storing parts in path, prints ep and serves until stdin closes.
func serveFile(kind, path, spoolDir, ep string) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, d := range []string{"", "inbox", "work", "outbox", "failed"} {
		if err := os.MkdirAll(filepath.Join(ep, d), 0o755); err != nil {
			return err
		}
	}
	done := make(chan error, 1)
	switch kind {
	case "file-soapwire":
		p, err := soapfile.NewPoller(ep, soapfile.WithPollInterval(2*time.Millisecond), soapfile.WithMaxPollInterval(2*time.Millisecond),
			soapfile.WithLimits(core.Limits{MaxPartBytes: -1, MaxPackageBytes: -1, SpoolDir: spoolDir}), soapfile.WithSpool(soapfile.DefaultSpoolMemory, spoolDir))
		if err != nil {
			return err
		}
		replies, err := soapfile.NewSender(ep)
		if err != nil {
			return err
		}
		go func() { done <- core.Serve(ctx, p, store(path), replies) }()
	case "file-plain":
		go func() { done <- plainDrop(ctx, ep, path) }()
	default:
		return fmt.Errorf("attach1g: no server %q", kind)
	}
	fmt.Println(ep)
	go func() {
		io.Copy(io.Discard, os.Stdin)
		cancel()
	}()
	if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}

// plainDrop is the baseline of the file mode (see above).
func plainDrop(ctx context.Context, ep, path string) error {
	for {
		ents, err := os.ReadDir(filepath.Join(ep, "inbox"))
		if err != nil {
			return err
		}
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), ".") || !strings.HasSuffix(e.Name(), ".xml") {
				continue
			}
			work := filepath.Join(ep, "work", e.Name())
			if err := os.Rename(filepath.Join(ep, "inbox", e.Name()), work); err != nil {
				return err
			}
			n, err := plainCopy(work, path)
			if err != nil {
				return err
			}
			reply := fmt.Appendf(nil, `<a:stored xmlns:a="%s"><a:bytes>%d</a:bytes></a:stored>`, docNS, n)
			tmp := filepath.Join(ep, "outbox", ".reply.part")
			if err := os.WriteFile(tmp, reply, 0o644); err != nil {
				return err
			}
			if err := os.Rename(tmp, filepath.Join(ep, "outbox", "reply-"+e.Name())); err != nil {
				return err
			}
			if err := os.Remove(work); err != nil {
				return err
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(2 * time.Millisecond):
		}
	}
}

// plainCopy copies the second part of the MIME file at src to dst.
func plainCopy(src, dst string) (int64, error) {
	f, err := os.Open(src)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	h, err := textproto.NewReader(br).ReadMIMEHeader()
	if err != nil {
		return 0, err
	}
	_, params, err := mime.ParseMediaType(h.Get("Content-Type"))
	if err != nil {
		return 0, err
	}
	mr := multipart.NewReader(br, params["boundary"])
	var n int64
	for i := 0; ; i++ {
		p, err := mr.NextPart()
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		if i == 0 {
			io.Copy(io.Discard, p)
			continue
		}
		k, err := copyToFile(dst, p)
		n += k
		if err != nil {
			return n, err
		}
	}
}
