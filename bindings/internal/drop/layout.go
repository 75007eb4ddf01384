package drop

import (
	"fmt"
	"net"
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
	// Quarantine is where a file the Poller will not take (its name is not
	// one a message can have: not *.xml, too long, starting with '-' …) is
	// moved out of the inbox (default "quarantine"; "" leaves such files
	// in the inbox). Either way it is logged once, its name escaped. A
	// name that is unsafe to send back to the server (control characters,
	// separators, invalid UTF-8) is always left where it is.
	Quarantine string
}

// DefaultLayout returns inbox, work, outbox, failed and quarantine, and no
// done folder.
func DefaultLayout() Layout {
	return Layout{Inbox: "inbox", Work: "work", Outbox: "outbox", Failed: "failed", Quarantine: "quarantine"}
}

// folders is a Layout resolved against a root: absolute, clean paths.
type folders struct {
	root, inbox, work, outbox, failed, done, quarantine string
}

func (l Layout) resolve(root string) (folders, error) {
	r, err := CleanDir(root)
	if err != nil {
		return folders{}, fmt.Errorf("root %q: %v", root, err)
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
		{"Quarantine", l.Quarantine, &f.quarantine, false},
	} {
		if x.name == "" {
			if x.required {
				return folders{}, fmt.Errorf("layout: %s folder not set", x.what)
			}
			continue
		}
		if strings.HasPrefix(x.name, "/") {
			return folders{}, fmt.Errorf("layout: %s folder %q is absolute; it is relative to the root", x.what, x.name)
		}
		rel, err := CleanDir(x.name)
		d := path.Join(r, rel)
		if err != nil || d == r {
			return folders{}, fmt.Errorf("layout: %s folder %q is not a folder below the root", x.what, x.name)
		}
		if other, dup := seen[d]; dup {
			return folders{}, fmt.Errorf("layout: %s and %s are the same folder %s", other, x.what, d)
		}
		seen[d] = x.what
		*x.dst = d
	}
	return f, nil
}

func (f folders) all() []string {
	var out []string
	for _, d := range []string{f.inbox, f.work, f.outbox, f.failed, f.done, f.quarantine} {
		if d != "" {
			out = append(out, d)
		}
	}
	return out
}

// CleanDir checks a folder path and makes it absolute and clean: a control
// character, a backslash or a ".." element is refused.
func CleanDir(p string) (string, error) {
	for _, r := range p {
		if r < 0x20 || r == 0x7f {
			return "", fmt.Errorf("control character in path")
		}
	}
	if strings.Contains(p, `\`) {
		return "", fmt.Errorf("backslash in path")
	}
	for _, el := range strings.Split(p, "/") {
		if el == ".." {
			return "", fmt.Errorf(`".." in path`)
		}
	}
	return path.Clean("/" + p), nil
}

// ValidHost reports whether h (lower case, no port) is an IP address or a
// DNS name: what the bindings accept as the host of an address.
func ValidHost(h string) bool {
	if net.ParseIP(h) != nil {
		return true
	}
	if h == "" || len(h) > 253 {
		return false
	}
	for _, label := range strings.Split(strings.TrimSuffix(h, "."), ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '-' && c != '_' {
				return false
			}
		}
	}
	return true
}
