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
	"net"
	"net/http"
	"os"

	"github.com/soapwire/soapwire/bench/internal/child"
	soaphttp "github.com/soapwire/soapwire/bindings/http"
	"github.com/soapwire/soapwire/core"
)

// store is the soapwire server's handler: it decodes the request, whose
// data element is an xop:Include resolved to its part (core.Binary), copies
// the part to the file and answers how many bytes it wrote.
func store(path string) core.Handler {
	return core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		var req struct {
			XMLName xml.Name    `xml:"urn:soapwire:attach1g store"`
			Name    string      `xml:"name"`
			Data    core.Binary `xml:"data"`
		}
		if err := m.Body().Decode(&req); err != nil {
			return nil, err
		}
		rc, err := req.Data.Open()
		if err != nil {
			return nil, err
		}
		defer rc.Close()
		n, err := copyToFile(path, rc)
		if err != nil {
			return nil, err
		}
		return m.Reply(core.RawBody(fmt.Appendf(nil, `<a:stored xmlns:a="%s"><a:bytes>%d</a:bytes></a:stored>`, docNS, n))), nil
	})
}

// copyToFile copies r into a new file at path through a 64 KiB buffer and
// syncs it before answering (stored means on disk), as both servers do.
func copyToFile(path string, r io.Reader) (int64, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	w := bufio.NewWriterSize(f, 64<<10)
	n, err := io.Copy(w, r)
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		err = f.Sync()
	}
	return n, errors.Join(err, f.Close())
}

// plain is the baseline: a net/http handler that reads the multipart
// upload with mime/multipart, skips the first part (the envelope) and
// copies the others to the file, answering the count. No SOAP.
func plain(path string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if err != nil || params["boundary"] == "" {
			http.Error(w, "not multipart", http.StatusUnsupportedMediaType)
			return
		}
		mr := multipart.NewReader(r.Body, params["boundary"])
		var n int64
		for i := 0; ; i++ {
			p, err := mr.NextPart()
			if err == io.EOF {
				break
			}
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			if i == 0 {
				io.Copy(io.Discard, p)
				continue
			}
			k, err := copyToFile(path, p)
			n += k
			if err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
		}
		w.Header().Set("Content-Type", "text/xml; charset=utf-8")
		fmt.Fprintf(w, `<a:stored xmlns:a="%s"><a:bytes>%d</a:bytes></a:stored>`, docNS, n)
	})
}

// serve runs a server of the given kind ("soapwire" or "plain") on a
// loopback port, storing parts in path, prints its address and serves until
// stdin closes. The soapwire one spools parts beyond 1 MiB (core's
// default) in spoolDir.
func serve(kind, path, spoolDir string) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	var h http.Handler
	switch kind {
	case "soapwire":
		h = soaphttp.NewHandler(store(path), soaphttp.WithLimits(core.Limits{
			MaxPartBytes: -1, MaxPackageBytes: -1, SpoolDir: spoolDir,
		}))
	case "plain":
		h = plain(path)
	default:
		return fmt.Errorf("attach1g: no server %q", kind)
	}
	srv := soaphttp.NewServer(ln.Addr().String(), h)
	srv.ReadTimeout, srv.WriteTimeout = 0, 0 // a gigabyte takes a while on a busy machine
	return child.Serve(srv, ln)
}
