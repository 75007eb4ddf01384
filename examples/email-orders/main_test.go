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

	soapsmtp "github.com/soapwire/soapwire/bindings/smtp"
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

// TestRun runs the exchange and checks every step it prints, and what it
// leaves in the Maildirs.
func TestRun(t *testing.T) {
	out, dir := runOnce(t)
	assert.Equal(t, want, out)

	count := func(box, folder string) (mails, faults int) {
		entries, err := os.ReadDir(filepath.Join(dir, box, "Maildir", folder))
		require.NoError(t, err)
		for _, e := range entries {
			if strings.HasSuffix(e.Name(), soapsmtp.FaultSuffix) {
				faults++
			} else {
				mails++
			}
		}
		return mails, faults
	}
	tests := []struct {
		box, folder   string
		mails, faults int
	}{
		{"shop", soapsmtp.FolderNew, 0, 0},
		{"shop", soapsmtp.FolderWork, 0, 0},
		{"shop", soapsmtp.FolderDone, 3, 0},   // orders 1001, 1002 and the copy of 1001, archived
		{"shop", soapsmtp.FolderFailed, 2, 2}, // the text/plain mail, the order naming a third party, their faults
		{"customer", soapsmtp.FolderNew, 0, 0},
		{"customer", soapsmtp.FolderWork, 0, 0},
		{"customer", soapsmtp.FolderFailed, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.box+"/"+tt.folder, func(t *testing.T) {
			mails, faults := count(tt.box, tt.folder)
			assert.Equal(t, tt.mails, mails, "mails")
			assert.Equal(t, tt.faults, faults, "fault files")
		})
	}
}

// TestRunGivesUpWithItsContext: a ctx that ends stops the exchange with an
// error instead of hanging, and everything it started is stopped.
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
shop: SMTP server for orders@shop.example, storing mail in shop/Maildir/
customer: SMTP server for buyer@customer.example, storing mail in customer/Maildir/

== 1. An order by mail, its confirmation by mail ==
customer: mails order 1001 (2 x tea) to mailto:orders@shop.example, message id mid:order-1001@customer.example
shop: mail from buyer@customer.example, Message-ID <order-1001@customer.example>, Subject "urn:example:orders:PurchaseOrder"
shop: order 1001: 2 x tea, 7.00 EUR -> confirmation to mailto:buyer@customer.example
customer: confirmation for order 1001 arrives by mail: 2 x tea, 7.00 EUR
  From orders@shop.example, Subject "urn:example:orders:Confirmation"
  Message-ID <confirmation-1001@shop.example>, In-Reply-To <order-1001@customer.example>
  wsa:RelatesTo mid:order-1001@customer.example: the Correlator matched it to the order

== 2. An order the shop cannot take: a fault by mail ==
customer: mails order 1002 (1 x caviar) to mailto:orders@shop.example, message id mid:order-1002@customer.example
shop: mail from buyer@customer.example, Message-ID <order-1002@customer.example>, Subject "urn:example:orders:PurchaseOrder"
shop: order 1002: no such item "caviar" -> Sender fault to mailto:buyer@customer.example
customer: fault for order 1002 arrives by mail: Sender: no such item: caviar [{urn:example:orders}UnknownItem] (remote: true)

== 3. The same order mailed twice ==
customer: mails order 1001 again, same message id mid:order-1001@customer.example
shop: mail from buyer@customer.example, Message-ID <order-1001@customer.example>, Subject "urn:example:orders:PurchaseOrder"
customer: another confirmation arrives, Message-ID <confirmation-1001@shop.example>, In-Reply-To <order-1001@customer.example>
  no call waits for it: the Correlator hands it to its fallback (document.match=unmatched)
shop: order 1001 arrived 2 times and the order handler ran 1 time: the document.Handler answered the copy with the confirmation it recorded

== 4. A mail that is not SOAP ==
customer: a mail program sends orders@shop.example a text/plain mail: "Please send 3 jars of jam."
shop: the Receiver parks it in shop/Maildir/failed/ without calling the handler, beside a fault file:
  <mail>.fault.xml: Sender: not a SOAP mail: no application/soap+xml or text/xml part in "text/plain; charset=utf-8"
  nothing is mailed back: the sender of a mail that is not SOAP gets no SOAP fault

== 5. An order whose answer would go to a third party ==
someone mails order 1003 (100 x tea) with wsa:ReplyTo and wsa:FaultTo mailto:victim@elsewhere.example
shop: mail from buyer@customer.example, Message-ID <order-1003@customer.example>, Subject "urn:example:orders:PurchaseOrder"
shop: the document.Handler refuses it before the order handler runs (0 runs for order 1003); it is parked in shop/Maildir/failed/, beside a fault file:
  <mail>.fault.xml: Sender: reply address "mailto:victim@elsewhere.example": mailbox "victim@elsewhere.example" is not allowed
  nothing is mailed to the third party: answers go only to the shop's customers (core.ReplyPolicy)

== What is left in the Maildirs ==
shop/Maildir/
  new/     0 mails
  work/    0 mails
  done/    3 mails
  failed/  2 mails, 2 fault files
customer/Maildir/
  new/     0 mails
  work/    0 mails
  failed/  0 mails
`
