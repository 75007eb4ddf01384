package e2e_test

import (
	"context"
	"net/smtp"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soapsmtp "github.com/soapwire/soapwire/bindings/smtp"
	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/document"
)

// TestSMTPCallMalformedReply: a malformed reply mail to a pending
// document.Correlator call ends the call at once with the reply's fault —
// a mail that is not SOAP, related by its In-Reply-To; an envelope whose
// Body is broken, related by its wsa:RelatesTo — and is parked in the
// caller's failed/; a well-formed answer still completes the next call.
func TestSMTPCallMalformedReply(t *testing.T) {
	client := smtpStart(t, "client@shop.example")
	shop := smtpStart(t, "quotes@shop.example")
	answers := map[string]func(req *core.Message) string{
		"not SOAP": func(req *core.Message) string {
			return "From: quotes@shop.example\r\nTo: client@shop.example\r\nIn-Reply-To: " + req.Meta[soapsmtp.MetaMessageID] +
				"\r\nContent-Type: text/plain\r\n\r\nThank you for your mail; we will answer it shortly.\r\n"
		},
		"broken Body": func(req *core.Message) string {
			return "From: quotes@shop.example\r\nTo: client@shop.example\r\nContent-Type: application/soap+xml\r\n\r\n" +
				`<e:Envelope xmlns:e="http://www.w3.org/2003/05/soap-envelope"><e:Header>` +
				`<a:RelatesTo xmlns:a="` + core.NamespaceAddressing + `">` + req.ID + `</a:RelatesTo></e:Header>` +
				`<e:Body><p:price xmlns:p="urn:example:shop"><p:item>widget</p:cents></e:Body></e:Envelope>` + "\r\n"
		},
	}
	shop.smtpServe(t, core.HandlerFunc(func(_ context.Context, m *core.Message) (*core.Message, error) {
		var q smtpQuote
		if err := m.Body().Decode(&q); err != nil {
			return nil, err
		}
		answer, ok := answers[q.Item]
		if !ok {
			return m.Reply(core.ValueBody(smtpPrice{Item: q.Item, Cents: 1999})), nil
		}
		return nil, smtp.SendMail(client.addr, nil, "quotes@shop.example", []string{client.box}, []byte(answer(m)))
	}), shop.smtpSender(t, client))
	corr := document.NewCorrelator(client.smtpSender(t, shop), "mailto:"+client.box)
	client.smtpServe(t, corr, nil)

	for item := range answers {
		t.Run(item, func(t *testing.T) {
			req := core.NewMessage(core.V12, core.ValueBody(smtpQuote{Item: item}))
			req.To, req.Action = "mailto:quotes@shop.example", "urn:example:shop:quote"
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute) // the call ends long before
			defer cancel()
			_, err := corr.RoundTrip(ctx, req)
			require.Error(t, err)
			assert.NotErrorIs(t, err, document.ErrTimeout, "the call ends with the reply's fault, not at its deadline")
			f := core.FaultOf(err)
			assert.Equal(t, core.CodeSender, f.Code, "%v", err)
			assert.False(t, f.Remote)
		})
	}
	require.Eventually(t, func() bool {
		n := 0
		for _, e := range mustReadDir(t, filepath.Join(client.mb.Dir(), soapsmtp.FolderFailed)) {
			if !strings.HasSuffix(e, soapsmtp.FaultSuffix) {
				n++
			}
		}
		return n == len(answers)
	}, 10*time.Second, 10*time.Millisecond, "the malformed replies are parked")

	req := core.NewMessage(core.V12, core.ValueBody(smtpQuote{Item: "widget"}))
	req.To = "mailto:quotes@shop.example"
	reply, err := corr.RoundTrip(smtpCtx(t), req)
	require.NoError(t, err, "a well-formed answer still completes its call")
	assert.Equal(t, req.ID, reply.RelatesTo)
	assert.Zero(t, corr.Pending())
}

func mustReadDir(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}
