package http_test

import (
	"context"
	"encoding/xml"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soaphttp "github.com/soapwire/soapwire/bindings/http"
	"github.com/soapwire/soapwire/core"
)

const authNS = "urn:soapwire:test:auth"

var (
	credName     = xml.Name{Space: authNS, Local: "Credentials"}
	identityName = xml.Name{Space: authNS, Local: "Identity"}
)

type identityKey struct{}

// chain starts a final service and an authenticating proxy in front of it.
func chain(t *testing.T) (proxy, final *httptest.Server) {
	t.Helper()
	service := &core.Node{
		URI: "urn:final",
		Headers: map[xml.Name]core.HeaderFunc{
			identityName: func(ctx context.Context, m *core.Message, b *core.HeaderBlock) (context.Context, error) {
				var id struct {
					User string `xml:",chardata"`
				}
				if err := b.Decode(&id); err != nil {
					return ctx, err
				}
				return context.WithValue(ctx, identityKey{}, id.User), nil
			},
		},
		Handler: core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
			var req echoReq
			if err := m.Body().Decode(&req); err != nil {
				return nil, err
			}
			if req.Message == "fail" {
				return nil, &core.Fault{Code: core.CodeSender, Reason: "the far end refuses", Node: "urn:final"}
			}
			user, _ := ctx.Value(identityKey{}).(string)
			return m.Reply(core.RawBody([]byte(`<t:echoStringResponse xmlns:t="` + testNS + `"><return>` + user + ":" + req.Message + `</return><action>` + m.Action + `</action></t:echoStringResponse>`))), nil
		}),
	}
	final = serve(t, service)
	next := soaphttp.NewTransport(final.URL)
	t.Cleanup(next.CloseIdleConnections)
	p := &core.Node{
		URI:          "urn:proxy",
		Intermediary: true,
		Headers: map[xml.Name]core.HeaderFunc{
			credName: func(ctx context.Context, m *core.Message, b *core.HeaderBlock) (context.Context, error) {
				var c struct {
					User     string `xml:"user"`
					Password string `xml:"password"`
				}
				if err := b.Decode(&c); err != nil {
					return ctx, err
				}
				if c.User != "alice" || c.Password != "pw" {
					return ctx, core.SenderFault("bad credentials")
				}
				id, err := core.ParseHeaderBlock([]byte(`<a:Identity xmlns:a="` + authNS + `">` + c.User + `</a:Identity>`))
				if err != nil {
					return ctx, err
				}
				id.MustUnderstand = true
				m.Envelope.Headers = append(m.Envelope.Headers, id)
				return ctx, nil
			},
		},
		Next: next,
	}
	proxy = serve(t, p)
	return proxy, final
}

func credentials(v core.Version, user, pass string) core.HeaderBlock {
	b, err := core.ParseHeaderBlock([]byte(`<a:Credentials xmlns:a="` + authNS + `"><user>` + user + `</user><password>` + pass + `</password></a:Credentials>`))
	if err != nil {
		panic(err)
	}
	b.MustUnderstand = true
	b.Role = core.RoleNext
	if v == core.V11 {
		b.Role = core.RoleNextV11
	}
	return b
}

func TestIntermediary(t *testing.T) {
	proxy, final := chain(t)
	for _, v := range []core.Version{core.V11, core.V12} {
		t.Run(v.String(), func(t *testing.T) {
			tr := soaphttp.NewTransport(proxy.URL)
			t.Cleanup(tr.CloseIdleConnections)
			call := func(user, pass, message string) (*core.Message, error) {
				m := core.NewMessage(v, core.RawBody([]byte(`<t:echoString xmlns:t="`+testNS+`"><message>`+message+`</message></t:echoString>`)))
				m.Action = "urn:echo"
				m.Envelope.Headers = []core.HeaderBlock{credentials(v, user, pass)}
				return tr.RoundTrip(context.Background(), m)
			}
			sender := 500
			if v == core.V12 {
				sender = 400
			}
			status := func(err error) int {
				var se *soaphttp.StatusError
				require.ErrorAs(t, err, &se)
				return se.Code
			}

			reply, err := call("alice", "pw", "hi")
			require.NoError(t, err)
			r := decodeEcho(t, reply)
			assert.Equal(t, "alice:hi", r.Return, "the far end saw the identity the proxy inserted")
			assert.Equal(t, "urn:echo", r.Action, "the action travelled on")

			reply, err = call("alice", "wrong", "hi")
			var f *core.Fault
			require.ErrorAs(t, err, &f)
			assert.Equal(t, "urn:proxy", f.Node, "a fault from the proxy names it")
			assert.Equal(t, core.CodeSender, f.Code)
			assert.Equal(t, "bad credentials", f.Reason)
			assert.Nil(t, reply)
			assert.Equal(t, sender, status(err))

			reply, err = call("alice", "pw", "fail")
			require.ErrorAs(t, err, &f)
			assert.Equal(t, "urn:final", f.Node, "a fault from the far end comes back as it is")
			assert.Equal(t, "the far end refuses", f.Reason)
			assert.Nil(t, reply)
			assert.Equal(t, sender, status(err))

			// Without credentials the far end gets no identity: its handler
			// answers with an empty user.
			m := core.NewMessage(v, core.RawBody([]byte(echoBody)))
			reply, err = tr.RoundTrip(context.Background(), m)
			require.NoError(t, err)
			assert.Equal(t, ":hello", decodeEcho(t, reply).Return)
		})
	}
	t.Run("the credentials block never reaches the far end", func(t *testing.T) {
		req := strings.NewReader(envelope(core.V12, `<a:Credentials xmlns:a="`+authNS+`" soap-env:mustUnderstand="true"><user>alice</user><password>pw</password></a:Credentials>`, echoBody))
		// Sent straight to the far end, the mandatory block is not understood.
		resp, data := post(t, final.URL, map[string]string{"Content-Type": "application/soap+xml"}, req)
		require.Equal(t, http.StatusInternalServerError, resp.StatusCode)
		_, f := readFault(t, data)
		assert.Equal(t, core.CodeMustUnderstand, f.Code)
	})
}

