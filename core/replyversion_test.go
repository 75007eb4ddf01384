package core_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
)

// TestCheckReplyVersion: a reply read off the wire in the other version
// than the request is a VersionMismatch fault in the request's version, not
// Remote; a reply in the request's version, no reply, and a VersionMismatch
// fault in the other version (the peer saying it does not speak the
// request's) pass.
func TestCheckReplyVersion(t *testing.T) {
	read := func(v core.Version, body string) *core.Message {
		ns := core.NamespaceV11
		if v == core.V12 {
			ns = core.NamespaceV12
		}
		m, err := core.ReadMessage(strings.NewReader(`<e:Envelope xmlns:e="`+ns+`"><e:Body>`+body+`</e:Body></e:Envelope>`), core.Limits{})
		require.NoError(t, err)
		return m
	}
	answer := `<r xmlns="urn:t">42</r>`
	fault11 := func(code string) string {
		return `<e:Fault><faultcode>e:` + code + `</faultcode><faultstring>no</faultstring></e:Fault>`
	}
	fault12 := func(code string) string {
		return `<e:Fault><e:Code><e:Value>e:` + code + `</e:Value></e:Code><e:Reason><e:Text xml:lang="en">no</e:Text></e:Reason></e:Fault>`
	}
	tests := []struct {
		name   string
		sent   core.Version
		reply  *core.Message
		refuse bool
	}{
		{"1.1 answered in 1.1", core.V11, read(core.V11, answer), false},
		{"1.2 answered in 1.2", core.V12, read(core.V12, answer), false},
		{"1.1 answered in 1.2", core.V11, read(core.V12, answer), true},
		{"1.2 answered in 1.1", core.V12, read(core.V11, answer), true},
		{"1.1 answered by a 1.2 Sender fault", core.V11, read(core.V12, fault12("Sender")), true},
		{"1.2 answered by a 1.1 Server fault", core.V12, read(core.V11, fault11("Server")), true},
		{"1.2 answered by a 1.1 VersionMismatch fault", core.V12, read(core.V11, fault11("VersionMismatch")), false},
		{"1.1 answered by a 1.2 VersionMismatch fault", core.V11, read(core.V12, fault12("VersionMismatch")), false},
		{"1.1 answered by a 1.1 fault", core.V11, read(core.V11, fault11("Client")), false},
		{"no reply", core.V11, nil, false},
		{"version not known", 0, read(core.V12, answer), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := core.CheckReplyVersion(tt.sent, tt.reply)
			if !tt.refuse {
				assert.NoError(t, err)
				return
			}
			var f *core.Fault
			require.True(t, errors.As(err, &f), "%v", err)
			assert.Equal(t, core.CodeVersionMismatch, f.Code)
			assert.Equal(t, tt.sent, f.Version)
			assert.False(t, f.Remote)
			assert.Equal(t, fmt.Sprintf("the reply is a SOAP %s envelope, the request was SOAP %s", tt.reply.Version(), tt.sent), f.Reason)
		})
	}
}

func ExampleCheckReplyVersion() {
	reply, _ := core.ReadMessage(strings.NewReader(`<e:Envelope xmlns:e="`+core.NamespaceV12+`"><e:Body><r xmlns="urn:t"/></e:Body></e:Envelope>`), core.Limits{})
	err := core.CheckReplyVersion(core.V11, reply)
	fmt.Println(err)
	fmt.Println(errors.Is(err, &core.Fault{Code: core.CodeVersionMismatch}))
	// Output:
	// soap fault: VersionMismatch: the reply is a SOAP 1.2 envelope, the request was SOAP 1.1
	// true
}
