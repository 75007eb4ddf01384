package nats

import (
	"encoding/xml"
	"fmt"
	"math/bits"
	"mime"
	"strings"
	"unicode/utf8"

	"github.com/nats-io/nats.go"

	"github.com/soapwire/soapwire/core"
)

// NATS headers the binding writes on every SOAP message, modelled on the
// message properties of W3C SOAP over Java Message Service 1.0
// (SOAPJMS_contentType, SOAPJMS_soapAction, JMSMessageID,
// SOAPJMS_targetService). Names are matched without regard to case when
// read.
const (
	// HeaderContentType is the media type: "text/xml; charset=utf-8" (1.1)
	// or "application/soap+xml; charset=utf-8; action=…" (1.2). Required.
	HeaderContentType = "Content-Type"
	// HeaderSOAPAction is the action, in both versions (in 1.2 it must
	// equal the action parameter when both are present).
	HeaderSOAPAction = "SOAPAction"
	// HeaderMessageID is the message id (wsa:MessageID). JetStream drops a
	// second message with the same id inside the stream's duplicate window.
	HeaderMessageID = "Nats-Msg-Id"
	// HeaderTargetService is the address the sender targeted: the
	// message's To, else the nats: address it was sent to.
	HeaderTargetService = "SOAP-Target-Service"
)

// Headers a Receiver adds to a message it publishes to the dead-letter
// subject (beside the SOAP headers of the message, whose payload is kept
// as it was).
const (
	HeaderFaultCode     = "SOAP-Fault-Code"      // the fault's code: Sender, Receiver, …
	HeaderFaultSubcode  = "SOAP-Fault-Subcode"   // the first subcode, as {namespace}local
	HeaderFaultReason   = "SOAP-Fault-Reason"    // the fault's reason (one line, at most 1 KiB)
	HeaderDeadStream    = "SOAP-Dead-Stream"     // the stream the message came from
	HeaderDeadSequence  = "SOAP-Dead-Sequence"   // its sequence in that stream
	HeaderDeadSubject   = "SOAP-Dead-Subject"    // the subject it was published to
	HeaderDeadConsumer  = "SOAP-Dead-Consumer"   // the durable consumer that gave up
	HeaderDeadDelivered = "SOAP-Dead-Delivered"  // how many times it was delivered
	HeaderDeadMessageID = "SOAP-Dead-Message-Id" // its Nats-Msg-Id (not kept as such: the dead letter is not deduplicated by it)
)

// Namespace is the namespace of the binding's fault subcodes.
const Namespace = "urn:soapwire:nats"

// Fault subcodes (local names in Namespace) of the Sender faults that refuse
// a message whose NATS headers are missing or contradict its envelope. They
// follow SOAP over JMS's soapjms:missingContentType, contentTypeMismatch and
// mismatchedSoapAction.
const (
	SubcodeMissingContentType      = "missingContentType"
	SubcodeContentTypeMismatch     = "contentTypeMismatch"
	SubcodeMismatchedSoapAction    = "mismatchedSoapAction"
	SubcodeMismatchedMessageID     = "mismatchedMessageID"
	SubcodeMismatchedTargetService = "mismatchedTargetService"
	SubcodeMalformedHeader         = "malformedHeader" // a value that is not UTF-8 text
)

// Subcode returns the xml.Name of one of the binding's subcodes.
func Subcode(local string) xml.Name { return xml.Name{Space: Namespace, Local: local} }

// wire is what a message's NATS headers say.
type wire struct {
	ctype      string       // the Content-Type as sent; "" when absent
	pkg        bool         // ctype is multipart/related: the payload is a MIME package
	version    core.Version // from the Content-Type
	ctAction   string       // the 1.2 action parameter
	soapAction string       // the SOAPAction header, unquoted
	id         string
	target     string
}

