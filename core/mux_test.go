package core_test

import (
	"context"
	"encoding/xml"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
)

// pmNamed answers with a reply whose body names the route that was taken.
func pmNamed(route string) core.HandlerFunc {
	return func(ctx context.Context, m *core.Message) (*core.Message, error) {
		return m.Reply(core.RawBody([]byte(`<r:` + route + ` xmlns:r="urn:route"/>`))), nil
	}
}

func TestMuxRouting(t *testing.T) {
	getOrder := xml.Name{Space: "urn:shop", Local: "GetOrder"}
	putOrder := xml.Name{Space: "urn:shop", Local: "PutOrder"}
	other := xml.Name{Space: "urn:other", Local: "GetOrder"} // same local name, other namespace
	mx := &core.Mux{}
	mx.Handle(core.Route{Name: getOrder, Action: "urn:shop:get:v2"}, pmNamed("GetV2"))
	mx.Handle(core.Route{Name: getOrder}, pmNamed("Get"))
	mx.Handle(core.Route{Action: "urn:shop:ping"}, pmNamed("Ping"))
	mx.HandleFunc(core.Route{Name: putOrder, Action: "urn:shop:put"}, pmNamed("Put"))

	body := func(n xml.Name) string {
		if n.Local == "" {
			return ""
		}
		return `<x:` + n.Local + ` xmlns:x="` + n.Space + `"/>`
	}
	cases := []struct {
		name   string
		body   xml.Name
		action string
		want   string // route taken; "" for a fault
		reason []string
	}{
		{"name and action", getOrder, "urn:shop:get:v2", "GetV2", nil},
		{"name, other action falls back to name only", getOrder, "urn:shop:get:v1", "Get", nil},
		{"name, no action", getOrder, "", "Get", nil},
		{"name wins over an action-only route", getOrder, "urn:shop:ping", "Get", nil},
		{"action-only route for an unknown name", other, "urn:shop:ping", "Ping", nil},
		{"action-only route for an empty body", xml.Name{}, "urn:shop:ping", "Ping", nil},
		{"namespace matters", other, "urn:shop:get:v2", "", []string{"{urn:other}GetOrder", "urn:shop:get:v2"}},
		{"name known only with another action", putOrder, "urn:shop:delete", "", []string{"{urn:shop}PutOrder", "urn:shop:delete"}},
		{"unknown name without action", other, "", "", []string{"{urn:other}GetOrder"}},
	}
	for _, v := range pmVersions {
		for _, c := range cases {
			t.Run(v.String()+"/"+c.name, func(t *testing.T) {
				req := pmRead(t, pmEnvelope(v, "", body(c.body)))
				req.Action = c.action
				reply, err := mx.ServeSOAP(t.Context(), req)
				if c.want != "" {
					require.NoError(t, err)
					assert.Equal(t, xml.Name{Space: "urn:route", Local: c.want}, reply.Body().Name())
					assert.NotNil(t, mx.Handler(req))
					return
				}
				assert.Nil(t, mx.Handler(req))
				f := pmAsFault(t, err)
				assert.Equal(t, core.CodeSender, f.Code)
				assert.Equal(t, v, f.Version)
				for _, s := range c.reason {
					assert.Contains(t, f.Reason, s)
				}
				w, _ := pmFaultWire(t, req, f)
				assert.Equal(t, f.Reason, w.Reason, "the reason naming what was asked goes to the peer")
			})
		}
	}
}

func TestMuxRegistrationPanics(t *testing.T) {
	name := xml.Name{Space: "urn:shop", Local: "GetOrder"}
	cases := []struct {
		name  string
		first *core.Route
		route core.Route
	}{
		{"duplicate name and action", &core.Route{Name: name, Action: "a"}, core.Route{Name: name, Action: "a"}},
		{"duplicate name", &core.Route{Name: name}, core.Route{Name: name}},
		{"duplicate action", &core.Route{Action: "a"}, core.Route{Action: "a"}},
		{"empty route", nil, core.Route{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var mx core.Mux
			if c.first != nil {
				mx.Handle(*c.first, pmNamed("First"))
			}
			assert.Panics(t, func() { mx.Handle(c.route, pmNamed("Second")) })
		})
	}
	t.Run("distinct routes do not clash", func(t *testing.T) {
		var mx core.Mux
		assert.NotPanics(t, func() {
			mx.Handle(core.Route{Name: name}, pmNamed("A"))
			mx.Handle(core.Route{Name: name, Action: "a"}, pmNamed("B"))
			mx.Handle(core.Route{Action: "a"}, pmNamed("C"))
		})
	})
}

func TestChainOrder(t *testing.T) {
	var trace []string
	mw := func(name string) core.Middleware {
		return func(next core.Handler) core.Handler {
			return core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
				trace = append(trace, name+">")
				r, err := next.ServeSOAP(ctx, m)
				trace = append(trace, "<"+name)
				return r, err
			})
		}
	}
	h := core.Chain(core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		trace = append(trace, "handler")
		return nil, nil
	}), mw("a"), mw("b"), mw("c"))
	_, err := h.ServeSOAP(t.Context(), pmRead(t, pmEnvelope(core.V11, "", pmBody)))
	require.NoError(t, err)
	assert.Equal(t, []string{"a>", "b>", "c>", "handler", "<c", "<b", "<a"}, trace)

	trace = nil
	_, err = core.Chain(pmNamed("X")).ServeSOAP(t.Context(), pmRead(t, pmEnvelope(core.V11, "", pmBody)))
	require.NoError(t, err, "Chain with no middleware is the handler")
}

func TestRecover(t *testing.T) {
	for _, v := range pmVersions {
		for _, value := range []any{"secret panic text", errors.New("secret panic text"), 42} {
			t.Run(v.String(), func(t *testing.T) {
				h := core.Chain(core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
					panic(value)
				}), core.Recover(nil))
				req := pmRead(t, pmEnvelope(v, "", pmBody))
				var (
					reply *core.Message
					err   error
				)
				require.NotPanics(t, func() { reply, err = h.ServeSOAP(t.Context(), req) })
				assert.Nil(t, reply)
				f := pmAsFault(t, err)
				assert.Equal(t, core.CodeReceiver, f.Code)
				assert.Equal(t, core.InternalErrorReason, f.Reason)
				assert.Equal(t, v, f.Version)
				_, raw := pmFaultWire(t, req, f)
				assert.NotContains(t, string(raw), "secret")
			})
		}
	}
	t.Run("no panic passes through", func(t *testing.T) {
		reply, err := core.Recover(nil)(pmNamed("Fine")).ServeSOAP(t.Context(), pmRead(t, pmEnvelope(core.V12, "", pmBody)))
		require.NoError(t, err)
		assert.Equal(t, "Fine", reply.Body().Name().Local)
	})
}
