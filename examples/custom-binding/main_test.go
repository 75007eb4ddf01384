package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRun runs the example: a quote Server, two spooling Inboxes under
// core.Serve, a restart. The binding's own conformance and refusal tests
// are in ./unixsock (go test ./examples/custom-binding/...).
func TestRun(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), &out))
	assert.Equal(t, `== 1. Calls: a unixsock.Server answers with a core.Handler ==
quotes: serving on unix:$DIR/quotes.sock
client: GetQuote tea -> 3.50, action urn:example:shop/Quote, RelatesTo urn:example:quote-1
client: GetQuote caviar -> fault Sender: no price for caviar (remote: true)
quotes: visit from ada noted
client: Visit (SOAP 1.1) -> accepted, reply <nil>

== 2. One-way orders: a spooling unixsock.Inbox driven by core.Serve ==
orders inbox: unix:$DIR/orders.sock (spool $DIR/orders, 2 attempts); receipts inbox: unix:$DIR/receipts.sock
client: order 1 (tea) stored in the orders inbox
client: order 2 (scones) stored in the orders inbox
client: order 3 (anvil) stored in the orders inbox
client: order 4 (caviar) stored in the orders inbox
shop: order 1 attempt 1: tea accepted, receipt to ReplyTo
shop: order 2 attempt 1: oven not hot yet (a plain error; FaultTo none, so Serve Nacks: redelivery)
shop: order 2 attempt 2: scones accepted, receipt to ReplyTo
shop: order 3 attempt 1: out of stock (FaultTo none, so Serve Nacks)
shop: order 3 attempt 2: out of stock (FaultTo none, so Serve Nacks)
shop: order 4 attempt 1: unknown item caviar (a Sender fault, sent to FaultTo)
client: fault at the receipts inbox, RelatesTo urn:example:order-4: Sender: unknown item caviar
client: receipt at the receipts inbox, RelatesTo urn:example:order-1: order 1 accepted
client: receipt at the receipts inbox, RelatesTo urn:example:order-2: order 2 accepted
orders inbox: parked in failed/ after 2 attempts, beside its fault: Receiver: out of stock: anvil

== 3. Stored means stored: a restart ==
client: order 5 (jam) stored while the shop is down
orders inbox: closed with 1 message queued
orders inbox: reopened on the same spool, 1 message waiting
shop: order 5 attempt 1: jam accepted, receipt to ReplyTo
client: receipt at the receipts inbox, RelatesTo urn:example:order-5: order 5 accepted

`, out.String())
}

// TestREADMEShowsTheOutput: the output README.md shows is what the program
// prints.
func TestREADMEShowsTheOutput(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), &out))
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	assert.Contains(t, string(readme), "```\n"+strings.TrimSpace(out.String())+"\n```", "README.md's output block is out of date")
}
