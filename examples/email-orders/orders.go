package main

import (
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/document"
)

// ns is the namespace of the example's documents.
const ns = "urn:example:orders"

// Actions of the two documents.
const (
	actionOrder        = ns + ":PurchaseOrder"
	actionConfirmation = ns + ":Confirmation"
)

// PurchaseOrder is what the customer mails to the shop.
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

// shop is the order service: a document.HandleFunc that confirms orders,
// and a count of how many times it ran for each order.
type shop struct {
	w io.Writer

	mu   sync.Mutex
	runs map[string]int // order number → times the HandleFunc ran
}

func newShop(w io.Writer) *shop { return &shop{w: w, runs: map[string]int{}} }

// handle is the shop's document.HandleFunc. A reply it returns is mailed
// by the document.Handler to the order's ReplyTo; a *core.Fault to its
// FaultTo.
func (s *shop) handle(_ context.Context, in *document.Incoming) (*core.Message, error) {
	var po PurchaseOrder
	if err := in.Decode(&po); err != nil {
		return nil, err // a Sender fault from core: the document is not an order
	}
	s.mu.Lock()
	s.runs[po.Number]++
	s.mu.Unlock()
	cents, ok := prices[po.Item]
	switch {
	case !ok:
		fmt.Fprintf(s.w, "shop: order %s: no such item %q -> Sender fault to %s\n", po.Number, po.Item, faultTo(in.Message))
		return nil, &core.Fault{
			Code:     core.CodeSender,
			Subcodes: []xml.Name{{Space: ns, Local: "UnknownItem"}},
			Reason:   fmt.Sprintf("no such item: %s", po.Item),
		}
	case po.Quantity < 1:
		return nil, core.SenderFault("order %s: quantity must be at least 1", po.Number)
	}
	total := fmt.Sprintf("%d.%02d EUR", cents*po.Quantity/100, cents*po.Quantity%100)
	fmt.Fprintf(s.w, "shop: order %s: %d x %s, %s -> confirmation to %s\n", po.Number, po.Quantity, po.Item, total, in.Message.ReplyTo)
	return in.Reply(Confirmation{Number: po.Number, Item: po.Item, Quantity: po.Quantity, Total: total},
		document.WithAction(actionConfirmation),
		// A stable id so that the output is the same on every run; the
		// default is a fresh urn:uuid.
		document.WithMessageID("mid:confirmation-"+po.Number+"@shop.example")), nil
}

// ran returns how many times the HandleFunc ran for an order.
func (s *shop) ran(number string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.runs[number]
}

// faultTo is where a fault about m goes.
func faultTo(m *core.Message) string {
	if m.FaultTo != "" {
		return m.FaultTo
	}
	return m.ReplyTo
}

// orderNumber returns the number in an order's message id
// "mid:order-NNNN@customer.example", for printing.
func orderNumber(id string) string {
	n, _, _ := strings.Cut(strings.TrimPrefix(id, "mid:order-"), "@")
	return n
}