// readHeaders reads the binding's headers into w (zero). A header sent
// twice (in any spelling) with different values, or a Content-Type that is
// not a SOAP media type, is a Sender fault (without a Version: the caller
// sets it).
func readHeaders(h nats.Header, w *wire) *core.Fault {
	var seen [4]bool
	// The spellings the binding writes, looked up; when they are all the
	// headers there are, no other spelling needs to be looked for.
	found := 0
	for i, name := range headerNames {
		if vs, ok := h[name]; ok {
			found++
			if f := w.take(i, vs, &seen); f != nil {
				return f
			}
		}
	}
	if found < len(h) {
		*w, seen = wire{}, [4]bool{}
		for k, vs := range h {
			if i := headerIndex(k); i >= 0 {
				if f := w.take(i, vs, &seen); f != nil {
					return f
				}
			}
		}
	}
	if w.ctype == "" {
		return nil
	}
	if isPackage(w.ctype) {
		// the package's root says the version and the 1.2 action
		// (core.ReadPackage checks them)
		w.pkg = true
		return nil
	}
	ct, err := parseContentType(w.ctype)
	if err != "" {
		return headerFault(SubcodeContentTypeMismatch, "Content-Type %q: %s", w.ctype, err)
	}
	w.version, w.ctAction = ct.version, ct.action
	return nil
}

// headerNames are the binding's headers, in headerIndex's order.
var headerNames = [...]string{HeaderContentType, HeaderSOAPAction, HeaderMessageID, HeaderTargetService}

// take records the values vs of the header headerNames[i]; seen says which
// headers had a value before.
func (w *wire) take(i int, vs []string, seen *[4]bool) *core.Fault {
	dst, sub := &w.ctype, SubcodeContentTypeMismatch
	switch i {
	case 1:
		dst, sub = &w.soapAction, SubcodeMismatchedSoapAction
	case 2:
		dst, sub = &w.id, SubcodeMismatchedMessageID
	case 3:
		dst, sub = &w.target, SubcodeMismatchedTargetService
	}
	name := headerNames[i]
	for _, v := range vs {
		if !headerText(v) {
			return headerFault(SubcodeMalformedHeader, "the %s header is not UTF-8 text without control characters: %q", name, v)
		}
		v = strings.TrimSpace(v)
		if i == 1 {
			v = unquote(v)
		}
		if seen[i] && *dst != v {
			return headerFault(sub, "the %s header is given twice, as %q and %q", name, *dst, v)
		}
		*dst, seen[i] = v, true
	}
	return nil
}

// headerIndex returns which of the binding's headers k names (in any
// spelling): 0 Content-Type, 1 SOAPAction, 2 Nats-Msg-Id, 3
// SOAP-Target-Service, -1 none. The spellings the binding writes are
// matched first, without folding case.
func headerIndex(k string) int {
	switch k {
	case HeaderContentType:
		return 0
	case HeaderSOAPAction:
		return 1
	case HeaderMessageID:
		return 2
	case HeaderTargetService:
		return 3
	}
	switch {
	case strings.EqualFold(k, HeaderContentType):
		return 0
	case strings.EqualFold(k, HeaderSOAPAction):
		return 1
	case strings.EqualFold(k, HeaderMessageID):
		return 2
	case strings.EqualFold(k, HeaderTargetService):
		return 3
	}
	return -1
}

// apply checks what the headers say against the envelope of m and fills
// the Message fields the envelope left empty (Action, ID, To). A missing
// Content-Type is refused when required (requests and deliveries; a reply
// may lack one). The fault has the envelope's version.
func (w *wire) apply(m *core.Message, required bool) *core.Fault {
	if f := w.check(m, required); f != nil {
		return f.WithVersion(m.Version())
	}
	if m.ID == "" {
		m.ID = w.id
	}
	if m.To == "" {
		m.To = w.target
	}
	return nil
}

