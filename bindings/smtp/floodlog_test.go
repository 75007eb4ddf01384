package smtp_test

import (
	"sync"
	"testing"
	"time"

	gosmtp "github.com/emersion/go-smtp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soapsmtp "github.com/soapwire/soapwire/bindings/smtp"
)

// refuseRcpts sends per refused RCPTs in each of sessions sessions at
// once, each answered 550, and returns how long they took.
func refuseRcpts(t *testing.T, addr string, sessions, per int) time.Duration {
	t.Helper()
	start := time.Now()
	var wg sync.WaitGroup
	for range sessions {
		wg.Go(func() {
			c, err := gosmtp.Dial(addr)
			if !assert.NoError(t, err) {
				return
			}
			defer c.Close()
			if !assert.NoError(t, c.Mail("flood@example.test", nil)) {
				return
			}
			for range per {
				err := c.Rcpt("nobody@elsewhere.test", nil)
				if !assert.Equal(t, 550, smtpCode(err), "%v", err) {
					return
				}
			}
			assert.NoError(t, c.Quit())
		})
	}
	wg.Wait()
	return time.Since(start)
}

// TestServerRefusalFloodLogs: a flood of refused commands is not a log
// line each: with the defaults, 1000 refused RCPTs in a burst from four
// sessions are at most two lines (one at once, one for the rest when
// DefaultLogInterval is up), the last refusals written when the server
// stops, and a sender is served meanwhile; with a short interval every
// refusal is counted in a line.
func TestServerRefusalFloodLogs(t *testing.T) {
	const sessions, per = 4, 250
	t.Run("defaults", func(t *testing.T) {
		var logs logRecorder
		ts := startServer(t, t.TempDir(), soapsmtp.WithLogger(logs.logger()))
		took := refuseRcpts(t, ts.addr, sessions, per)
		n := logs.count("smtp: RCPT refused")
		assert.GreaterOrEqual(t, n, 1, "the first is logged at once")
		assert.LessOrEqual(t, n, 2+int(took/soapsmtp.DefaultLogInterval), "%d lines for %d refusals in %v", n, sessions*per, took)
		require.NoError(t, rawMail(ts.addr, "buyer@example.test", []string{ts.box}, "Subject: hi\r\n\r\nhello\r\n"), "served after the flood")
		ts.shutdown()
		assert.Equal(t, sessions*per, logs.total("smtp: RCPT refused"), "every refusal is in a line once the server stopped")
	})
	t.Run("every refusal counted", func(t *testing.T) {
		var logs logRecorder
		const interval = 50 * time.Millisecond
		ts := startServer(t, t.TempDir(), soapsmtp.WithLogger(logs.logger()), soapsmtp.WithLogInterval(interval))
		start := time.Now()
		refuseRcpts(t, ts.addr, sessions, per)
		require.Eventually(t, func() bool { return logs.total("smtp: RCPT refused") == sessions*per }, 30*time.Second, 10*time.Millisecond,
			"every refusal is in a line's count while the server runs")
		took := time.Since(start)
		assert.LessOrEqual(t, logs.count("smtp: RCPT refused"), 2+int(took/interval))
	})
}
