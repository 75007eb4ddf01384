package ftp_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soapftp "github.com/soapwire/soapwire/bindings/ftp"
	"github.com/soapwire/soapwire/core"
)

// serverHook is a slog.Handler for the embedded server's logger. goftp logs
// each command before it runs it, so onCommand runs (once) in the session,
// between the command's arrival and its execution: a test can change a file
// exactly between a LIST and the RETR that follows. It also keeps the
// server's replies.
type serverHook struct {
	cmd, suffix string // the command, and how its parameter ends
	onCommand   func(param string)
	once        sync.Once
	mu          sync.Mutex
	replies     []string // "code msg"
}

func (h *serverHook) Enabled(context.Context, slog.Level) bool { return true }
func (h *serverHook) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *serverHook) WithGroup(string) slog.Handler            { return h }

func (h *serverHook) Handle(_ context.Context, r slog.Record) error {
	attrs := map[string]string{}
	r.Attrs(func(a slog.Attr) bool { attrs[a.Key] = a.Value.String(); return true })
	switch r.Message {
	case "ftp server command":
		if strings.EqualFold(attrs["cmd"], h.cmd) && strings.HasSuffix(attrs["params"], h.suffix) {
			h.once.Do(func() { h.onCommand(attrs["params"]) })
		}
	case "ftp server reply":
		h.mu.Lock()
		h.replies = append(h.replies, attrs["code"]+" "+attrs["msg"])
		h.mu.Unlock()
	}
	return nil
}

func (h *serverHook) seen() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.replies...)
}

// TestDownloadCrossesMaxBytes: a file whose listing gave a size under
// MaxBytes but which is larger when it is downloaded (here it is rewritten,
// ten thousand times larger, between the Poller's LIST and its RETR) is cut
// off after MaxBytes+1 bytes, whether the spool holds it in memory or on
// disk: the transfer is aborted (the server answers 426, it never sent the
// whole file), the file is parked in failed/ unchanged with a Sender fault
// saying "more than <n> bytes", the handler never sees it, and the parking
// is logged.
func TestDownloadCrossesMaxBytes(t *testing.T) {
	const limit = 4096
	small := envelope(t, ping(core.V12, "small"))
	require.Less(t, len(small), limit)
	big := envelope(t, ping(core.V12, strings.Repeat("y", 32<<20))) // far more than loopback buffers hold
	for _, tc := range []struct {
		name   string
		onDisk bool
	}{
		{"spooled in memory", false},
		{"spooled on disk", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spoolDir := t.TempDir()
			opts := []soapftp.PollerOption{soapftp.WithLimits(core.Limits{MaxBytes: limit})}
			if tc.onDisk { // memory for 1 KiB, the rest in a file
				opts = append(opts, soapftp.WithSpool(1024, spoolDir))
			}
			trace := traceOnFailure(t)
			hook := &serverHook{cmd: "RETR", suffix: ".grows.xml"}
			srv := startServer(t, soapftp.WithLogger(slog.New(slog.NewMultiHandler(hook, trace.With("by", "server").Handler()))))
			hook.onCommand = func(param string) {
				// A partner's tool replaces the file with a much larger one.
				assert.NoError(t, os.WriteFile(filepath.Join(srv.Root(), filepath.FromSlash(param)), big, 0o644))
			}
			lb := &logBuffer{}
			c := soapftp.NewClient(srv.Addr(), testUser, testPass, soapftp.WithLogger(lb.logger(trace.With("by", "client"))))
			t.Cleanup(func() { c.Close() })
			e := &env{srv: srv, client: c, log: lb, trace: trace}
			p := e.poller(t, "/grow", opts...)

			e.drop(t, "grow/inbox", "grows.xml", small)
			var handled atomic.Int64
			serve(t, p, core.HandlerFunc(func(context.Context, *core.Message) (*core.Message, error) {
				handled.Add(1)
				return nil, nil
			}), nil)
			require.Eventually(t, func() bool { return len(e.files(t, "grow/failed")) == 2 }, 20*time.Second, 5*time.Millisecond,
				"failed/ holds %v", e.files(t, "grow/failed"))

			assert.ElementsMatch(t, []string{"grows.xml", "grows.fault.xml"}, e.files(t, "grow/failed"))
			f := readFault(t, e.path("grow/failed", "grows.fault.xml"))
			assert.Equal(t, core.CodeSender, f.Code)
			assert.Contains(t, f.Reason, "grows.xml")
			assert.Contains(t, f.Reason, fmt.Sprintf("file too large: more than %d bytes", limit), "cut off while downloading")
			assert.NotContains(t, f.Reason, "the limit is", "not refused by the listed size: the listing said %d bytes", len(small))
			parked, err := os.ReadFile(e.path("grow/failed", "grows.xml"))
			require.NoError(t, err)
			assert.True(t, bytes.Equal(big, parked), "the parked file is the file as the server held it (%d bytes, want %d)", len(parked), len(big))
			e.log.contains(t, "ftp: message parked in the failed folder")
			e.log.contains(t, "name=grows.xml")
			e.log.contains(t, fmt.Sprintf("more than %d bytes", limit))

			replies := hook.seen()
			assert.Contains(t, replies, "426 Connection closed; transfer aborted", "the Poller stopped reading: the server could not send it all")
			retrs := 0
			for _, r := range replies {
				assert.NotContains(t, r, fmt.Sprintf("sent %d bytes", len(big)), "the whole file was downloaded")
				if r == fmt.Sprintf("150 Data transfer starting %d bytes", len(big)) {
					retrs++
				}
			}
			assert.Equal(t, 1, retrs, "downloaded once: a download stopped at the limit is not a broken connection to retry on; replies %q", replies)
			assert.NotContains(t, e.log.String(), "pooled connection broke")
			assert.Zero(t, handled.Load(), "the handler got the file")
			assert.Empty(t, e.files(t, "grow/inbox"))
			assert.Empty(t, e.files(t, "grow/work"))
			left, err := os.ReadDir(spoolDir)
			require.NoError(t, err)
			assert.Empty(t, left, "spool files are unlinked")
		})
	}
}

