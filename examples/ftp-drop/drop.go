package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"time"

	"github.com/jlaffaye/ftp"

	"github.com/soapwire/soapwire/core"
)

// plainClient is an FTP client that knows nothing of SOAP (jlaffaye/ftp
// directly): a partner's script uploading files and collecting replies.
type plainClient struct{ c *ftp.ServerConn }

func dialPlain(ctx context.Context, addr, user, password string) (*plainClient, error) {
	c, err := ftp.Dial(addr, ftp.DialWithContext(ctx), ftp.DialWithTimeout(5*time.Second))
	if err != nil {
		return nil, err
	}
	if err := c.Login(user, password); err != nil {
		c.Quit()
		return nil, err
	}
	return &plainClient{c: c}, nil
}

func (p *plainClient) Close() error { return p.c.Quit() }

// upload stores data as dir/name the safe way, as soapftp.Sender does:
// under a name starting with a dot (the Poller passes over those), then
// renamed, so that no Poller ever reads a partial file.
func (p *plainClient) upload(dir, name string, data []byte) error {
	tmp := path.Join(dir, "."+name+".part")
	if err := p.c.Stor(tmp, bytes.NewReader(data)); err != nil {
		return err
	}
	return p.c.Rename(tmp, path.Join(dir, name))
}

// waitFor lists dir until the file name is there.
func (p *plainClient) waitFor(ctx context.Context, dir, name string) error {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		names, err := p.c.NameList(dir)
		if err != nil {
			return err
		}
		for _, n := range names {
			if path.Base(n) == name {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s/%s: %w", dir, name, context.Cause(ctx))
		case <-tick.C:
		}
	}
}

// readMessage downloads a file and reads it as a SOAP message.
func (p *plainClient) readMessage(file string) (*core.Message, error) {
	r, err := p.c.Retr(file)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	data, err := io.ReadAll(io.LimitReader(r, 1<<20))
	if err != nil {
		return nil, err
	}
	return core.ReadMessageBytes(data, core.Limits{})
}

// uuidName matches the name of a file stored for a message with a
// urn:uuid id (soapftp.FileName drops the urn:uuid: prefix): the faults
// core.Serve sends get a fresh one, which listTree prints as <uuid>.
var uuidName = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(\.xml)$`)

// listTree prints every folder below root on disk with the files in it.
func listTree(w io.Writer, root string) error {
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() || p == root {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		entries, err := os.ReadDir(p)
		if err != nil {
			return err
		}
		var files []string
		for _, e := range entries {
			if !e.IsDir() {
				files = append(files, e.Name())
			}
		}
		slices.Sort(files)
		if len(files) == 0 {
			if slices.ContainsFunc(entries, fs.DirEntry.IsDir) {
				fmt.Fprintf(w, "/%s/\n", filepath.ToSlash(rel))
			} else {
				fmt.Fprintf(w, "/%s/ (empty)\n", filepath.ToSlash(rel))
			}
			return nil
		}
		fmt.Fprintf(w, "/%s/\n", filepath.ToSlash(rel))
		for _, f := range files {
			fmt.Fprintf(w, "  %s\n", uuidName.ReplaceAllString(f, "<uuid>$1"))
		}
		return nil
	})
}
