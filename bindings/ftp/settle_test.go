package ftp_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soapftp "github.com/soapwire/soapwire/bindings/ftp"
	"github.com/soapwire/soapwire/core"
)

// unfinished is the debug line a Poller logs when it gives back a file
// that looks unfinished.
const unfinished = "file looks unfinished"

// debugLogger logs into lb at debug level, and into the env's trace.
func debugLogger(e *env, lb *logBuffer) *slog.Logger {
	return slog.New(slog.NewMultiHandler(
		slog.NewTextHandler(lb, &slog.HandlerOptions{Level: slog.LevelDebug}),
		e.trace.Handler(),
	))
}

// TestUploadUnderFinalName: a partner's tool that uploads with a plain
// STOR under the final name makes the file appear, empty, as the upload
// starts. The Poller finds it unfinished, gives it back, and takes it as
// soon as the upload is done: the handler gets the whole message, nothing
// is parked. The settle time is long, so the file was not taken by waiting
// it out.
func TestUploadUnderFinalName(t *testing.T) {
	e := newEnv(t)
	lb := &logBuffer{}
	p := e.poller(t, "/plain", soapftp.WithSettle(time.Minute), soapftp.WithLogger(debugLogger(e, lb)))
	got := make(chan *core.Message, 1)
	serve(t, p, core.HandlerFunc(func(_ context.Context, m *core.Message) (*core.Message, error) {
		// the body is read before the handler returns (the verdict reads
		// what is left of it then)
		var b bytes.Buffer
		if _, err := m.Body().WriteTo(&b); err != nil {
			return nil, err
		}
		m.Envelope.Body = core.RawBody(b.Bytes())
		got <- m
		return nil, nil
	}), nil)

	m := ping(core.V11, "sent in two halves")
	data := envelope(t, m)
	pr, pw := io.Pipe()
	t.Cleanup(func() { pw.Close() })
	c := rawConn(t, e.srv.Addr())
	stored := make(chan error, 1)
	go func() { stored <- c.Stor("/plain/inbox/order.xml", pr) }()
	_, err := pw.Write(data[:len(data)/2])
	require.NoError(t, err)
	lb.contains(t, unfinished) // the Poller saw it mid-upload and gave it back
	select {
	case r := <-got:
		t.Fatalf("the handler got %s mid-upload", r.ID)
	default:
	}
	_, err = pw.Write(data[len(data)/2:])
	require.NoError(t, err)
	require.NoError(t, pw.Close())
	require.NoError(t, <-stored)

	select {
	case r := <-got:
		assert.Equal(t, m.ID, r.ID)
		assert.Equal(t, "sent in two halves", text(t, r))
		assert.Equal(t, "order.xml", r.Meta[soapftp.MetaFile])
	case <-time.After(10 * time.Second):
		t.Fatalf("the upload was not processed; inbox %v, work %v, failed %v",
			e.files(t, "plain/inbox"), e.files(t, "plain/work"), e.files(t, "plain/failed"))
	}
	require.Eventually(t, func() bool {
		return len(e.files(t, "plain/inbox")) == 0 && len(e.files(t, "plain/work")) == 0
	}, 10*time.Second, 5*time.Millisecond)
	assert.Empty(t, e.files(t, "plain/failed"), "nothing parked")
}

// TestGrowingFileOnDisk: the same with the file written on the server's
// disk in steps (as a server-side process or an upload through another
// server would), the Poller renaming it back and forth meanwhile: each
// step that leaves it unfinished is given back, the last one is taken.
func TestGrowingFileOnDisk(t *testing.T) {
	e := newEnv(t)
	lb := &logBuffer{}
	p := e.poller(t, "/grow", soapftp.WithSettle(time.Minute), soapftp.WithLogger(debugLogger(e, lb)))
	m := ping(core.V12, "written in steps")
	data := envelope(t, m)
	f, err := os.Create(e.path("grow/inbox", "grow.xml"))
	require.NoError(t, err)
	t.Cleanup(func() { f.Close() })

	received := make(chan core.Delivery, 1)
	go func() {
		d, err := p.Receive(ctx(t))
		assert.NoError(t, err)
		received <- d
	}()
	steps := [][]byte{nil, data[:10], data[10 : len(data)-3], data[len(data)-3:]}
	for i, step := range steps {
		// The Poller gives back each unfinished size once (it looks again
		// only when the size changes), so count before writing.
		n := strings.Count(lb.String(), unfinished)
		if i == 0 {
			n = 0 // the empty file is there since before Receive
		}
		_, err := f.Write(step)
		require.NoError(t, err)
		if i == len(steps)-1 {
			break
		}
		require.Eventually(t, func() bool { return strings.Count(lb.String(), unfinished) > n }, 10*time.Second, time.Millisecond,
			"step %d: the Poller did not look at the file", i)
		select {
		case d := <-received:
			t.Fatalf("step %d: received %v from an unfinished file", i, d)
		default:
		}
	}
	select {
	case d := <-received:
		require.NotNil(t, d)
		assert.Equal(t, "written in steps", text(t, d.Message()))
		require.NoError(t, d.Ack(ctx(t)))
	case <-time.After(10 * time.Second):
		t.Fatal("the finished file was not received")
	}
	assert.Empty(t, e.files(t, "grow/failed"))
}

