package ftp

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	server "goftp.io/server/v2"
	"goftp.io/server/v2/driver/file"
)

// The embedded server's listings (LIST, NLST, MLSD), in goftp's formats:
// they travel on its own data connections (see serverdata.go).

// listed is a file in a listing, with the mode, owner and group the Perm gives.
type listed struct {
	os.FileInfo
	mode         os.FileMode
	owner, group string
}

// entries lists p: a folder's files, or the file itself. dirOnly refuses a
// file (NLST).
func (d *dataCommands) entries(sess *server.Session, cmd, p, param string, dirOnly bool) ([]listed, error) {
	ctx := d.ctx(sess, cmd, param)
	info, err := d.drv.Stat(ctx, p)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		if dirOnly {
			return nil, fmt.Errorf("%s is not a folder", p)
		}
		e, err := d.listed(info, p)
		return []listed{e}, err
	}
	var out []listed
	err = d.drv.ListDir(ctx, p, func(f os.FileInfo) error {
		e, err := d.listed(f, path.Join(p, f.Name()))
		out = append(out, e)
		return err
	})
	return out, err
}

func (d *dataCommands) listed(f os.FileInfo, p string) (listed, error) {
	e := listed{FileInfo: f}
	var err error
	if e.mode, err = d.perm.GetMode(p); err != nil {
		return e, err
	}
	if f.IsDir() {
		e.mode |= os.ModeDir
	}
	if e.owner, err = d.perm.GetOwner(p); err != nil {
		return e, err
	}
	e.group, err = d.perm.GetGroup(p)
	return e, err
}

// listing lists for cmd and sends what format makes of it.
func (d *dataCommands) listing(sess *server.Session, st *dataSession, cmd, param, dir string, dirOnly bool, format func([]listed) []byte) {
	files, err := d.entries(sess, cmd, sess.BuildPath(dir), param, dirOnly)
	if err != nil {
		d.drop(st)
		d.log.Debug("ftp server: "+cmd, slog.String("path", dir), slog.Any("err", err))
		sess.WriteMessage(550, "No such folder")
		return
	}
	d.send(sess, st, format(files))
}

// list answers LIST: ls -l lines.
func (d *dataCommands) list(sess *server.Session, st *dataSession, param string) {
	d.listing(sess, st, "LIST", param, listPath(param), false, func(files []listed) []byte {
		var b bytes.Buffer
		yearAgo := time.Now().AddDate(-1, 0, 0)
		for _, f := range files {
			fmt.Fprintf(&b, "%s 1 %s %s %12d", f.mode, f.owner, f.group, f.Size())
			if f.ModTime().Before(yearAgo) {
				b.WriteString(f.ModTime().Format(" Jan _2  2006 "))
			} else {
				b.WriteString(f.ModTime().Format(" Jan _2 15:04 "))
			}
			b.WriteString(f.Name() + "\r\n")
		}
		return b.Bytes()
	})
}

// nlst answers NLST: names.
func (d *dataCommands) nlst(sess *server.Session, st *dataSession, param string) {
	d.listing(sess, st, "NLST", param, listPath(param), true, func(files []listed) []byte {
		var b bytes.Buffer
		for _, f := range files {
			b.WriteString(f.Name() + "\r\n")
		}
		return b.Bytes()
	})
}

// mlsd answers MLSD (RFC 3659): facts and name.
func (d *dataCommands) mlsd(sess *server.Session, st *dataSession, param string) {
	d.listing(sess, st, "MLSD", param, param, true, func(files []listed) []byte {
		var b bytes.Buffer
		for _, f := range files {
			kind := "file"
			if f.IsDir() {
				kind = "dir"
			}
			b.WriteString("Type=" + kind + ";Modify=" + f.ModTime().UTC().Format("20060102150405") +
				";Size=" + strconv.FormatInt(f.Size(), 10) + "; " + f.Name() + "\r\n")
		}
		return b.Bytes()
	})
}

// listPath is LIST's and NLST's path, without the ls options before it
// ("-la dir" lists dir).
func listPath(param string) string {
	rest := strings.TrimLeft(param, " ")
	for strings.HasPrefix(rest, "-") {
		i := strings.IndexByte(rest, ' ')
		if i < 0 {
			return ""
		}
		rest = strings.TrimLeft(rest[i:], " ")
	}
	return rest
}

// steadyDriver is goftp's file driver, but for listings: a file that
// vanishes while its folder is listed (renamed or deleted by another
// session, as Pollers sharing an inbox do all the time) is passed over,
// where goftp's ListDir fails the whole listing.
type steadyDriver struct{ *file.Driver }

func (d steadyDriver) ListDir(_ *server.Context, p string, fn func(os.FileInfo) error) error {
	dir := filepath.Join(append([]string{d.RootPath}, strings.Split(p, "/")...)...)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		info, err := e.Info()
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		if err := fn(info); err != nil {
			return err
		}
	}
	return nil
}
