package main_test

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soaphttp "github.com/soapwire/soapwire/bindings/http"
	soapsmtp "github.com/soapwire/soapwire/bindings/smtp"
	"github.com/soapwire/soapwire/core"
)

// order is the document the send tests send: a prolog a Body cannot hold
// (XML declaration, comment) that send must leave out.
const order = `<?xml version="1.0" encoding="UTF-8"?>
<!-- purchase order 42 -->
<po:order xmlns:po="urn:example:po"><po:item>bolt &amp; nut</po:item><po:qty>3</po:qty></po:order>
`

// orderBody is the order's element as a received Body holds it.
const orderBody = `<po:order xmlns:po="urn:example:po"><po:item>bolt &amp; nut</po:item><po:qty>3</po:qty></po:order>`

// TestSendByScheme sends the order with each binding and checks that it
// arrived, wrapped with its addressing, and that the receipt says what the
// transport confirmed.
func TestSendByScheme(t *testing.T) {
	file := writeFile(t, "order.xml", order)
	httpSink := startHTTPSink(t)
	smtpSink := startSMTPSink(t, "orders@shop.example")
	ftpSink := startFTPSink(t)
	ns := startNATS(t)
	published := ns.collect(t, "orders.new")
	stream := ns.stream(t, "ORDERS", "orders.placed")

	for _, tc := range []struct {
		name      string
		to        string
		args, env []string
		arrived   func(t *testing.T, id string) got
		transport map[string]string // receipt lines, "" = any non-empty value
	}{
		{
			name:      "http",
			to:        httpSink.url,
			arrived:   func(t *testing.T, _ string) got { return httpSink.next(t) },
			transport: map[string]string{soaphttp.MetaStatus: "202"},
		},
		{
			name:      "mailto",
			to:        "mailto:orders@shop.example",
			args:      []string{"--smtp", smtpSink.addr, "--from", "buyer@example.com"},
			arrived:   func(t *testing.T, _ string) got { return smtpSink.next(t) },
			transport: map[string]string{soapsmtp.MetaQueuedAs: "", soapsmtp.MetaMessageID: ""},
		},
		{
			name:    "mailto from the environment",
			to:      "mailto:orders@shop.example",
			env:     []string{"SOAPWIRE_SMTP=" + smtpSink.addr, "SOAPWIRE_FROM=buyer@example.com"},
			arrived: func(t *testing.T, _ string) got { return smtpSink.next(t) },
		},
		{
			name:      "ftp",
			to:        ftpSink.inbox,
			args:      []string{"--ftp-user", ftpSink.user},
			env:       []string{"SOAPWIRE_FTP_PASSWORD=" + ftpSink.password},
			arrived:   ftpSink.file,
			transport: map[string]string{"ftp.file": ""},
		},
		{
			name:    "nats",
			to:      "nats:orders.new",
			args:    []string{"--nats", ns.srv.URL()},
			arrived: func(t *testing.T, _ string) got { return waitFor(t, published) },
		},
		{
			name:      "nats jetstream",
			to:        "nats:orders.placed?stream=ORDERS",
			env:       []string{"SOAPWIRE_NATS_URL=" + ns.srv.URL()},
			arrived:   func(t *testing.T, _ string) got { return storedMessage(t, stream, 1) },
			transport: map[string]string{"nats.stream": "ORDERS", "nats.seq": "1"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"send", "--to", tc.to, "--action", "urn:example:po:submit", "--reply-to", "mailto:buyer@example.com"}, tc.args...)
			res := invocation{args: append(args, file), env: tc.env}.run(t)
			require.Equal(t, 0, res.code, "%s", res)
			id := field(t, res.stdout, "message-id")
			assert.True(t, strings.HasPrefix(id, "urn:uuid:"), id)
			assert.Equal(t, id, field(t, res.stdout, "conversation"), "a new conversation is named by the message id")
			assert.Equal(t, tc.to, field(t, res.stdout, "to"))
			for k, want := range tc.transport {
				v := field(t, res.stdout, k)
				if want == "" {
					assert.NotEmpty(t, v, k)
				} else {
					assert.Equal(t, want, v, k)
				}
			}

			g := tc.arrived(t, id)
			assert.Equal(t, core.V12, g.version, "a document goes in SOAP 1.2 by default")
			assert.Equal(t, id, g.id)
			assert.Equal(t, "urn:example:po:submit", g.action)
			assert.Equal(t, tc.to, g.to)
			assert.Equal(t, "mailto:buyer@example.com", g.replyTo)
			assert.Equal(t, id, g.conversation)
			assert.Equal(t, orderBody, g.body)
		})
	}
}