func TestIntermediaryNextHopDown(t *testing.T) {
	gone := httptest.NewServer(http.NotFoundHandler())
	url := gone.URL
	gone.Close()
	next := soaphttp.NewTransport(url)
	proxy := serve(t, &core.Node{URI: "urn:proxy", Intermediary: true, Next: next})
	for _, v := range []core.Version{core.V11, core.V12} {
		t.Run(v.String(), func(t *testing.T) {
			tr := soaphttp.NewTransport(proxy.URL)
			t.Cleanup(tr.CloseIdleConnections)
			reply, err := tr.RoundTrip(context.Background(), echoRequest(v, ""))
			var f *core.Fault
			require.ErrorAs(t, err, &f)
			assert.Equal(t, core.CodeReceiver, f.Code)
			assert.Equal(t, "urn:proxy", f.Node)
			assert.Nil(t, reply)
			var se *soaphttp.StatusError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, 500, se.Code)
		})
	}
}

// TestIntermediaryReplyTooLarge: a next hop's reply over the proxy's limit
// is the proxy's Receiver fault (500), not a 413: the request was fine.
func TestIntermediaryReplyTooLarge(t *testing.T) {
	final := serve(t, echo)
	next := soaphttp.NewTransport(final.URL, soaphttp.WithLimits(core.Limits{MaxBytes: 100}))
	t.Cleanup(next.CloseIdleConnections)
	proxy := serve(t, &core.Node{URI: "urn:proxy", Intermediary: true, Next: next})
	resp, data := post(t, proxy.URL, map[string]string{"Content-Type": "application/soap+xml"}, strings.NewReader(envelope(core.V12, "", echoBody)))
	require.Equal(t, http.StatusInternalServerError, resp.StatusCode, "%s", data)
	_, f := readFault(t, data)
	assert.Equal(t, core.CodeReceiver, f.Code)
	assert.Equal(t, "urn:proxy", f.Node)
}

// TestIntermediaryRelay: blocks targeted at the proxy that it does not
// process are removed before forwarding, unless a SOAP 1.2 block asks to
// be relayed; blocks for the ultimate receiver and for other roles travel
// on.
func TestIntermediaryRelay(t *testing.T) {
	seen := make(chan []string, 1)
	final := serve(t, core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		var names []string
		for _, b := range m.Envelope.Headers {
			if b.Name.Space == "urn:x" {
				names = append(names, b.Name.Local)
			}
		}
		seen <- names
		return echo(ctx, m)
	}))
	next := soaphttp.NewTransport(final.URL)
	t.Cleanup(next.CloseIdleConnections)
	proxy := serve(t, &core.Node{URI: "urn:proxy", Intermediary: true, Next: next})
	tests := []struct {
		version core.Version
		header  string
		want    []string
	}{
		{core.V11, `<x:forNext xmlns:x="urn:x" soap-env:actor="` + core.RoleNextV11 + `"/>` +
			`<x:forUltimate xmlns:x="urn:x"/>` +
			`<x:forOther xmlns:x="urn:x" soap-env:actor="urn:other"/>`,
			[]string{"forUltimate", "forOther"}},
		{core.V12, `<x:forNext xmlns:x="urn:x" soap-env:role="` + core.RoleNext + `"/>` +
			`<x:relayed xmlns:x="urn:x" soap-env:role="` + core.RoleNext + `" soap-env:relay="true"/>` +
			`<x:forUltimate xmlns:x="urn:x"/>` +
			`<x:forNone xmlns:x="urn:x" soap-env:role="` + core.RoleNone + `"/>`,
			[]string{"relayed", "forUltimate", "forNone"}},
	}
	for _, tt := range tests {
		t.Run(tt.version.String(), func(t *testing.T) {
			resp, data := post(t, proxy.URL, map[string]string{"Content-Type": ctype(tt.version)}, strings.NewReader(envelope(tt.version, tt.header, echoBody)))
			require.Equal(t, http.StatusOK, resp.StatusCode, "%s", data)
			_, r := readReply(t, data)
			assert.Equal(t, "hello", r.Return)
			assert.Equal(t, tt.want, <-seen)
		})
	}
}