// TestUnfinishedFileSettles: a file that stays unfinished (an upload that
// broke off, or a file that is not an envelope) is parked with its fault
// once it has kept its size for the settle time, and not before.
func TestUnfinishedFileSettles(t *testing.T) {
	const settle = 300 * time.Millisecond
	e := newEnv(t)
	lb := &logBuffer{}
	p := e.poller(t, "/cut", soapftp.WithSettle(settle), soapftp.WithLogger(debugLogger(e, lb)))
	handled := make(chan string, 1)
	serve(t, p, core.HandlerFunc(func(_ context.Context, m *core.Message) (*core.Message, error) {
		handled <- m.ID
		return nil, nil
	}), nil)
	data := envelope(t, ping(core.V11, "cut short"))
	start := time.Now()
	e.drop(t, "cut/inbox", "cut.xml", data[:len(data)-20])
	require.Eventually(t, func() bool { return len(e.files(t, "cut/failed")) == 2 }, 10*time.Second, 5*time.Millisecond)
	assert.GreaterOrEqual(t, time.Since(start), settle, "parked before the settle time")
	assert.ElementsMatch(t, []string{"cut.xml", "cut.fault.xml"}, e.files(t, "cut/failed"))
	f := readFault(t, e.path("cut/failed", "cut.fault.xml"))
	assert.Equal(t, core.CodeSender, f.Code)
	parked, err := os.ReadFile(e.path("cut/failed", "cut.xml"))
	require.NoError(t, err)
	assert.Equal(t, data[:len(data)-20], parked, "the parked file is unchanged")
	assert.Contains(t, lb.String(), unfinished)
	select {
	case id := <-handled:
		t.Errorf("the handler got %s", id)
	default:
	}
}

// TestEndsWithEnvelope: the test of a whole file. Every strict prefix of
// an envelope fails it (but for trailing white space), the envelope passes.
func TestEndsWithEnvelope(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want bool
	}{
		{"", false},
		{"<s:Envelope xmlns:s='x'/>", false}, // an empty envelope is not a SOAP message anyway
		{"<Envelope></Envelope>", true},
		{"<s:Envelope></s:Envelope>\r\n \t", true},
		{"<s:Envelope></s:Envelope >", true},
		{"<s:Envelope></s:Envelope", false},
		{"<s:Envelope></s:Envelop", false},
		{"<s:Envelope></s:", false},
		{"</:Envelope>", false},
		{"</1s:Envelope>", false},
		{"</s:x:Envelope>", false},
		{"</s:Envelopes>", false},
		{"</s:MyEnvelope>", false},
		{"</s: Envelope>", false},
		{"</ü:Envelope>", true},
		{"<html></html>", false},
		{"</s:Envelope><!-- a comment after the root -->", false}, // waits the settle time, then is read as it is
	} {
		assert.Equal(t, tt.want, soapftp.EndsWithEnvelope([]byte(tt.in)), "%q", tt.in)
	}
	for _, v := range []core.Version{core.V11, core.V12} {
		data := envelope(t, ping(v, "whole"))
		require.True(t, soapftp.EndsWithEnvelope(data))
		end := len(bytes.TrimRight(data, " \t\r\n"))
		for i := range end {
			require.False(t, soapftp.EndsWithEnvelope(data[:i]), "prefix of %d bytes: %q", i, data[:i])
		}
	}
}

// FuzzEndsWithEnvelope: any input passes only when it ends with an
// Envelope end tag, and no prefix cut inside that tag passes.
func FuzzEndsWithEnvelope(f *testing.F) {
	for _, s := range []string{"", "</s:Envelope>", "</Envelope >\n", "<a></a>", "</:Envelope>", "</s:Envelope", "\xff</\xff:Envelope>"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !soapftp.EndsWithEnvelope(b) {
			return
		}
		s := strings.TrimRight(string(b), " \t\r\n")
		require.True(t, strings.HasSuffix(s, ">"))
		s = strings.TrimRight(strings.TrimSuffix(s, ">"), " \t\r\n")
		require.True(t, strings.HasSuffix(s, "Envelope"), "%q", b)
		i := strings.LastIndex(s, "</")
		require.GreaterOrEqual(t, i, 0)
		for j := i; j < len(s); j++ {
			require.False(t, soapftp.EndsWithEnvelope([]byte(s[:j])), "a cut at %d of %q passes", j, b)
		}
	})
}
