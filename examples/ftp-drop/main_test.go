package main

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soapftp "github.com/soapwire/soapwire/bindings/ftp"
)

// runOnce runs the example in a fresh folder and returns its output and
// the folder.
func runOnce(t *testing.T) (string, string) {
	t.Helper()
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	var out bytes.Buffer
	require.NoError(t, run(ctx, &out, dir, slog.New(slog.DiscardHandler)))
	return out.String(), dir
}

// TestRun runs the exchange and checks every step it prints, and the files
// it leaves in the drop folders.
func TestRun(t *testing.T) {
	out, dir := runOnce(t)
	assert.Equal(t, want, out)

	tests := []struct {
		folder string
		files  []string // names; "*" is the fault's fresh urn:uuid
	}{
		{"shop/inbox", nil},
		{"shop/work", nil},
		{"shop/done", []string{soapftp.FileName("urn:example:order-1001"), soapftp.FileName("urn:example:order-1002"), soapftp.FileName("urn:example:order-1003")}},
		{"shop/outbox", []string{soapftp.FileName("urn:example:confirmation-1001")}},
		{"shop/failed", []string{"order-1004.fault.xml", "order-1004.xml", strings.TrimSuffix(soapftp.FileName("urn:example:order-1005"), ".xml") + soapftp.FaultSuffix, soapftp.FileName("urn:example:order-1005")}},
		{"acme/inbox", nil},
		{"acme/work", nil},
		{"acme/failed", nil},
		{"acme/done", []string{"*", soapftp.FileName("urn:example:confirmation-1002")}},
	}
	for _, tt := range tests {
		t.Run(tt.folder, func(t *testing.T) {
			entries, err := os.ReadDir(filepath.Join(dir, "ftp", tt.folder))
			require.NoError(t, err)
			var names []string
			for _, e := range entries {
				if uuidName.MatchString(e.Name()) {
					names = append([]string{"*"}, names...)
				} else {
					names = append(names, e.Name())
				}
			}
			assert.Equal(t, tt.files, names)
		})
	}
}

// TestRunGivesUpWithItsContext: a ctx that ends stops the exchange with an
// error instead of hanging.
func TestRunGivesUpWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	done := make(chan error, 1)
	go func() { done <- run(ctx, &bytes.Buffer{}, t.TempDir(), slog.New(slog.DiscardHandler)) }()
	select {
	case err := <-done:
		require.Error(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("run did not return after its ctx ended")
	}
}

// TestREADMEShowsTheOutput: the output README.md shows is what the program
// prints.
func TestREADMEShowsTheOutput(t *testing.T) {
	out, _ := runOnce(t)
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	assert.Contains(t, string(readme), "```\n"+strings.TrimSpace(out)+"\n```", "README.md's output block is out of date")
}

const want = `== Setup ==
ftp: embedded server at $FTP serving ftp/ to user partner
shop: Poller on /shop, inbox ftp://$FTP/shop/inbox, outbox ftp://$FTP/shop/outbox
customer: Poller on /acme, inbox ftp://$FTP/acme/inbox

== 1. A drop with no ReplyTo: the reply waits in the shop's outbox ==
customer: Sender dropped order 1001 (2 x tea), no ReplyTo, as /shop/inbox/urn_example_order-1001-7ca018079de5.xml
shop: picked up inbox/urn_example_order-1001-7ca018079de5.xml: order 1001, 2 x tea
shop: order 1001 confirmed, 7.00 EUR -> reply to ftp://$FTP/shop/outbox
customer: a plain FTP client downloads /shop/outbox/urn_example_confirmation-1001-5dae4b5891fe.xml
  confirmation of order 1001: 2 x tea, 7.00 EUR; RelatesTo urn:example:order-1001

== 2. ReplyTo the customer's own drop folder, through a Correlator ==
customer: Correlator drops order 1002 (3 x scones), ReplyTo ftp://$FTP/acme/inbox
shop: picked up inbox/urn_example_order-1002-7c12f4641107.xml: order 1002, 3 x scones
shop: order 1002 confirmed, 6.00 EUR -> reply to ftp://$FTP/acme/inbox
customer: its Poller picks up inbox/urn_example_confirmation-1002-c91803497f95.xml; RoundTrip returns it
  confirmation of order 1002: 3 x scones, 6.00 EUR; RelatesTo urn:example:order-1002

== 3. A bad order: the fault comes back as a file ==
customer: Correlator drops order 1003 (1 x caviar), ReplyTo ftp://$FTP/acme/inbox
shop: picked up inbox/urn_example_order-1003-646b6f65b67b.xml: order 1003, 1 x caviar
shop: order 1003 refused (no such item: caviar) -> fault to ftp://$FTP/acme/inbox
customer: its Poller picks up the fault file; RoundTrip returns a fault: Sender: no such item: caviar [{urn:example:orders}UnknownItem] (remote: true)

== 4. Drops that cannot be answered are parked in failed/ ==
customer: a plain FTP client uploads inbox/order-1004.xml, a bare PurchaseOrder (no SOAP envelope)
shop: the Poller parked it as failed/order-1004.xml, beside failed/order-1004.fault.xml:
  Sender: the root element is {urn:example:orders}PurchaseOrder, not a SOAP Envelope
customer: Sender drops order 1005 (0 x jam) with ReplyTo and FaultTo none
shop: picked up inbox/urn_example_order-1005-e7331556e9d3.xml: order 1005, 0 x jam
shop: order 1005 refused (order 1005: quantity must be at least 1) -> fault to none
shop: the Poller parked it as failed/urn_example_order-1005-e7331556e9d3.xml, beside failed/urn_example_order-1005-e7331556e9d3.fault.xml:
  Sender: order 1005: quantity must be at least 1

== The drop folders (on the server's disk) ==
/acme/
/acme/done/
  <uuid>.xml
  urn_example_confirmation-1002-c91803497f95.xml
/acme/failed/ (empty)
/acme/inbox/ (empty)
/acme/work/ (empty)
/shop/
/shop/done/
  urn_example_order-1001-7ca018079de5.xml
  urn_example_order-1002-7c12f4641107.xml
  urn_example_order-1003-646b6f65b67b.xml
/shop/failed/
  order-1004.fault.xml
  order-1004.xml
  urn_example_order-1005-e7331556e9d3.fault.xml
  urn_example_order-1005-e7331556e9d3.xml
/shop/inbox/ (empty)
/shop/outbox/
  urn_example_confirmation-1001-5dae4b5891fe.xml
/shop/quarantine/ (empty)
/shop/work/ (empty)
`
