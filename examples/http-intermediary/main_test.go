package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRun runs the example: two servers on loopback, three calls.
func TestRun(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), &out))
	assert.Equal(t, `client: calling greet as alice through the proxy
proxy: alice authenticated; identity inserted, forwarding
service: urn:example:service:greet for identity "alice"
client: reply "hello, alice"
client: calling greet as mallory through the proxy
proxy: credentials for mallory refused
client: HTTP 401, fault Sender: Client Error
client: calling greet straight at the service
service: no identity, refused
client: HTTP 400, fault Sender from urn:example:final: no identity: call through the proxy
`, out.String())
}
