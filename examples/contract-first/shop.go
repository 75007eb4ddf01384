package main

import (
	"context"
	"fmt"
	"sync"

	"github.com/soapwire/soapwire/core/soapenc"
	"github.com/soapwire/soapwire/examples/contract-first/orders"
)

// shop implements the generated interface orders.OrdersPortType: the one
// implementation every transport serves. It knows nothing of transports;
// the generated server reads each request (checked against the contract)
// into the generated types, calls it, and writes its answer or its
// declared fault.
type shop struct {
	mu       sync.Mutex
	prices   map[orders.SKU]int64 // cents of a euro
	accounts map[string]bool
	quotes   map[string]quote
	orders   int
}

// quote is what a quote priced, kept for the order placed on it.
type quote struct {
	account string
	total   string
}

var _ orders.OrdersPortType = (*shop)(nil)

func newShop() *shop {
	return &shop{
		prices:   map[orders.SKU]int64{"BOLT-M8": 25, "GEAR-42": 1150, "NUT-M8": 10},
		accounts: map[string]bool{customerAccount: true},
		quotes:   map[string]quote{},
	}
}

// usdPerEUR is the shop's rate: a quote in USD costs 108 cents a euro.
const usdPerEUR = 108

// GetQuote prices the lines for the account in the Account header. An
// unknown account or article is the declared fault OrderFault.
func (s *shop) GetQuote(_ context.Context, in *orders.GetQuote, account *orders.Account) (*orders.GetQuoteResponse, error) {
	if err := s.known(account); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var cents int64
	for _, l := range in.Line {
		price, ok := s.prices[l.Sku]
		if !ok {
			sku := string(l.Sku)
			return nil, &orders.OrderFaultError{Reason: "no price for " + sku, Detail: &orders.OrderFault{
				Code: orders.OrderFaultCodeUnknownSKU, Sku: &sku, Message: "the shop does not sell " + sku,
			}}
		}
		cents += price * int64(l.Quantity)
	}
	if in.Currency == orders.CurrencyUSD {
		cents = cents * usdPerEUR / 100
	}
	id := fmt.Sprintf("Q-%d", 1001+len(s.quotes))
	total := fmt.Sprintf("%d.%02d", cents/100, cents%100)
	s.quotes[id] = quote{account: account.CustomerId, total: total + " " + string(in.Currency)}
	return &orders.GetQuoteResponse{QuoteId: id, Total: soapenc.Decimal(total), Currency: in.Currency}, nil
}

// PlaceOrder orders what a quote of the same account priced.
func (s *shop) PlaceOrder(_ context.Context, in *orders.PlaceOrder, account *orders.Account) (*orders.PlaceOrderResponse, error) {
	if err := s.known(account); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	q, ok := s.quotes[in.QuoteId]
	if !ok || q.account != account.CustomerId {
		return nil, &orders.OrderFaultError{Reason: "no quote " + in.QuoteId, Detail: &orders.OrderFault{
			Code: orders.OrderFaultCodeUnknownQuote, Message: "no quote " + in.QuoteId + " for account " + account.CustomerId,
		}}
	}
	s.orders++
	return &orders.PlaceOrderResponse{OrderNumber: fmt.Sprintf("O-%d", 5000+s.orders), Status: orders.PlaceOrderResponseStatusAccepted}, nil
}

// known refuses a request without the Account header, or of an account the
// shop does not have.
func (s *shop) known(account *orders.Account) error {
	if account == nil {
		return &orders.OrderFaultError{Reason: "no Account header", Detail: &orders.OrderFault{
			Code: orders.OrderFaultCodeUnknownAccount, Message: "every request carries the Account header",
		}}
	}
	if !s.accounts[account.CustomerId] {
		return &orders.OrderFaultError{Reason: "unknown account " + account.CustomerId, Detail: &orders.OrderFault{
			Code: orders.OrderFaultCodeUnknownAccount, Message: "no account " + account.CustomerId,
		}}
	}
	return nil
}
