package mail

import (
	"io"
	netmail "net/mail"
	"strings"

	"github.com/soapwire/soapwire/core"
)

// Relation reads only the header of a mail and returns the message id its
// Message-ID stands for and the id it answers (In-Reply-To, else the last
// id of References), as Read maps them. A binding calls it for a mail Read
// refused, to tell whether the mail answers a request (it then yields a
// core.UnreadableMessage instead of parking the mail at once, so a caller
// waiting for that answer learns). Both are "" when the header cannot be
// read.
func Relation(r io.Reader) (id, relatesTo string) {
	h, _, err := readHeader(r)
	if err != nil {
		return "", ""
	}
	mh := netmail.Header(h)
	parent := mh.Get("In-Reply-To")
	if strings.TrimSpace(parent) == "" {
		parent = lastMsgID(mh.Get("References"))
	}
	return IDFromMessageID(mh.Get("Message-Id")), IDFromMessageID(parent)
}

// Unreadable returns the message standing for a mail Read refused with
// err that answers relatesTo: a core.UnreadableMessage in the fault's
// version (1.2 when it has none), with the mail's id, RelatesTo and its
// file's Meta.
func Unreadable(err error, id, relatesTo string) *core.Message {
	f := core.FaultOf(err)
	v := f.Version
	if v == 0 {
		v = core.V12
	}
	m := core.UnreadableMessage(v, f)
	m.ID, m.RelatesTo = id, relatesTo
	return m
}
