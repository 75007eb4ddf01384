package mail

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/soapwire/soapwire/core"
)

// WriteFault writes the fault envelope of a parked mail in version v: the
// fault of cause (core.FaultOf) and, in its detail, the cause's text in a
// Cause element of namespace ns (the binding's: the record stays with the
// service, so internal text may appear in it; it never goes to a peer).
func WriteFault(w io.Writer, v core.Version, cause error, ns string) error {
	if cause == nil {
		cause = fmt.Errorf("mail: no reason given")
	}
	f := *core.FaultOf(cause).WithVersion(v) // a copy: its Detail grows below
	if msg := cause.Error(); msg != "" && !strings.Contains(f.Reason, msg) {
		var b bytes.Buffer
		b.Write(f.Detail)
		b.WriteString(`<sw:Cause xmlns:sw="` + ns + `">`)
		xml.EscapeText(&b, []byte(msg))
		b.WriteString(`</sw:Cause>`)
		f.Detail = b.Bytes()
	}
	m := core.NewMessage(v, core.FaultBody(&f))
	_, err := m.Write(w, core.WriteOptions{XMLDeclaration: true})
	return err
}
