package nats_test

import (
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soapnats "github.com/soapwire/soapwire/bindings/nats"
	"github.com/soapwire/soapwire/core"
)

// TestReplyInTheOtherVersion: a reply in the other SOAP version than the
// request is an error with ErrBadReply and a VersionMismatch fault this
// side found (not Remote), answer or fault alike; a VersionMismatch fault
// in the other version is the peer's answer, handed on; a reply in the
// request's version is read.
func TestReplyInTheOtherVersion(t *testing.T) {
	s := startServer(t)
	nc := connect(t, s)
	ct := func(v core.Version) nats.Header {
		return nats.Header{soapnats.HeaderContentType: {v.MediaType() + "; charset=utf-8"}}
	}
	answers := map[string]*nats.Msg{
		"svc.v12":      {Header: ct(core.V12), Data: envelope(core.V12, "", string(body("pong", "ok")))},
		"svc.v11":      {Header: ct(core.V11), Data: envelope(core.V11, "", string(body("pong", "ok")))},
		"svc.v12fault": {Header: ct(core.V12), Data: envelope(core.V12, "", `<s:Fault><s:Code><s:Value>s:Sender</s:Value></s:Code><s:Reason><s:Text xml:lang="en">no</s:Text></s:Reason></s:Fault>`)},
		"svc.v11vm":    {Header: ct(core.V11), Data: envelope(core.V11, "", `<s:Fault><faultcode>s:VersionMismatch</faultcode><faultstring>SOAP 1.1 only</faultstring></s:Fault>`)},
	}
	for subject, answer := range answers {
		sub, err := nc.Subscribe(subject, func(msg *nats.Msg) {
			answer := *answer
			if err := msg.RespondMsg(&answer); err != nil {
				t.Error(err)
			}
		})
		require.NoError(t, err)
		t.Cleanup(func() { _ = sub.Unsubscribe() })
	}
	require.NoError(t, nc.Flush())
	tr := soapnats.NewTransport(connect(t, s), "")
	call := func(v core.Version, subject string) (*core.Message, error) {
		m := core.NewMessage(v, core.RawBody(body("ping", "")))
		m.To = "nats:" + subject
		return tr.RoundTrip(testCtx(t), m)
	}
	for _, tt := range []struct {
		sent    core.Version
		subject string
	}{
		{core.V11, "svc.v12"},
		{core.V12, "svc.v11"},
		{core.V11, "svc.v12fault"},
	} {
		reply, err := call(tt.sent, tt.subject)
		assert.Nil(t, reply, tt.subject)
		assert.ErrorIs(t, err, soapnats.ErrBadReply, tt.subject)
		var f *core.Fault
		require.ErrorAs(t, err, &f, tt.subject)
		assert.Equal(t, core.CodeVersionMismatch, f.Code, tt.subject)
		assert.False(t, f.Remote, tt.subject)
		assert.Contains(t, f.Reason, "the request was SOAP "+tt.sent.String(), tt.subject)
	}

	_, err := call(core.V12, "svc.v11vm")
	var f *core.Fault
	require.ErrorAs(t, err, &f)
	assert.NotErrorIs(t, err, soapnats.ErrBadReply)
	assert.True(t, f.Remote, "the peer's own VersionMismatch fault")
	assert.Equal(t, "SOAP 1.1 only", f.Reason)

	for _, v := range []core.Version{core.V11, core.V12} {
		reply, err := call(v, "svc.v"+map[core.Version]string{core.V11: "11", core.V12: "12"}[v])
		require.NoError(t, err)
		assert.Equal(t, "ok", text(t, reply))
	}
}
