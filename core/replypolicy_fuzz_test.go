package core_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/soapwire/soapwire/core"
)

// FuzzReplyPolicy: any string is answered without a panic, a refusal is a
// Sender fault with ErrReplyRefused, and whatever is allowed really has an
// allowed scheme, host and shape.
func FuzzReplyPolicy(f *testing.F) {
	for _, s := range []string{
		"", core.AnonymousAddress, core.NoneAddress,
		"mailto:orders@partner.example", "mailto:a@partner.example?bcc=x@evil.example", "mailto:a%40evil.example@partner.example",
		"mailto:\"a,b\"@partner.example", "mailto:x@sub.trusted.example", "https://partner.example:8443/r", "https://partner.example@evil.example/",
		"ftp://a.trusted.example/in", "nats:replies.a", "nats:$JS.API.INFO", "nats://partner.example/replies.x",
		"nats:replies.>", "pipe:x", "HTTPS://PARTNER.EXAMPLE./", "https://[::1]/", "mailto:", "::", "%",
		"nats:replies.a?stream=REPLIES", "nats:replies.a?stream=RE.PLIES", "nats:replies.a?stream=A&stream=B",
		"nats:replies.a?durable=X", "nats:replies.a?stream=", "nats:replies.a?", "nats:replies.a?stream=R%2E",
		"nats:$JS.API.INFO?stream=S", "nats://partner.example/replies.x?stream=S", "http://2130706433/", "https://10.0.0.7/",
	} {
		f.Add(s)
	}
	p := core.ReplyPolicy{
		Schemes:   []string{"mailto", "https", "ftp", "nats", "pipe"},
		Hosts:     []string{"partner.example", ".trusted.example"},
		Subjects:  []string{"replies.>"},
		Mailboxes: []string{"orders@partner.example", "@.trusted.example"},
	}
	f.Fuzz(func(t *testing.T, addr string) {
		err := p.Allow(t.Context(), nil, addr)
		if err != nil {
			fault := core.FaultOf(err)
			if fault.Code != core.CodeSender || !strings.Contains(err.Error(), core.ErrReplyRefused.Error()) {
				t.Fatalf("%q: refusal is not a Sender fault with ErrReplyRefused: %v", addr, err)
			}
			return
		}
		if !core.IsReplyAddress(addr) {
			return
		}
		u, perr := url.Parse(addr)
		if perr != nil {
			t.Fatalf("%q allowed but not a URI: %v", addr, perr)
		}
		scheme := strings.ToLower(u.Scheme)
		host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
		switch scheme {
		case "mailto":
			raw, _ := url.PathUnescape(u.Opaque)
			if u.RawQuery != "" || strings.ContainsAny(raw, ",;") || strings.Count(raw, "@") < 1 {
				t.Fatalf("%q allowed: a mailto with header fields or several recipients", addr)
			}
			raw = strings.ToLower(raw)
			domain := strings.TrimSuffix(raw[strings.LastIndexByte(raw, '@')+1:], ".")
			if raw != "orders@partner.example" && !strings.HasSuffix(domain, ".trusted.example") {
				t.Fatalf("%q allowed: mailbox %q is not in the list", addr, raw)
			}
			return
		case "nats":
			subject := u.Opaque
			if subject == "" {
				subject = strings.TrimPrefix(u.Path, "/")
			}
			if !strings.HasPrefix(subject, "replies.") || strings.ContainsAny(subject, "*> \t") {
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
