package nats_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soapnats "github.com/soapwire/soapwire/bindings/nats"
)

func TestParseAddress(t *testing.T) {
	tests := []struct {
		in      string
		want    soapnats.Address
		pattern bool
		err     string
	}{
		{in: "nats:orders.create", want: soapnats.Address{Subject: "orders.create"}},
		{in: "NATS:orders.create", want: soapnats.Address{Subject: "orders.create"}},
		{in: "orders.create", want: soapnats.Address{Subject: "orders.create"}},
		{in: "nats:orders.placed?stream=ORDERS", want: soapnats.Address{Subject: "orders.placed", Stream: "ORDERS"}},
		{in: "nats:orders.*", want: soapnats.Address{Subject: "orders.*"}, pattern: true},
		{in: "nats:orders.>?stream=ORDERS", want: soapnats.Address{Subject: "orders.>", Stream: "ORDERS"}, pattern: true},
		{in: "nats:_INBOX.abc", want: soapnats.Address{Subject: "_INBOX.abc"}},
		{in: "nats:", err: "empty subject"},
		{in: "nats://localhost:4222/orders", err: "the connection names the server"},
		{in: "mailto:a@example.org", err: "scheme is not nats"},
		{in: "nats:a..b", err: "empty token"},
		{in: "nats:a.>.b", err: "> must be the last token"},
		{in: "nats:a b", err: "space"},
		{in: "nats:a*", err: "wildcard inside a token"},
		{in: "nats:a?stream=", err: "empty stream name"},
		{in: "nats:a?stream=A.B", err: "streams may not"},
		{in: "nats:a?stream=A&stream=B", err: "stream given twice"},
		{in: "nats:a?queue=q", err: `unknown parameter "queue"`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			a, err := soapnats.ParseAddress(tt.in)
			if tt.err != "" {
				require.ErrorIs(t, err, soapnats.ErrAddress)
				assert.ErrorContains(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, a)
			assert.Equal(t, tt.pattern, a.Pattern())
			back, err := soapnats.ParseAddress(a.String())
			require.NoError(t, err)
			assert.Equal(t, a, back)
		})
	}
}
