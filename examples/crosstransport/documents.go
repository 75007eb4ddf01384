package main

import (
	"encoding/xml"
	"fmt"

	"github.com/soapwire/soapwire/core"
)

// The actions of the conversation (wsa:Action, and each binding's own
// action field: SOAPAction, the NATS SOAPAction header, the mail's
// Content-Type action parameter).
const (
	actionOrder        = "urn:example:po:Order"
	actionConfirmation = "urn:example:po:Confirmation"
	actionInvoice      = "urn:example:po:Invoice"
	actionDespatch     = "urn:example:po:DespatchAdvice"
	actionStockCheck   = "urn:example:stock:Check"
	actionStockOK      = "urn:example:stock:Reserved"
)

// PurchaseOrder is what the customer posts to the order desk. Buyer is
// the mail address the confirmation goes to.
type PurchaseOrder struct {
	XMLName xml.Name `xml:"urn:example:po PurchaseOrder"`
	Number  string   `xml:"Number"`
	Buyer   string   `xml:"Buyer"`
	Lines   []Line   `xml:"Line"`
}

// Bounds of an order, so that its totals cannot overflow.
const (
	maxLines = 100
	maxQty   = 1_000_000
)

// check refuses an order that cannot be processed, with a Sender fault.
func (po *PurchaseOrder) check() error {
	switch {
	case po.Number == "":
		return core.SenderFault("an order needs a number")
	case len(po.Lines) == 0 || len(po.Lines) > maxLines:
		return core.SenderFault("an order needs 1 to %d lines, not %d", maxLines, len(po.Lines))
	}
	for _, l := range po.Lines {
		if l.SKU == "" || l.Qty < 1 || l.Qty > maxQty {
			return core.SenderFault("line %q × %d: an order line needs a SKU and a quantity of 1 to %d", l.SKU, l.Qty, maxQty)
		}
	}
	return nil
}

// Line is one line of an order, a stock check or an invoice.
type Line struct {
	SKU       string `xml:"sku,attr"`
	Qty       int    `xml:"qty,attr"`
	UnitCents int    `xml:"unitCents,attr,omitempty"` // on the invoice
}

// StockCheck asks the warehouse whether an order's lines are in stock.
type StockCheck struct {
	XMLName xml.Name `xml:"urn:example:stock Check"`
	Order   string   `xml:"Order"`
	Lines   []Line   `xml:"Line"`
}

// Reservation is the warehouse's answer: the lines are set aside.
type Reservation struct {
	XMLName xml.Name `xml:"urn:example:stock Reserved"`
	Order   string   `xml:"Order"`
	ID      string   `xml:"Reservation"`
}

// Confirmation is mailed to the buyer once fulfilment has the order.
type Confirmation struct {
	XMLName xml.Name `xml:"urn:example:po Confirmation"`
	Order   string   `xml:"Order"`
	Lines   int      `xml:"Lines"`
	Ships   string   `xml:"Ships"`
}

// DespatchAdvice tells the carrier to collect an order: fulfilment drops
// it in the carrier's SFTP inbox.
type DespatchAdvice struct {
	XMLName xml.Name `xml:"urn:example:po DespatchAdvice"`
	Order   string   `xml:"Order"`
	Parcels int      `xml:"Parcels"`
	Collect string   `xml:"Collect"`
}

// Invoice is the final reply of the conversation, dropped in the
// customer's FTP folder.
type Invoice struct {
	XMLName    xml.Name `xml:"urn:example:po Invoice"`
	Number     string   `xml:"Number"`
	Order      string   `xml:"Order"`
	Lines      []Line   `xml:"Line"`
	TotalCents int      `xml:"TotalCents"`
	Currency   string   `xml:"Currency"`
}

// sampleOrder is the order the program sends.
func sampleOrder() PurchaseOrder {
	return PurchaseOrder{
		Number: "PO-1001",
		Buyer:  "customer@buyer.example",
		Lines: []Line{
			{SKU: "BOLT-M8", Qty: 200},
			{SKU: "NUT-M8", Qty: 200},
			{SKU: "GEAR-42", Qty: 2},
		},
	}
}

// stock is what the warehouse has.
func stock() map[string]int { return map[string]int{"BOLT-M8": 5000, "NUT-M8": 8000, "GEAR-42": 12} }

// prices is fulfilment's price list, in euro cents.
func prices() map[string]int { return map[string]int{"BOLT-M8": 12, "NUT-M8": 5, "GEAR-42": 1850} }

// euros formats cents as "71.00 EUR".
func euros(cents int) string { return fmt.Sprintf("%d.%02d EUR", cents/100, cents%100) }
