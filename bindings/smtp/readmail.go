package smtp

import (
	"io"

	mailfmt "github.com/soapwire/soapwire/bindings/internal/mail"
	"github.com/soapwire/soapwire/core"
)

// MaxMailHeaderBytes bounds the header of a mail ReadMail reads (trace
// headers included). A MIME part's header is bounded by mime/multipart
// (10 MiB), and the whole mail by the Server's WithMaxMessageBytes.
const MaxMailHeaderBytes = mailfmt.MaxHeaderBytes

// ReadMail reads a SOAP message from a mail (RFC 5322 text, as a Maildir
// file holds it). The envelope is the mail's body when its Content-Type is
// application/soap+xml, text/xml or application/xml (or absent), or the
// first part of such a type in a multipart body, searched depth first;
// quoted-printable and base64 transfer encodings are decoded. The envelope
// is read with core.ReadMessage under WithLimits: its header blocks now,
// its body lazily, from r.
//
// The message's fields come from the envelope's WS-Addressing headers and,
// where the envelope has none, from the mail (the W3C SOAP 1.2 Email
// Binding): ID from Message-ID and RelatesTo from In-Reply-To, else the
// last id of References (see
// IDFromMessageID), Action from the content type's action parameter or a
// SOAPAction header, To from Delivered-To or To, and ReplyTo (also when the
// envelope's is anonymous) from Reply-To, else From, as a mailto: address.
// Meta holds the mail's headers under the Meta* keys.
//
// A mail the loop guard flags (a bounce, an auto-reply, a mailing list, or
// a mail carrying an X-Loop header naming one of WithAddresses) gets
// MetaLoop set to the reason and NoneAddress for the ReplyTo and FaultTo it
// would have taken from the mail, so core.Serve answers nothing; a mail
// naming this service in X-Loop gets NoneAddress even for addresses its
// envelope gives.
//
// Errors are *core.Fault: a Sender fault for a mail that is not a SOAP
// mail or is malformed, or the fault core.ReadMessage returned.
func ReadMail(r io.Reader, opts ...ReadMailOption) (*core.Message, error) {
	o := newReadConfig(opts)
	return readMail(r, &o)
}

func readMail(r io.Reader, o *readConfig) (*core.Message, error) {
	return mailfmt.Read(r, o.mail())
}

// readMailBytes is readMail for a mail in memory (a Server's handover). It
// may change data.
func readMailBytes(data []byte, o *readConfig) (*core.Message, error) {
	return mailfmt.ReadBytes(data, o.mail())
}

// mail returns the mail format's reading configuration.
func (o *readConfig) mail() *mailfmt.ReadConfig {
	return &mailfmt.ReadConfig{Limits: o.limits, Addresses: o.addresses, Prefix: metaPrefix, Submitter: o.submitter}
}

// MessageIDHeader returns the Message-ID header value, "<left@right>", that
// stands for a WS-Addressing message id, so that the mail's Message-ID and
// In-Reply-To carry the envelope's MessageID and RelatesTo (the W3C SOAP 1.2
// Email Binding correlates by them). IDFromMessageID reverses it:
//
//   - "mid:left@right" (RFC 2392) is "<left@right>";
//   - "urn:uuid:U" is "<U@uuid.invalid>";
//   - any other id is "<B@id.invalid>", B its unpadded base64url.
//
// The result never holds CR, LF or anything else a header cannot carry.
// MessageIDHeader("") is "".
func MessageIDHeader(id string) string { return mailfmt.MessageIDHeader(id) }

// IDFromMessageID returns the message id that a Message-ID (or the first id
// of an In-Reply-To or References) header value stands for: the inverse of
// MessageIDHeader, and "mid:…" (RFC 2392) for a message id of any other
// mail. It returns "" for an empty value.
func IDFromMessageID(h string) string { return mailfmt.IDFromMessageID(h) }
