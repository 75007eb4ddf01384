package mail

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"mime"
	netmail "net/mail"
	"time"
	"unicode/utf8"

	"github.com/soapwire/soapwire/core"
)

// Note is what ComposeNote writes about a parked mail.
type Note struct {
	From *netmail.Address // the service's address (From, To and X-Loop)
	// About is the parked mail's Message-ID ("<…>"), "" if it had none:
	// the note's In-Reply-To and References.
	About string
	// Reason, for the Subject ("parked: " + Reason, cut to fit).
	Reason string
	// Extra header fields (checked as Compose checks them).
	Extra [][2]string
}

// ComposeNote appends to dst the note a mail binding leaves beside a mail it
// parked in a mail folder (where it cannot add a file or a header): a mail
// from and to the service, In-Reply-To the parked mail, Auto-Submitted:
// auto-generated (so nothing ever answers it), whose body is the fault
// envelope WriteFault writes (version v, the Cause in namespace ns).
func ComposeNote(dst *bytes.Buffer, n Note, v core.Version, cause error, ns string) error {
	var env bytes.Buffer
	if err := WriteFault(&env, v, cause, ns); err != nil {
		return err
	}
	for _, f := range n.Extra {
		if HasCtl(f[0]) || HasCtl(f[1]) || len(f[0])+2+len(f[1]) > MaxHeaderLine {
			return fmt.Errorf("mail: header %q: %w", f[0], ErrHeaderInjection)
		}
	}
	subject := "parked: " + n.Reason
	if len(subject) > maxSubject {
		subject = subject[:maxSubject]
	}
	for !validUTF8Cut(subject) {
		subject = subject[:len(subject)-1]
	}
	about := firstMsgID(n.About)
	if HasCtl(about) || !isMsgID(about) {
		about = ""
	}
	hdr := func(name, value string) {
		dst.WriteString(name + ": " + value + "\r\n")
	}
	hdr("From", n.From.String())
	hdr("To", n.From.String())
	hdr("Subject", mime.QEncoding.Encode("utf-8", stripCtl(subject)))
	hdr("Date", time.Now().Format(time.RFC1123Z))
	hdr("Message-ID", MessageIDHeader(core.NewMessageID()))
	if about != "" {
		hdr("In-Reply-To", "<"+about+">")
		hdr("References", "<"+about+">")
	}
	hdr("Auto-Submitted", "auto-generated")
	hdr("X-Loop", n.From.Address)
	for _, f := range n.Extra {
		hdr(f[0], f[1])
	}
	hdr("MIME-Version", "1.0")
	hdr("Content-Type", mime.FormatMediaType(v.MediaType(), map[string]string{"charset": "utf-8"}))
	body := env.Bytes()
	cte := textEncoding(body)
	if cte == "" {
		cte = "base64"
	}
	hdr("Content-Transfer-Encoding", cte)
	dst.WriteString("\r\n")
	if cte == "base64" {
		writeBase64Lines(dst, body)
	} else {
		dst.Write(bytes.ReplaceAll(body, []byte("\n"), []byte("\r\n")))
	}
	return nil
}

// isMsgID reports whether s (without its angle brackets) can stand in a
// Message-ID header.
func isMsgID(s string) bool {
	if s == "" || len(s) > 900 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c >= 0x7f || c == '<' || c == '>' {
			return false
		}
	}
	return true
}

// stripCtl replaces control characters (a reason may quote a peer's text).
func stripCtl(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c < ' ' || c == 0x7f {
			b[i] = ' '
		}
	}
	return string(b)
}

func validUTF8Cut(s string) bool {
	return len(s) == 0 || s[len(s)-1] < 0x80 || utf8Valid(s)
}

func utf8Valid(s string) bool { return utf8.ValidString(s) }

// writeBase64Lines writes b in base64, in lines of 76 with CRLF.
func writeBase64Lines(dst *bytes.Buffer, b []byte) {
	enc := base64.StdEncoding.EncodeToString(b)
	for len(enc) > 76 {
		dst.WriteString(enc[:76] + "\r\n")
		enc = enc[76:]
	}
	dst.WriteString(enc + "\r\n")
}
