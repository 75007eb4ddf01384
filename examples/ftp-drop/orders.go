package main

import (
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"path"

	soapftp "github.com/soapwire/soapwire/bindings/ftp"
	"github.com/soapwire/soapwire/core"
)

// ns is the namespace of the example's documents.
const ns = "urn:example:orders"

// Actions of the documents.
const (
	actionOrder        = ns + ":PurchaseOrder"
	actionConfirmation = ns + ":Confirmation"
)

// PurchaseOrder is what the customer drops in the shop's inbox.
type PurchaseOrder struct {
	XMLName  xml.Name `xml:"urn:example:orders PurchaseOrder"`
	Number   string   `xml:"Number"`
	Item     string   `xml:"Item"`
	Quantity int      `xml:"Quantity"`
}

// Confirmation is the shop's answer.
type Confirmation struct {
	XMLName  xml.Name `xml:"urn:example:orders Confirmation"`
	Number   string   `xml:"Number"`
	Item     string   `xml:"Item"`
	Quantity int      `xml:"Quantity"`
	Total    string   `xml:"Total"`
}

// prices is the shop's catalogue, in cents.
var prices = map[string]int{"tea": 350, "scones": 200, "jam": 425}

// orderID is the message id of an order: stable, so that the file names
// the example prints are the same on every run (the default is a fresh
// urn:uuid, whose file is <uuid>.xml).
func orderID(number string) string { return "urn:example:order-" + number }

// shopHandler is the shop's core.Handler: it confirms an order, or
// returns a Sender fault. core.Serve sends what it returns to the order's
// ReplyTo or FaultTo through an FTP Sender.
func shopHandler(w io.Writer, show func(string) string) core.Handler {
	return core.HandlerFunc(func(_ context.Context, m *core.Message) (*core.Message, error) {
		var po PurchaseOrder
		if err := m.Body().Decode(&po); err != nil {
			return nil, err // a Sender fault from core: not an order
		}
		fmt.Fprintf(w, "shop: picked up inbox/%s: order %s, %d x %s\n", path.Base(m.Meta[soapftp.MetaFile]), po.Number, po.Quantity, po.Item)
		cents, ok := prices[po.Item]
		var fault *core.Fault
		switch {
		case !ok:
			fault = &core.Fault{
				Code:     core.CodeSender,
				Subcodes: []xml.Name{{Space: ns, Local: "UnknownItem"}},
				Reason:   "no such item: " + po.Item,
			}
		case po.Quantity < 1:
			fault = core.SenderFault("order %s: quantity must be at least 1", po.Number)
		}
		if fault != nil {
			fmt.Fprintf(w, "shop: order %s refused (%s) -> fault to %s\n", po.Number, fault.Reason, show(faultTo(m)))
			return nil, fault
		}
		total := fmt.Sprintf("%d.%02d EUR", cents*po.Quantity/100, cents*po.Quantity%100)
		fmt.Fprintf(w, "shop: order %s confirmed, %s -> reply to %s\n", po.Number, total, show(m.ReplyTo))
		reply := m.Reply(core.ValueBody(Confirmation{Number: po.Number, Item: po.Item, Quantity: po.Quantity, Total: total}))
		reply.Action = actionConfirmation
		reply.ID = "urn:example:confirmation-" + po.Number // stable, as orderID
		return reply, nil
	})
}

// faultTo is where core.Serve sends a fault about m.
func faultTo(m *core.Message) string {
	if m.FaultTo != "" {
		return m.FaultTo
	}
	return m.ReplyTo
}
