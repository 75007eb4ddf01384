package ftp

import (
	"fmt"
	"path"
	"strings"
)

// Layout names the folders of a drop endpoint, each relative to the
// endpoint's root folder.
type Layout struct {
	// Inbox is where senders drop messages (default "inbox").
	Inbox string
	// Work is where a Poller moves a file it claims (default "work").
	Work string
	// Outbox is where replies go for messages whose ReplyTo is anonymous
	// or absent, and faults for those whose FaultTo is anonymous: the file
	// drop's back-channel (default "outbox"; "" for none).
	Outbox string
	// Failed is where a Nacked or unreadable file is parked, with a
	// .fault.xml beside it saying why (default "failed").
	Failed string
	// Done, when set, is where an Acked file is moved instead of being
	// deleted (default "", delete).
	Done string
}

// DefaultLayout returns inbox, work, outbox and failed, and no done folder.
func DefaultLayout() Layout {
	return Layout{Inbox: "inbox", Work: "work", Outbox: "outbox", Failed: "failed"}
}

// folders is a Layout resolved against a root: absolute, clean paths.
type folders struct {
	root, inbox, work, outbox, failed, done string
}

func (l Layout) resolve(root string) (folders, error) {
	r, err := cleanDir(root)
	if err != nil {
		return folders{}, fmt.Errorf("%w: root %q: %v", ErrAddress, root, err)
	}
	f := folders{root: r}
	seen := map[string]string{}
	for _, x := range []struct {
		what, name string
		dst        *string
		required   bool
	}{
		{"Inbox", l.Inbox, &f.inbox, true},
		{"Work", l.Work, &f.work, true},
		{"Failed", l.Failed, &f.failed, true},
		{"Outbox", l.Outbox, &f.outbox, false},
		{"Done", l.Done, &f.done, false},
	} {
		if x.name == "" {
			if x.required {
				return folders{}, fmt.Errorf("ftp: layout: %s folder not set", x.what)
			}
			continue
		}
		if strings.HasPrefix(x.name, "/") {
			return folders{}, fmt.Errorf("ftp: layout: %s folder %q is absolute; it is relative to the root", x.what, x.name)
		}
		rel, err := cleanDir(x.name)
		d := path.Join(r, rel)
		if err != nil || d == r {
			return folders{}, fmt.Errorf("ftp: layout: %s folder %q is not a folder below the root", x.what, x.name)
		}
		if other, dup := seen[d]; dup {
			return folders{}, fmt.Errorf("ftp: layout: %s and %s are the same folder %s", other, x.what, d)
		}
		seen[d] = x.what
		*x.dst = d
	}
	return f, nil
}

func (f folders) all() []string {
	var out []string
	for _, d := range []string{f.inbox, f.work, f.outbox, f.failed, f.done} {
		if d != "" {
			out = append(out, d)
		}
	}
	return out
}