// TestSendOptions: --version, --conversation, --message-id, --fault-to,
// stdin, --json.
func TestSendOptions(t *testing.T) {
	sink := startHTTPSink(t)
	res := invocation{
		args:  []string{"send", "--to", sink.url, "--version", "1.1", "--conversation", "po-42", "--message-id", "urn:example:msg:1", "--json", "-"},
		stdin: strings.NewReader(order),
	}.run(t)
	require.Equal(t, 0, res.code, "%s", res)
	var rec struct {
		MessageID    string            `json:"message_id"`
		Conversation string            `json:"conversation"`
		To           string            `json:"to"`
		Transport    map[string]string `json:"transport"`
	}
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &rec), res.stdout)
	assert.Equal(t, "urn:example:msg:1", rec.MessageID)
	assert.Equal(t, "po-42", rec.Conversation)
	assert.Equal(t, "202", rec.Transport[soaphttp.MetaStatus])
	g := sink.next(t)
	assert.Equal(t, core.V11, g.version)
	assert.Equal(t, "urn:example:msg:1", g.id)
	assert.Equal(t, "po-42", g.conversation)
	assert.Equal(t, orderBody, g.body)
}

// TestSendEnvelope: a file that already is an envelope is sent as it is,
// header blocks and body untouched, its own id and action kept unless a
// flag says otherwise.
func TestSendEnvelope(t *testing.T) {
	sink := startHTTPSink(t)
	const env = `<?xml version='1.0' encoding='utf-8'?>
<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" xmlns:wsa="http://www.w3.org/2005/08/addressing">
  <soap:Header>
    <wsa:MessageID>urn:example:env:7</wsa:MessageID>
    <wsa:Action>urn:example:po:submit</wsa:Action>
    <t:Trace xmlns:t="urn:example:trace">hop-1</t:Trace>
  </soap:Header>
  <soap:Body><po:order xmlns:po="urn:example:po"><po:item>washer</po:item></po:order></soap:Body>
</soap:Envelope>`
	file := writeFile(t, "envelope.xml", env)

	res := soapwire(t, "send", "--to", sink.url, file)
	require.Equal(t, 0, res.code, "%s", res)
	assert.Equal(t, "urn:example:env:7", field(t, res.stdout, "message-id"))
	g := sink.next(t)
	assert.Equal(t, core.V11, g.version)
	assert.Equal(t, "urn:example:env:7", g.id)
	assert.Equal(t, "urn:example:po:submit", g.action)
	assert.Equal(t, sink.url, g.to, "To is set to where it was sent")
	assert.Equal(t, []xml.Name{{Space: "urn:example:trace", Local: "Trace"}}, g.headers, "no Conversation block added, the Trace block kept")
	assert.Equal(t, `<po:order xmlns:po="urn:example:po"><po:item>washer</po:item></po:order>`, g.body)

	res = soapwire(t, "send", "--to", sink.url, "--action", "urn:example:po:resubmit", "--conversation", "po-9", file)
	require.Equal(t, 0, res.code, "%s", res)
	g = sink.next(t)
	assert.Equal(t, "urn:example:po:resubmit", g.action)
	assert.Equal(t, "po-9", g.conversation)
	assert.Equal(t, "po-9", field(t, res.stdout, "conversation"))

	res = soapwire(t, "send", "--to", sink.url, "--version", "1.2", file)
	assert.Equal(t, 1, res.code, "%s", res)
	assert.Contains(t, res.stderr, "the input is a SOAP 1.1 envelope, not 1.2")
}