func (w *wire) check(m *core.Message, required bool) *core.Fault {
	v := m.Version()
	switch {
	case w.ctype == "" && required:
		return headerFault(SubcodeMissingContentType, "the message has no %s header: SOAP 1.1 is sent as %s, SOAP 1.2 as %s", HeaderContentType, core.MediaTypeV11, core.MediaTypeV12)
	case w.ctype != "" && !w.pkg && w.version != v:
		return headerFault(SubcodeContentTypeMismatch, "a SOAP %s envelope must be sent as %s, not %s", v, v.MediaType(), w.version.MediaType())
	}
	if w.ctAction != "" && w.soapAction != "" && w.ctAction != w.soapAction {
		return headerFault(SubcodeMismatchedSoapAction, "the %s header %q differs from the Content-Type action %q", HeaderSOAPAction, w.soapAction, w.ctAction)
	}
	if err := m.TakeAction(w.action()); err != nil {
		return core.FaultOf(err)
	}
	if w.id != "" && m.ID != "" && w.id != m.ID {
		return headerFault(SubcodeMismatchedMessageID, "the %s header %q differs from wsa:MessageID %q", HeaderMessageID, w.id, m.ID)
	}
	if w.target != "" && m.To != "" && w.target != m.To {
		return headerFault(SubcodeMismatchedTargetService, "the %s header %q differs from wsa:To %q", HeaderTargetService, w.target, m.To)
	}
	return nil
}

// action is the action the headers carry (the 1.2 action parameter, else
// SOAPAction) and where, for a fault's reason.
func (w *wire) action() (action, from string) {
	if w.ctAction != "" {
		return w.ctAction, "the Content-Type action parameter"
	}
	return w.soapAction, "the " + HeaderSOAPAction + " header"
}

func headerFault(subcode, format string, args ...any) *core.Fault {
	return &core.Fault{Code: core.CodeSender, Subcodes: []xml.Name{Subcode(subcode)}, Reason: fmt.Sprintf(format, args...)}
}

// isPackage reports whether the Content-Type h is multipart/related (an
// MTOM or SwA package).
func isPackage(h string) bool {
	mt, _, _ := strings.Cut(h, ";")
	return strings.EqualFold(strings.TrimSpace(mt), core.MediaTypeMultipartRel)
}

type contentType struct {
	version core.Version
	action  string
}

// parseContentType reads a SOAP media type; the string is why it is not
// one ("" when it is).
func parseContentType(h string) (contentType, string) {
	// The shapes the binding writes, without a MIME parse.
	switch {
	case h == ct11:
		return contentType{version: core.V11}, ""
	case h == ct12:
		return contentType{version: core.V12}, ""
	case strings.HasPrefix(h, ct12+`; action="`) && strings.HasSuffix(h, `"`):
		a := h[len(ct12)+len(`; action="`) : len(h)-1]
		if !strings.ContainsAny(a, `"\`) {
			return contentType{version: core.V12, action: a}, ""
		}
	}
	mt, params, err := mime.ParseMediaType(h)
	if err == mime.ErrInvalidMediaParameter {
		// An unquoted value with characters MIME wants quoted, as in
		// action=urn:x: accept it, as SOAP peers do.
		var ok bool
		if params, ok = looseParams(h); !ok {
			return contentType{}, "malformed parameters"
		}
	} else if err != nil {
		return contentType{}, "not a media type"
	}
	var ct contentType
	switch mt {
	case core.MediaTypeV11:
		ct.version = core.V11
	case core.MediaTypeV12:
		ct.version, ct.action = core.V12, params["action"]
	default:
		return ct, "not a SOAP media type (" + core.MediaTypeV11 + " for 1.1, " + core.MediaTypeV12 + " for 1.2)"
	}
	switch strings.ToLower(params["charset"]) {
	case "", "utf-8", "utf8", "utf-16", "utf-16le", "utf-16be":
		return ct, ""
	}
	return ct, "charset " + params["charset"] + " is not UTF-8 or UTF-16"
}

// looseParams splits the parameters of a media type that mime refuses:
// name=value pairs separated by semicolons, values quoted or not.
func looseParams(h string) (map[string]string, bool) {
	parts := strings.Split(h, ";")
	params := make(map[string]string, len(parts)-1)
	for _, p := range parts[1:] {
		k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
		k = strings.ToLower(strings.TrimSpace(k))
		if !ok || k == "" {
			return nil, false
		}
		if _, dup := params[k]; dup {
			return nil, false
		}
		params[k] = unquote(strings.TrimSpace(v))
	}
	return params, true
}

func unquote(s string) string {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		return s[1 : len(s)-1]
	}
	return s
}

// The Content-Types the binding writes.
const (
	ct11 = core.MediaTypeV11 + "; charset=utf-8"
	ct12 = core.MediaTypeV12 + "; charset=utf-8"
)

// mediaType returns the Content-Type of m's version, with the action
// parameter in 1.2.
func mediaType(v core.Version, action string) string {
	if v == core.V12 {
		if action == "" {
			return ct12
		}
		if strings.ContainsAny(action, `"\`) {
			action = strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(action)
		}
		return ct12 + `; action="` + action + `"`
	}
	return ct11
}

