package document_test

import (
	"encoding/xml"
	"net/url"
	"strings"
	"testing"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/document"
)

// FuzzPolicyAllow: any string is answered without a panic, a refusal is a
// Sender fault with ErrAddressRefused, and whatever is allowed really has
// an allowed scheme, host and shape.
func FuzzPolicyAllow(f *testing.F) {
	for _, s := range []string{
		"", core.AnonymousAddress, core.NoneAddress,
		"mailto:orders@partner.example", "mailto:a@partner.example?bcc=x@evil.example", "mailto:a%40evil.example@partner.example",
		"mailto:\"a,b\"@partner.example", "https://partner.example:8443/r", "https://partner.example@evil.example/",
		"ftp://a.trusted.example/in", "nats:replies.a", "nats:$JS.API.INFO", "nats://partner.example/replies.x",
		"nats:replies.>", "pipe:x", "HTTPS://PARTNER.EXAMPLE./", "https://[::1]/", "mailto:", "::", "%",
		"nats:replies.a?stream=REPLIES", "nats:replies.a?stream=RE.PLIES", "nats:replies.a?stream=A&stream=B",
		"nats:replies.a?durable=X", "nats:replies.a?stream=", "nats:replies.a?", "nats:replies.a?stream=R%2E",
		"nats:$JS.API.INFO?stream=S", "nats://partner.example/replies.x?stream=S",
	} {
		f.Add(s)
	}
	p := document.Policy{
		Schemes:  []string{"mailto", "https", "ftp", "nats", "pipe"},
		Hosts:    []string{"partner.example", ".trusted.example"},
		Subjects: []string{"replies.>"},
	}
	f.Fuzz(func(t *testing.T, addr string) {
		err := p.Allow(addr)
		if err != nil {
			fault := core.FaultOf(err)
			if fault.Code != core.CodeSender || !strings.Contains(err.Error(), document.ErrAddressRefused.Error()) {
				t.Fatalf("%q: refusal is not a Sender fault with ErrAddressRefused: %v", addr, err)
			}
			return
		}
		if addr == "" || addr == core.AnonymousAddress || addr == core.NoneAddress {
			return
		}
		u, perr := url.Parse(addr)
		if perr != nil {
			t.Fatalf("%q allowed but not a URI: %v", addr, perr)
		}
		scheme, serr := document.Scheme(addr)
		if serr != nil || scheme != strings.ToLower(u.Scheme) {
			t.Fatalf("%q allowed, scheme %q / %q (%v)", addr, scheme, u.Scheme, serr)
		}
		host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
		switch scheme {
		case "mailto":
			raw, _ := url.PathUnescape(u.Opaque)
			if u.RawQuery != "" || strings.ContainsAny(raw, ",;") || strings.Count(raw, "@") < 1 {
				t.Fatalf("%q allowed: a mailto with header fields or several recipients", addr)
			}
			host = strings.TrimSuffix(strings.ToLower(raw[strings.LastIndexByte(raw, '@')+1:]), ".")
		case "nats":
			subject := u.Opaque
			if subject == "" {
				subject = strings.TrimPrefix(u.Path, "/")
			}
			if !strings.HasPrefix(subject, "replies.") || strings.ContainsAny(subject, "*> \t$") {
				t.Fatalf("%q allowed: subject %q", addr, subject)
			}
			if u.RawQuery != "" || u.ForceQuery {
				stream, ok := strings.CutPrefix(u.RawQuery, "stream=")
				if !ok || stream == "" || strings.ContainsAny(stream, ".*>/\\ \t&=%?#") {
					t.Fatalf("%q allowed: query %q is not one stream=NAME", addr, u.RawQuery)
				}
			}
			if u.Fragment != "" {
				t.Fatalf("%q allowed with a fragment", addr)
			}
			if u.Host == "" {
				return // a bare subject has no host
			}
		}
		if host != "partner.example" && !strings.HasSuffix(host, ".trusted.example") {
			t.Fatalf("%q allowed: host %q is not in the list", addr, host)
		}
	})
}

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