// TestSendProgress: a large file with --progress reports on stderr and
// arrives whole.
func TestSendProgress(t *testing.T) {
	sink := startFTPSink(t)
	var b strings.Builder
	b.WriteString(`<big:doc xmlns:big="urn:example:big">`)
	line := strings.Repeat("0123456789abcdef", 4) + "\n"
	for b.Len() < 3<<20 {
		b.WriteString("<big:line>" + line + "</big:line>")
	}
	b.WriteString(`</big:doc>`)
	file := writeFile(t, "big.xml", b.String())
	st, err := os.Stat(file)
	require.NoError(t, err)

	res := invocation{
		args: []string{"send", "--progress", "--to", sink.inbox, "--ftp-user", sink.user, file},
		env:  []string{"SOAPWIRE_FTP_PASSWORD=" + sink.password},
	}.run(t)
	require.Equal(t, 0, res.code, "%s", res)
	assert.Regexp(t, `(?m)^sent `+itoa(st.Size())+` bytes \(3\.\d MiB\) in `, res.stderr)
	g := sink.file(t, field(t, res.stdout, "message-id"))
	assert.True(t, b.String() == g.body, "the body differs: sent %d bytes, %d arrived", b.Len(), len(g.body))

	// Without --progress and with stderr not a terminal: nothing.
	res = invocation{
		args: []string{"send", "--to", sink.inbox, "--ftp-user", sink.user, file},
		env:  []string{"SOAPWIRE_FTP_PASSWORD=" + sink.password},
	}.run(t)
	require.Equal(t, 0, res.code, "%s", res)
	assert.Empty(t, res.stderr)
}

