package drop

import (
	"bytes"
	"io"
	"time"

	"github.com/soapwire/soapwire/core"
)

// A file in the inbox may still be growing: a partner's tool that uploads
// under the final name (a plain STOR or SFTP put, as most tools do) makes
// the file appear as soon as the upload starts, empty, and fills it as the
// data arrives. The Poller therefore takes a file as it is only when it
// looks finished: its last bytes are an Envelope end tag, or, for a MIME
// file (a message with attachments, mimefile.go), its package's closing
// delimiter. A file that does not (empty, cut short, or not an envelope at all) is returned to the
// inbox and taken again only after it stopped changing: once its listed
// size or modification time changed, when it has kept them for one
// listing; once a download of a size was found unfinished, when that size
// and time have held for the settle time (Config.Settle). Then it is read
// as it is, and parked when it is not a message; and since an upload that
// only paused goes on into the parked file, the Poller watches the files
// it parked that way and returns one that changes to the inbox
// (watch.go). Files written by a Sender, or uploaded under a dot name and
// renamed, are whole when they appear, and are taken at once.

// maxSightings bounds what a Poller remembers of unfinished files.
const maxSightings = 4096

// sighting is what a Poller knows of a file in its inbox that looked
// unfinished: its size and modification time, since when it has had them,
// and whether a download of that size was found unfinished.
type sighting struct {
	size    int64
	mtime   time.Time
	since   time.Time
	checked bool
}

// settledEnough reports whether a listed file is to be claimed, and notes a change
// of size or time; p.mu held.
func (p *Poller) settledEnough(e Entry, now time.Time) bool {
	s, ok := p.sightings[e.Name]
	switch {
	case !ok:
		return true
	case s.size != e.Size || !s.mtime.Equal(e.ModTime):
		// Still growing (or replaced): look again after one listing.
		p.sightings[e.Name] = sighting{size: e.Size, mtime: e.ModTime, since: now}
		return false
	case !s.checked:
		return true // unchanged for a listing since it changed: try it
	}
	return now.Sub(s.since) >= p.cfg.Settle
}

// settled reports whether a downloaded file that looks unfinished is to be
// taken as it is: a download of the same size was found unfinished at least
// the settle time ago, and the listed time has not moved since. If not, it
// notes the size, and the caller returns the file to the inbox.
func (p *Poller) settled(e Entry, size int64) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	s, ok := p.sightings[e.Name]
	if ok && s.size == size && s.mtime.Equal(e.ModTime) && s.checked && now.Sub(s.since) >= p.cfg.Settle {
		delete(p.sightings, e.Name)
		return true
	}
	if !ok || s.size != size || !s.mtime.Equal(e.ModTime) {
		s = sighting{size: size, mtime: e.ModTime, since: now}
	}
	s.checked = true
	if !ok && len(p.sightings) >= maxSightings {
		clear(p.sightings) // a flood of names: start over (files wait longer, none is lost)
	}
	p.sightings[e.Name] = s
	return false
}

// taken forgets a file's sighting once it was taken whole.
func (p *Poller) taken(name string) {
	p.mu.Lock()
	delete(p.sightings, name)
	p.mu.Unlock()
}

// pruneSightings forgets the files a listing no longer shows (but those
// in transfer, claimed out of the inbox for now); p.mu held.
func (p *Poller) pruneSightings(listed map[string]struct{}) {
	for name := range p.sightings {
		_, busy := p.inflight[name]
		if _, ok := listed[name]; !ok && !busy {
			delete(p.sightings, name)
		}
	}
}

// tailLen is how much of a file's end finished reads.
const tailLen = 256

// finished reports whether a downloaded file looks whole.
func (s *spool) finished() bool {
	if s.size == 0 {
		return false
	}
	var tail []byte
	if s.f == nil {
		tail = s.mem[max(0, len(s.mem)-tailLen):]
	} else {
		n := min(s.size, tailLen)
		tail = make([]byte, n)
		if _, err := s.f.ReadAt(tail, s.size-n); err != nil {
			return false
		}
	}
	if head := s.head(MaxFileHeaderBytes); isMIME(head) {
		if end := packageEnd(head); end != "" {
			return endsWithDelimiter(tail, end)
		}
	}
	return endsWithEnvelope(tail)
}

// endsWithEnvelope reports whether b ends, but for XML white space, with
// the end tag of an element whose local name is Envelope: </Envelope> or
// </prefix:Envelope>, with optional white space before '>'. A file cut
// short anywhere before its root's end tag fails it.
func endsWithEnvelope(b []byte) bool {
	b = bytes.TrimRight(b, " \t\r\n")
	if len(b) == 0 || b[len(b)-1] != '>' {
		return false
	}
	b = bytes.TrimRight(b[:len(b)-1], " \t\r\n")
	i := bytes.LastIndex(b, []byte("</"))
	if i < 0 {
		return false
	}
	name := b[i+2:]
	if j := bytes.IndexByte(name, ':'); j >= 0 {
		prefix := name[:j]
		if !plainName(prefix) {
			return false
		}
		name = name[j+1:]
	}
	return string(name) == "Envelope"
}

// plainName reports whether b is a non-empty XML name without a colon, as
// far as ASCII goes (any byte from 0x80 up is taken as a name character).
func plainName(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for i, c := range b {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_', c >= 0x80:
		case i > 0 && (c >= '0' && c <= '9' || c == '-' || c == '.'):
		default:
			return false
		}
	}
	return true
}

// check reads the spooled message to its end (a MIME file's every part),
// and rewinds the spool.
func (s *spool) check(l core.Limits) error {
	m, err := readFile(s.reader(), s.head(headLen), l)
	if err == nil {
		err = m.Body().Discard()
		if cerr := m.Close(); err == nil {
			err = cerr
		}
	}
	if s.f != nil {
		if _, serr := s.f.Seek(0, io.SeekStart); err == nil && serr != nil {
			err = serr
		}
	}
	return err
}
