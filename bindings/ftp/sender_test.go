package ftp_test

import (
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soapftp "github.com/soapwire/soapwire/bindings/ftp"
	"github.com/soapwire/soapwire/core"
)

// TestSendStoresFile: Send stores the envelope as <id>.xml in the folder
// of m.To, leaves no temporary file, reports the path in Meta, and gives a
// message without an ID a fresh one.
func TestSendStoresFile(t *testing.T) {
	e := newEnv(t)
	require.NoError(t, os.MkdirAll(e.path("drop"), 0o755))
	s := soapftp.NewSender(e.client)
	tests := []struct {
		name, id string
	}{
		{"UUID", "urn:uuid:0d2b7a64-2c4c-4a8e-9a57-3b1f6f0e9c11"},
		{"Odd", "mid:colon/slash"},
		{"None", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := ping(core.V11, tt.name)
			m.ID, m.To = tt.id, e.srv.URL("/drop")
			require.NoError(t, s.Send(ctx(t), m))
			require.NotEmpty(t, m.ID)
			if tt.id != "" {
				assert.Equal(t, tt.id, m.ID)
			}
			name := soapftp.FileName(m.ID)
			assert.Equal(t, "/drop/"+name, m.Meta[soapftp.MetaFile])
			data, err := os.ReadFile(e.path("drop", name))
			require.NoError(t, err)
			assert.Equal(t, string(envelope(t, m)), string(data))
		})
	}
	assert.Len(t, e.files(t, "drop"), len(tests), "no temporary files left: %v", e.files(t, "drop"))
}

// TestSendRefusals: addresses a Sender will not use, and a missing folder.
func TestSendRefusals(t *testing.T) {
	e := newEnv(t)
	s := soapftp.NewSender(e.client)
	tests := []struct {
		to   string
		want error
	}{
		{"", soapftp.ErrAddress},
		{"mailto:a@example.org", soapftp.ErrAddress},
		{"ftp://", soapftp.ErrAddress},
		{"ftp://user:pw@" + e.srv.Addr() + "/drop", soapftp.ErrAddress},
		{"ftp://" + e.srv.Addr() + "/drop?x=1", soapftp.ErrAddress},
		{"ftp://" + e.srv.Addr() + "/drop#frag", soapftp.ErrAddress},
		{"ftp://" + e.srv.Addr() + "/a/../../etc", soapftp.ErrAddress},
		{"ftp://" + e.srv.Addr() + "/a%0d%0aDELE%20x", soapftp.ErrAddress},
		{"ftp://example.org/drop", soapftp.ErrForeignServer},
		{"ftp://127.0.0.1:1/drop", soapftp.ErrForeignServer},
		{"ftp://localhost" + strings.TrimPrefix(e.srv.Addr(), "127.0.0.1") + "/drop", soapftp.ErrForeignServer},
		{"ftp://" + e.srv.Addr() + "0/drop", soapftp.ErrAddress}, // port over 65535
		{"ftp://::/drop", soapftp.ErrAddress},
	}
	for _, tt := range tests {
		t.Run(tt.to, func(t *testing.T) {
			m := ping(core.V12, "x")
			m.To = tt.to
			require.ErrorIs(t, s.Send(ctx(t), m), tt.want)
			assert.Empty(t, m.Meta[soapftp.MetaFile])
		})
	}
	t.Run("MissingFolder", func(t *testing.T) {
		m := ping(core.V12, "x")
		m.To = e.srv.URL("/no/such/folder")
		err := s.Send(ctx(t), m)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "ftp: send")
	})
	t.Run("NoEnvelope", func(t *testing.T) {
		require.Error(t, s.Send(ctx(t), &core.Message{To: e.srv.URL("/")}))
	})
}

// slowMessage is a message whose body trickles out, a little every few
// milliseconds, until release is closed or a write fails.
func slowMessage(to string, release <-chan struct{}) *core.Message {
	m := core.NewMessage(core.V12, core.StreamBody(xmlName("Ping"), func(w io.Writer) error {
		if _, err := io.WriteString(w, `<t:Ping xmlns:t="`+testNS+`">`); err != nil {
			return err
		}
		for {
			select {
			case <-release:
				_, err := io.WriteString(w, `</t:Ping>`)
				return err
			case <-time.After(2 * time.Millisecond):
			}
			if _, err := io.WriteString(w, strings.Repeat("x", 8<<10)); err != nil {
				return err
			}
		}
	}))
	m.ID, m.To = core.NewMessageID(), to
	return m
}

// TestSendDeadline: a ctx deadline interrupts an upload in the middle; the
// temporary file is removed and no final file appears. The Client keeps
// working.
func TestSendDeadline(t *testing.T) {
	e := newEnv(t)
	require.NoError(t, os.MkdirAll(e.path("slow"), 0o755))
	s := soapftp.NewSender(e.client)
	never := make(chan struct{})
	t.Cleanup(func() { close(never) })
	m := slowMessage(e.srv.URL("/slow"), never)
	c, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	err := s.Send(c, m)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.Eventually(t, func() bool { return len(e.files(t, "slow")) == 0 }, 10*time.Second, 5*time.Millisecond,
		"left behind: %v", e.files(t, "slow"))

	ok := ping(core.V12, "after")
	ok.To = e.srv.URL("/slow")
	require.NoError(t, s.Send(ctx(t), ok))
	assert.Equal(t, []string{soapftp.FileName(ok.ID)}, e.files(t, "slow"))
}

// TestSendCancelMidUpload: cancelling ctx mid-upload behaves as a deadline.
func TestSendCancelMidUpload(t *testing.T) {
	e := newEnv(t)
	require.NoError(t, os.MkdirAll(e.path("cancel"), 0o755))
	never := make(chan struct{})
	t.Cleanup(func() { close(never) })
	c, cancel := context.WithCancel(context.Background())
	m := slowMessage(e.srv.URL("/cancel"), never)
	time.AfterFunc(50*time.Millisecond, cancel)
	err := soapftp.NewSender(e.client).Send(c, m)
	require.ErrorIs(t, err, context.Canceled)
	require.Eventually(t, func() bool { return len(e.files(t, "cancel")) == 0 }, 10*time.Second, 5*time.Millisecond)
}

// TestSendBodyError: a body that fails while being written leaves nothing
// behind and the error says why.
func TestSendBodyError(t *testing.T) {
	e := newEnv(t)
	require.NoError(t, os.MkdirAll(e.path("broken"), 0o755))
	boom := errors.New("the database went away")
	m := core.NewMessage(core.V11, core.StreamBody(xmlName("Ping"), func(w io.Writer) error {
		io.WriteString(w, `<t:Ping xmlns:t="`+testNS+`">half`)
		return boom
	}))
	m.To = e.srv.URL("/broken")
	err := soapftp.NewSender(e.client).Send(ctx(t), m)
	require.ErrorIs(t, err, boom)
	require.Eventually(t, func() bool { return len(e.files(t, "broken")) == 0 }, 10*time.Second, 5*time.Millisecond,
		"left behind: %v", e.files(t, "broken"))
}
