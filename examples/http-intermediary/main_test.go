package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRun(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), &out))
	assert.Equal(t, `client: calling greet as alice through the proxy
proxy: alice authenticated; credentials removed, identity inserted, forwarding
service: urn:example:service:greet for identity "alice"
client: reply "hello, alice"
client: calling greet as mallory through the proxy
proxy: credentials for mallory refused
client: fault Sender from urn:example:proxy: bad credentials for mallory
`, out.String())
}