// TestSendRefusals: what cannot be sent fails with a clear message and the
// right exit code, and nothing arrives.
func TestSendRefusals(t *testing.T) {
	sink := startHTTPSink(t, soaphttp.WithRealm("shop"), soaphttp.WithAuth(soaphttp.StaticCredentials(map[string]string{"shop": "s3cret"})))
	ftp := startFTPSink(t)
	good := writeFile(t, "order.xml", order)
	for _, tc := range []struct {
		name  string
		args  []string
		env   []string
		stdin string
		code  int
		msg   string
	}{
		{name: "no --to", args: []string{"send", good}, code: 2, msg: "--to is required"},
		{name: "unknown scheme", args: []string{"send", "--to", "gopher://x/1", good}, code: 2, msg: `no binding for the scheme "gopher"`},
		{name: "not an address", args: []string{"send", "--to", "orders", good}, code: 2, msg: `--to "orders"`},
		{name: "mailto without --smtp", args: []string{"send", "--to", "mailto:a@b.example", good}, code: 2, msg: "--smtp (or $SOAPWIRE_SMTP) is required"},
		{name: "mailto without --from", args: []string{"send", "--to", "mailto:a@b.example", "--smtp", "127.0.0.1:1", good}, code: 2, msg: "--from (or $SOAPWIRE_FROM) is required"},
		{name: "ftp address with credentials", args: []string{"send", "--to", "ftp://u:p@127.0.0.1/x", good}, code: 2, msg: "ftp: bad address"},
		{name: "nats wildcard", args: []string{"send", "--to", "nats:orders.*", good}, code: 2, msg: "wildcard"},
		{name: "bad version", args: []string{"send", "--to", sink.url, "--version", "2", good}, code: 2, msg: `--version "2": want 1.1 or 1.2`},
		{name: "two files", args: []string{"send", "--to", sink.url, good, good}, code: 2, msg: "one FILE at most"},
		{name: "missing file", args: []string{"send", "--to", sink.url, "/nonexistent/order.xml"}, code: 1, msg: "no such file"},
		{name: "empty input", args: []string{"send", "--to", sink.url, "-"}, code: 1, msg: "the input is empty"},
		{name: "not XML", args: []string{"send", "--to", sink.url}, stdin: "hello", code: 1, msg: "not XML: text before the root element"},
		{name: "only a comment", args: []string{"send", "--to", sink.url}, stdin: "<!-- x -->", code: 1, msg: "no XML element found"},
		{name: "doctype", args: []string{"send", "--to", sink.url}, stdin: `<!DOCTYPE x [<!ENTITY a "b">]><x>&a;</x>`, code: 1, msg: "a DOCTYPE is not allowed"},
		{name: "processing instruction", args: []string{"send", "--to", sink.url}, stdin: `<?php echo 1; ?><x/>`, code: 1, msg: "processing instruction"},
		{name: "latin-1", args: []string{"send", "--to", sink.url}, stdin: `<?xml version="1.0" encoding="ISO-8859-1"?><x>caf` + "\xe9" + `</x>`, code: 1, msg: "only UTF-8 documents"},
		{name: "malformed", args: []string{"send", "--to", sink.url}, stdin: `<po:order xmlns:po="urn:example:po"><po:item>bolt</po:order>`, code: 1, msg: "the document is not XML a SOAP Body can hold"},
		{name: "malformed, unchecked: the peer refuses it", args: []string{"send", "--no-check", "--to", sink.url, "--http-user", "shop"}, env: []string{"SOAPWIRE_HTTP_PASSWORD=s3cret"},
			stdin: `<po:order xmlns:po="urn:example:po"><po:item>bolt</po:order>`, code: 1, msg: "malformed envelope"},
		{name: "unbound prefix", args: []string{"send", "--to", sink.url}, stdin: `<po:order><x/></po:order>`, code: 1, msg: "the document is not XML a SOAP Body can hold"},
		{name: "bad envelope", args: []string{"send", "--to", sink.url}, stdin: `<s:Envelope xmlns:s="http://www.w3.org/2003/05/soap-envelope"><s:Body><a></b></s:Body></s:Envelope>`, code: 1, msg: "malformed envelope"},
		{name: "http credentials refused", args: []string{"send", "--to", sink.url, "--http-user", "shop", good}, env: []string{"SOAPWIRE_HTTP_PASSWORD=wrong"}, code: 1, msg: "401"},
		{name: "ftp login refused", args: []string{"send", "--to", ftp.inbox, "--ftp-user", "shop", good}, env: []string{"SOAPWIRE_FTP_PASSWORD=wrong"}, code: 1, msg: "login refused"},
		{name: "nothing listening", args: []string{"send", "--to", "http://127.0.0.1:1/soap", good}, code: 1, msg: "connection refused"},
		{name: "nats unreachable", args: []string{"send", "--to", "nats:orders", "--nats", "nats://127.0.0.1:1", good}, code: 1, msg: "nats: connect to nats://127.0.0.1:1"},
		{name: "bad flag", args: []string{"send", "--bogus", good}, code: 2, msg: "flag provided but not defined: -bogus"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := invocation{args: tc.args, env: tc.env, stdin: strings.NewReader(tc.stdin)}.run(t)
			assert.Equal(t, tc.code, res.code, "%s", res)
			assert.Contains(t, res.stderr, tc.msg)
			assert.True(t, strings.HasPrefix(res.stderr, "soapwire send: "), res.stderr)
			assert.Empty(t, res.stdout)
		})
	}
	select {
	case g := <-sink.got:
		t.Fatalf("a refused send arrived: %+v", g)
	default:
	}
	entries, err := os.ReadDir(ftp.inboxDir)
	require.NoError(t, err)
	assert.Empty(t, entries)

	// With the right password the same send goes through.
	res := invocation{args: []string{"send", "--to", sink.url, "--http-user", "shop", good}, env: []string{"SOAPWIRE_HTTP_PASSWORD=s3cret"}}.run(t)
	require.Equal(t, 0, res.code, "%s", res)
	assert.Equal(t, orderBody, sink.next(t).body)
}