// TestBodyFaultWhileStreaming: a whole file whose envelope starts well but
// whose Body is malformed XML, or nests deeper than Limits.MaxDepth, reaches
// the handler (the Poller reads only the envelope's start), which meets the
// fault while it decodes the Body and returns it. core.Serve then sends that
// Sender fault where the binding sends faults: the endpoint's outbox for an
// anonymous or absent ReplyTo, the folder FaultTo names, and nowhere when
// ReplyTo and FaultTo are none. Either way the file is malformed, so it is
// never Acked: it is parked in failed/ with the fault beside it, and
// nothing is left in the inbox or the work folder.
func TestBodyFaultWhileStreaming(t *testing.T) {
	e := newEnv(t)
	require.NoError(t, os.MkdirAll(e.path("faults"), 0o755))
	l := soapftp.DefaultLayout()
	l.Done = "done"
	p := e.poller(t, "/svc", soapftp.WithLayout(l), soapftp.WithLimits(core.Limits{MaxDepth: 16}))
	serveLog := &logBuffer{}
	var calls atomic.Int64
	serve(t, p, core.HandlerFunc(func(_ context.Context, m *core.Message) (*core.Message, error) {
		calls.Add(1)
		var v struct {
			Text string `xml:",innerxml"`
		}
		if err := m.Body().Decode(&v); err != nil {
			return nil, fmt.Errorf("decode the order: %w", err)
		}
		return nil, nil
	}), soapftp.NewSender(e.client, soapftp.WithLogger(e.trace.With("by", "sender"))),
		core.WithLogger(serveLog.logger(e.trace.With("by", "serve"))))

	// file returns the envelope of a Ping whose text is replaced by inner.
	file := func(m *core.Message, inner string) []byte {
		return bytes.Replace(envelope(t, m), []byte("PLACEHOLDER"), []byte(inner), 1)
	}
	deep := strings.Repeat("<a>", 20) + "x" + strings.Repeat("</a>", 20)

	toOutbox := ping(core.V11, "PLACEHOLDER") // ReplyTo absent: the outbox
	outboxFile := file(toOutbox, "<n>1</m>")
	toFaultTo := ping(core.V12, "PLACEHOLDER")
	toFaultTo.ReplyTo, toFaultTo.FaultTo = e.client.URL("/svc/outbox"), e.client.URL("/faults")
	faultToFile := file(toFaultTo, "a &bogus; b")
	nowhere := ping(core.V12, "PLACEHOLDER")
	nowhere.ReplyTo, nowhere.FaultTo = core.NoneAddress, core.NoneAddress
	nowhereFile := file(nowhere, deep)
	for _, f := range []struct {
		name string
		data []byte
	}{{"to-outbox.xml", outboxFile}, {"to-faultto.xml", faultToFile}, {"nowhere.xml", nowhereFile}} {
		upload(t, e, "/svc/inbox/"+f.name, f.data)
	}

	require.Eventually(t, func() bool {
		return len(e.files(t, "svc/outbox")) == 1 && len(e.files(t, "faults")) == 1 &&
			len(e.files(t, "svc/failed")) == 6 && len(e.files(t, "svc/done")) == 0
	}, 20*time.Second, 5*time.Millisecond, "outbox %v faults %v failed %v done %v",
		e.files(t, "svc/outbox"), e.files(t, "faults"), e.files(t, "svc/failed"), e.files(t, "svc/done"))
	assert.EqualValues(t, 3, calls.Load(), "the handler ran for each and met the fault while reading")

	t.Run("malformed, anonymous ReplyTo: the fault in the outbox", func(t *testing.T) {
		m := readFile(t, e.path("svc/outbox", e.files(t, "svc/outbox")[0]))
		assert.Equal(t, core.V11, m.Version())
		assert.Equal(t, toOutbox.ID, m.RelatesTo)
		assert.Equal(t, core.FaultAction, m.Action)
		require.NotNil(t, m.Fault())
		assert.Equal(t, core.CodeSender, m.Fault().Code)
		assert.Contains(t, m.Fault().Reason, "closed by </m>")
		kept(t, e, "svc/failed/to-outbox.xml", outboxFile)
	})
	t.Run("malformed, FaultTo a folder: the fault there", func(t *testing.T) {
		m := readFile(t, e.path("faults", e.files(t, "faults")[0]))
		assert.Equal(t, core.V12, m.Version())
		assert.Equal(t, toFaultTo.ID, m.RelatesTo)
		require.NotNil(t, m.Fault())
		assert.Equal(t, core.CodeSender, m.Fault().Code)
		assert.Contains(t, m.Fault().Reason, "&bogus;")
		kept(t, e, "svc/failed/to-faultto.xml", faultToFile)
	})
	t.Run("too deep, nowhere to go: parked with the fault", func(t *testing.T) {
		assert.ElementsMatch(t, []string{"nowhere.xml", "nowhere.fault.xml", "to-outbox.xml", "to-outbox.fault.xml",
			"to-faultto.xml", "to-faultto.fault.xml"}, e.files(t, "svc/failed"))
		f := readFault(t, e.path("svc/failed", "nowhere.fault.xml"))
		assert.Equal(t, core.CodeSender, f.Code)
		assert.Contains(t, f.Reason, "nested deeper than 16")
		kept(t, e, "svc/failed/nowhere.xml", nowhereFile)
		serveLog.contains(t, "soap: fault with nowhere to go; parking the message")
		serveLog.contains(t, "nested deeper than 16")
		e.log.contains(t, "ftp: message parked in the failed folder")
		e.log.contains(t, "name=nowhere.xml")
	})
	assert.Empty(t, e.files(t, "svc/inbox"))
	assert.Empty(t, e.files(t, "svc/work"))
}

// readFile reads a message file.
func readFile(t testing.TB, file string) *core.Message {
	t.Helper()
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	m, err := core.ReadMessage(bytes.NewReader(data), core.Limits{})
	require.NoError(t, err, "%s", data)
	return m
}

// kept checks that the file at p (below the server's root) holds data.
func kept(t testing.TB, e *env, p string, data []byte) {
	t.Helper()
	got, err := os.ReadFile(e.path(filepath.FromSlash(p)))
	require.NoError(t, err)
	assert.Equal(t, string(data), string(got), "%s is the file as it was dropped", p)
}