// writeHeaders sets the headers of m in version v, sent to target (the
// address written as the target service when m has no To), in o.hdr, with
// o's value slices.
func (o *outgoing) writeHeaders(m *core.Message, v core.Version, target string) error {
	if m.To != "" {
		target = m.To
	}
	for _, s := range [...]struct{ name, v string }{{"action", m.Action}, {"message id", m.ID}, {"To", target}} {
		if !headerText(s.v) {
			return fmt.Errorf("%w: the %s %q is not UTF-8 text without control characters, which a NATS header carries", ErrBadHeader, s.name, s.v)
		}
	}
	if m.Packaging != core.Inline {
		o.vals[0][0] = m.ContentType() // the package's: boundary, root, type
	} else {
		o.vals[0][0] = mediaType(v, m.Action)
	}
	o.vals[1][0], o.vals[2][0], o.vals[3][0] = m.Action, m.ID, target
	want := uint8(1)
	for i := 1; i < len(o.vals); i++ {
		if o.vals[i][0] != "" {
			want |= 1 << i
		}
	}
	o.setHeaders(want)
	o.hdrSize = int32(len("NATS/1.0\r\n\r\n"))
	for i, name := range headerNames {
		if want&(1<<i) != 0 {
			o.hdrSize += int32(len(name) + len(o.vals[i][0]) + 4)
		}
	}
	return nil
}

// resetHeaders empties o.hdr, after a publish that may have written into
// it.
func (o *outgoing) resetHeaders() {
	clear(o.hdr)
	o.set = 0
}

// setHeaders makes o.hdr hold the headers of headerNames whose bits want
// has, each as its value slice in o.vals, and no other. The map is changed
// only where the previous message of o had other headers (a reply is
// usually answered by the same ones as the last), so setting a value is
// writing o.vals.
func (o *outgoing) setHeaders(want uint8) {
	if len(o.hdr) != bits.OnesCount8(o.set) {
		// Someone else wrote into the map (JetStream's publish adds its
		// expectations): start over.
		clear(o.hdr)
		o.set = 0
	}
	if o.set == want {
		return
	}
	for i, name := range headerNames {
		switch bit := uint8(1) << i; {
		case want&bit != 0 && o.set&bit == 0:
			o.hdr[name] = o.vals[i][:]
		case want&bit == 0 && o.set&bit != 0:
			delete(o.hdr, name)
		}
	}
	o.set = want
}

// headerText reports whether s can be a header value: UTF-8 without
// control characters (tab aside).
func headerText(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for i := 0; i < len(s); i++ { // the control characters are all ASCII
		if c := s[i]; c < 0x20 && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

// oneLine makes s fit in a header value: line breaks become spaces, and it
// is cut to max bytes (on a rune boundary).
func oneLine(s string, max int) string {
	s = strings.Map(func(r rune) rune {
		if r == '\r' || r == '\n' || r == 0 {
			return ' '
		}
		return r
	}, s)
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && cut < len(s) && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}
