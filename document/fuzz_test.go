package document_test

import (
	"encoding/xml"
	"net/url"
	"strings"
	"testing"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/document"
)

// FuzzScheme: Scheme agrees with net/url about what an address's scheme is.
func FuzzScheme(f *testing.F) {
	for _, s := range []string{"mailto:a@b", "HTTP://x", "nats:x.y", "a+b-c.d:x", "1a:x", ":x", "", "x", "/p:q", "ht%74p://x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, addr string) {
		got, err := document.Scheme(addr)
		u, perr := url.Parse(addr)
		if perr != nil {
			return // net/url refuses more (bad escapes, hosts); no comparison
		}
		want := strings.ToLower(u.Scheme)
		if (err != nil) != (want == "") || got != want {
			t.Fatalf("%q: Scheme = %q, %v; net/url says %q", addr, got, err, want)
		}
	})
}

// FuzzConversationHeader: a conversation id survives SetConversation, a
// write and a read (trimmed, with characters XML cannot carry replaced);
// and for any Conversation block core accepts, ConversationOf reads what
// encoding/xml reads.
func FuzzConversationHeader(f *testing.F) {
	for _, s := range []string{"c-1", " spaced ", "a&b<c>", "\r\n", "urn:uuid:1234", "\x00\x01", "é✓", "]]>"} {
		f.Add(s, `<d:Conversation xmlns:d="urn:soapwire:document">`+s+`</d:Conversation>`)
	}
	f.Add("x", `<d:Conversation xmlns:d="urn:soapwire:document" a='>'><![CDATA[x]]></d:Conversation>`)
	f.Add("x", `<Conversation xmlns="urn:soapwire:document">a<!-- c -->b</Conversation>`)
	f.Fuzz(func(t *testing.T, id, raw string) {
		m := core.NewMessage(core.V12, core.Body{})
		m.ID = "urn:fallback"
		document.SetConversation(m, id)
		var buf strings.Builder
		if _, err := m.WriteTo(&buf); err != nil {
			t.Fatalf("write %q: %v", id, err)
		}
		back, err := core.ReadMessage(strings.NewReader(buf.String()), core.Limits{})
		if err != nil {
			t.Fatalf("read back %q: %v\n%s", id, err, buf.String())
		}
		var sanitized strings.Builder
		for _, r := range id { // invalid UTF-8 ranges as U+FFFD, one per byte
			if r < 0x20 && r != '\t' && r != '\n' && r != '\r' || r == 0xFFFE || r == 0xFFFF {
				r = '\uFFFD'
			}
			sanitized.WriteRune(r)
		}
		want := strings.TrimSpace(sanitized.String())
		if want == "" {
			want = "urn:fallback"
		}
		if got := document.ConversationOf(back); got != want {
			t.Fatalf("conversation %q came back as %q", id, got)
		}

		b, err := core.ParseHeaderBlock([]byte(raw))
		if err != nil || b.Name != document.ConversationHeader {
			return
		}
		var v struct {
			Text string `xml:",chardata"`
		}
		if xml.Unmarshal(b.XML, &v) != nil {
			return
		}
		want = strings.TrimSpace(v.Text)
		if want == "" {
			want = "urn:fallback"
		}
		m.Envelope.Headers = []core.HeaderBlock{b}
		if got := document.ConversationOf(m); got != want {
			t.Fatalf("block %q: ConversationOf = %q, encoding/xml reads %q", raw, got, want)
		}
	})
}
