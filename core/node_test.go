package core_test

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
)

const (
	pmGatewayURI  = "urn:example:node:gateway"
	pmReceiverURI = "urn:example:node:receiver"
	pmFarURI      = "urn:example:node:far"
)

// nextRole is the "next" role URI of version v.
func nextRole(v core.Version) string {
	if v == core.V12 {
		return core.RoleNext
	}
	return core.RoleNextV11
}

// TestNodeTargeting proves which blocks a node takes as its own, by what the
// node does: a mustUnderstand block it has no HeaderFunc for faults only when
// targeted, and a registered HeaderFunc runs only when targeted.
func TestNodeTargeting(t *testing.T) {
	type tc struct {
		name         string
		role         string
		intermediary bool
		want         bool
	}
	cases := func(v core.Version) []tc {
		cs := []tc{
			{"custom role played by a receiver", pmRoleGate, false, true},
			{"custom role played by an intermediary", pmRoleGate, true, true},
			{"custom role not played", pmRoleOther, false, false},
			{"custom role not played, intermediary", pmRoleOther, true, false},
			{"next at a receiver", nextRole(v), false, true},
			{"next at an intermediary", nextRole(v), true, true},
			{"no role at the ultimate receiver", "", false, true},
			{"no role at an intermediary", "", true, false},
		}
		if v == core.V12 {
			cs = append(cs,
				tc{"none at a receiver", core.RoleNone, false, false},
				tc{"none at an intermediary", core.RoleNone, true, false},
				tc{"ultimateReceiver at the receiver", core.RoleUltimateReceiver, false, true},
				tc{"ultimateReceiver at an intermediary", core.RoleUltimateReceiver, true, false},
			)
		}
		return cs
	}
	for _, v := range pmVersions {
		for _, c := range cases(v) {
			t.Run(v.String()+"/"+c.name, func(t *testing.T) {
				newNode := func(headers map[xml.Name]core.HeaderFunc) *core.Node {
					return &core.Node{
						URI: pmGatewayURI, Roles: []string{pmRoleGate}, Intermediary: c.intermediary, Headers: headers,
						Handler: pmEcho(`<b:EchoResponse xmlns:b="` + pmBodyNS + `"/>`),
						Next: core.RoundTripFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
							return m.Reply(core.RawBody(nil)), nil
						}),
					}
				}
				assert.Equal(t, c.want, newNode(nil).Targets(c.role), "Targets(%q)", c.role)

				// mustUnderstand without a HeaderFunc
				in := pmEnvelope(v, "", pmBody, pmBlock{Local: "Block", Role: c.role, MU: true})
				_, err := newNode(nil).ServeSOAP(t.Context(), pmRead(t, in))
				if c.want {
					f := pmAsFault(t, err)
					assert.Equal(t, core.CodeMustUnderstand, f.Code)
					assert.Equal(t, []xml.Name{pmName("Block")}, f.NotUnderstood)
				} else {
					require.NoError(t, err, "a block not targeted at the node is ignored, mustUnderstand or not")
				}

				// a registered HeaderFunc runs only for a targeted block
				called := false
				n := newNode(map[xml.Name]core.HeaderFunc{pmName("Block"): func(ctx context.Context, m *core.Message, b *core.HeaderBlock) (context.Context, error) {
					called = true
					assert.Equal(t, c.role, b.Role)
					return ctx, nil
				}})
				_, err = n.ServeSOAP(t.Context(), pmRead(t, in))
				require.NoError(t, err)
				assert.Equal(t, c.want, called, "HeaderFunc called")
			})
		}
	}
}

// TestNodeMustUnderstandGateRunsFirst proves the gate runs before any
// HeaderFunc, the handler or the next hop: a block that is understood comes
// first in the document and its HeaderFunc must not have run when a later
// mandatory block is not understood.
func TestNodeMustUnderstandGateRunsFirst(t *testing.T) {
	for _, v := range pmVersions {
		for _, intermediary := range []bool{false, true} {
			name := v.String() + "/receiver"
			if intermediary {
				name = v.String() + "/intermediary"
			}
			t.Run(name, func(t *testing.T) {
				var effects []string
				n := &core.Node{
					URI: pmGatewayURI, Roles: []string{pmRoleGate}, Intermediary: intermediary,
					Headers: map[xml.Name]core.HeaderFunc{
						pmName("Known"): func(ctx context.Context, m *core.Message, b *core.HeaderBlock) (context.Context, error) {
							effects = append(effects, "HeaderFunc")
							return ctx, nil
						},
					},
					Handler: core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
						effects = append(effects, "Handler")
						return nil, nil
					}),
					Next: core.RoundTripFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
						effects = append(effects, "Next")
						return nil, nil
					}),
				}
				in := pmEnvelope(v, "", pmBody,
					pmBlock{Local: "Known", Role: nextRole(v), MU: true},
					pmBlock{Local: "Unknown1", Role: pmRoleGate, MU: true},
					pmBlock{Local: "Optional", Role: nextRole(v)},            // not mandatory: no fault
					pmBlock{Local: "Elsewhere", Role: pmRoleOther, MU: true}, // not targeted: no fault
					pmBlock{Local: "Unknown2", Role: nextRole(v), MU: true},
				)
				req := pmRead(t, in)
				_, err := n.ServeSOAP(t.Context(), req)
				f := pmAsFault(t, err)
				assert.Empty(t, effects, "nothing may run when a mandatory block is not understood")
				assert.Equal(t, core.CodeMustUnderstand, f.Code)
				assert.Equal(t, []xml.Name{pmName("Unknown1"), pmName("Unknown2")}, f.NotUnderstood)
				assert.Equal(t, pmGatewayURI, f.Node)
				assert.Equal(t, v, f.Version)

				got, raw := pmFaultWire(t, req, f)
				assert.Equal(t, core.CodeMustUnderstand, got.Code)
				assert.Equal(t, pmGatewayURI, got.Node, "faultactor / Node")
				if v == core.V12 {
					assert.Equal(t, []xml.Name{pmName("Unknown1"), pmName("Unknown2")}, got.NotUnderstood, "NotUnderstood header blocks of %s", raw)
					assert.Equal(t, 2, bytes.Count(raw, []byte(":NotUnderstood ")), "%s", raw)
				} else {
					assert.Contains(t, string(raw), "<faultcode>soap:MustUnderstand</faultcode>")
					assert.NotContains(t, string(raw), "NotUnderstood", "1.1 has no NotUnderstood blocks")
				}
			})
		}
	}
}

type pmCtxKey struct{}

// TestNodeHeaderFuncsInDocumentOrder proves HeaderFuncs run in document order
// (not map order) and that the context each returns reaches the next one and
// the handler.
func TestNodeHeaderFuncsInDocumentOrder(t *testing.T) {
	order := []string{"Zulu", "Alpha", "Mike", "Bravo", "Yankee"}
	for _, v := range pmVersions {
		t.Run(v.String(), func(t *testing.T) {
			var ran []string
			headers := map[xml.Name]core.HeaderFunc{}
			for _, local := range order {
				headers[pmName(local)] = func(ctx context.Context, m *core.Message, b *core.HeaderBlock) (context.Context, error) {
					ran = append(ran, b.Name.Local)
					seen, _ := ctx.Value(pmCtxKey{}).([]string)
					assert.True(t, slices.Equal(ran[:len(ran)-1], seen), "the context of the previous HeaderFunc: %v", seen)
					return context.WithValue(ctx, pmCtxKey{}, append(slices.Clone(seen), b.Name.Local)), nil
				}
			}
			var inHandler []string
			n := &core.Node{Headers: headers, Handler: core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
				inHandler, _ = ctx.Value(pmCtxKey{}).([]string)
				return nil, nil
			})}
			var blocks []pmBlock
			for _, local := range order {
				blocks = append(blocks, pmBlock{Local: local, MU: true})
			}
			reply, err := n.ServeSOAP(t.Context(), pmRead(t, pmEnvelope(v, "", pmBody, blocks...)))
			require.NoError(t, err)
			assert.Nil(t, reply, "one-way")
			assert.Equal(t, order, ran)
			assert.Equal(t, order, inHandler)
		})
	}
}

// pmForward is a next hop that writes the forwarded message as it would go on
// the wire and reads it back: what the next node would see.
type pmForward struct {
	mu   sync.Mutex
	seen []*core.Message
	raw  [][]byte
	err  error // returned instead of a reply when set
}

func (f *pmForward) RoundTrip(ctx context.Context, m *core.Message) (*core.Message, error) {
	var buf bytes.Buffer
	if _, err := m.WriteTo(&buf); err != nil {
		return nil, err
	}
	raw := bytes.Clone(buf.Bytes())
	back, err := core.ReadMessage(&buf, core.Limits{})
	if err != nil {
		return nil, err
	}
	var body bytes.Buffer
	if _, err := back.Body().WriteTo(&body); err != nil {
		return nil, err
	}
	back.Envelope.Body = core.RawBody(body.Bytes())
	f.mu.Lock()
	f.seen, f.raw = append(f.seen, back), append(f.raw, raw)
	f.mu.Unlock()
	if f.err != nil {
		return nil, f.err
	}
	return back.Reply(core.RawBody([]byte(`<b:Done xmlns:b="` + pmBodyNS + `"/>`))), nil
}

// TestIntermediaryForwarding checks what an intermediary puts on the wire.
func TestIntermediaryForwarding(t *testing.T) {
	const wsa = `<wsa:To>https://example.org/final</wsa:To><wsa:Action>urn:example:echo</wsa:Action>` +
		`<wsa:MessageID>urn:uuid:0001</wsa:MessageID><wsa:ReplyTo><wsa:Address>mailto:client@example.org</wsa:Address></wsa:ReplyTo>` +
		`<wsa:FaultTo><wsa:Address>mailto:errors@example.org</wsa:Address></wsa:FaultTo>`
	for _, v := range pmVersions {
		t.Run(v.String(), func(t *testing.T) {
			next := nextRole(v)
			blocks := []pmBlock{
				{Local: "Processed", Role: next, MU: true},           // processed → removed
				{Local: "ProcessedRelay", Role: next, Relay: true},   // processed → removed, relay or not
				{Local: "ProcessedGate", Role: pmRoleGate},           // processed in a custom role → removed
				{Local: "Unprocessed", Role: next},                   // targeted, not processed → removed
				{Local: "UnprocessedRelay", Role: next, Relay: true}, // 1.2: relayed; 1.1: removed (no relay in 1.1)
				{Local: "UnprocessedGateRelay", Role: pmRoleGate, Relay: true},
				{Local: "ForOther", Role: pmRoleOther, MU: true}, // not targeted → kept
				{Local: "ForUltimate", MU: true},                 // not targeted at an intermediary → kept
			}
			if v == core.V12 {
				blocks = append(blocks,
					pmBlock{Local: "ForUltimateURI", Role: core.RoleUltimateReceiver, MU: true},
					pmBlock{Local: "ForNone", Role: core.RoleNone, MU: true})
			}
			fwd := &pmForward{}
			processed := func(ctx context.Context, m *core.Message, b *core.HeaderBlock) (context.Context, error) {
				if b.Name.Local == "Processed" {
					ins, err := core.NewHeaderBlock(&struct {
						XMLName xml.Name `xml:"urn:example:pm Inserted"`
						Text    string   `xml:",chardata"`
					}{Text: "from the gateway"})
					if err != nil {
						return ctx, err
					}
					ins.MustUnderstand = true
					m.Envelope.Headers = append(m.Envelope.Headers, ins)
				}
				return ctx, nil
			}
			n := &core.Node{URI: pmGatewayURI, Roles: []string{pmRoleGate}, Intermediary: true, Next: fwd,
				Headers: map[xml.Name]core.HeaderFunc{
					pmName("Processed"): processed, pmName("ProcessedRelay"): processed, pmName("ProcessedGate"): processed,
				}}
			reply, err := n.ServeSOAP(t.Context(), pmRead(t, pmEnvelope(v, wsa, pmBody, blocks...)))
			require.NoError(t, err)
			require.NotNil(t, reply)
			assert.Equal(t, xml.Name{Space: pmBodyNS, Local: "Done"}, reply.Body().Name(), "the next hop's reply comes back")

			require.Len(t, fwd.seen, 1)
			out, raw := fwd.seen[0], fwd.raw[0]
			want := []string{"ForOther", "ForUltimate"}
			if v == core.V12 {
				want = []string{"UnprocessedRelay", "UnprocessedGateRelay", "ForOther", "ForUltimate", "ForUltimateURI", "ForNone"}
			}
			want = append(want, "Inserted")
			assert.Equal(t, want, pmHeaderNames(out), "header blocks on the wire: %s", raw)
			ins := out.Envelope.Headers[len(out.Envelope.Headers)-1]
			assert.True(t, ins.MustUnderstand, "the inserted block keeps its attributes")
			assert.Contains(t, string(ins.XML), "from the gateway")
			for _, b := range out.Envelope.Headers {
				if b.Name.Local == "ForOther" {
					assert.Equal(t, pmRoleOther, b.Role)
					assert.True(t, b.MustUnderstand)
				}
			}

			assert.Equal(t, "https://example.org/final", out.To)
			assert.Equal(t, "urn:example:echo", out.Action)
			assert.Equal(t, "urn:uuid:0001", out.ID)
			assert.Equal(t, "mailto:client@example.org", out.ReplyTo)
			assert.Equal(t, "mailto:errors@example.org", out.FaultTo)
			assert.Equal(t, v, out.Version())
			var body bytes.Buffer
			_, err = out.Body().WriteTo(&body)
			require.NoError(t, err)
			assert.Contains(t, body.String(), `<b:text>hello</b:text></b:Echo>`, "the body passes through")
			assert.Equal(t, xml.Name{Space: pmBodyNS, Local: "Echo"}, out.Body().Name())
		})
	}
}

// TestIntermediaryFaults covers the faults an intermediary answers with.
func TestIntermediaryFaults(t *testing.T) {
	errSecret := errors.New("ldap: password for cn=admin is hunter2")
	remote := &core.Fault{Code: core.CodeSender, Reason: "order refused", Node: pmFarURI, Role: core.RoleUltimateReceiver,
		Detail: []byte(`<d:Why xmlns:d="urn:d">stock</d:Why>`), Remote: true}
	cases := []struct {
		name    string
		hfErr   error // returned by the HeaderFunc
		nextErr error // returned by Next
		check   func(t *testing.T, v core.Version, f *core.Fault, written *core.Fault, raw []byte)
	}{
		{
			name: "HeaderFunc plain error", hfErr: errSecret,
			check: func(t *testing.T, v core.Version, f, w *core.Fault, raw []byte) {
				assert.Equal(t, core.CodeReceiver, f.Code)
				assert.Equal(t, pmGatewayURI, f.Node)
				assert.Equal(t, pmRoleGate, f.Role)
				assert.ErrorIs(t, f, errSecret, "the cause is kept for logs")
				assert.Equal(t, pmGatewayURI, w.Node, "faultactor / Node on the wire")
				if v == core.V12 {
					assert.Equal(t, pmRoleGate, w.Role)
				} else {
					assert.Contains(t, string(raw), "<faultactor>"+pmGatewayURI+"</faultactor>")
				}
				assert.NotContains(t, string(raw), "hunter2")
			},
		},
		{
			name: "HeaderFunc fault", hfErr: &core.Fault{Code: core.CodeSender, Reason: "bad credentials"},
			check: func(t *testing.T, v core.Version, f, w *core.Fault, raw []byte) {
				assert.Equal(t, core.CodeSender, f.Code)
				assert.Equal(t, "bad credentials", f.Reason)
				assert.Equal(t, pmGatewayURI, f.Node)
				assert.Equal(t, pmRoleGate, f.Role)
				assert.Equal(t, "bad credentials", w.Reason)
				assert.Equal(t, pmGatewayURI, w.Node)
			},
		},
		{
			name: "remote fault from Next", nextErr: remote,
			check: func(t *testing.T, v core.Version, f, w *core.Fault, raw []byte) {
				assert.Same(t, remote, f, "a fault from further down the path comes back unchanged")
				assert.True(t, f.Remote)
				assert.Equal(t, pmFarURI, f.Node)
				assert.Equal(t, pmFarURI, w.Node)
				assert.Contains(t, string(w.Detail), "stock")
			},
		},
		{
			name: "Next plain error", nextErr: errSecret,
			check: func(t *testing.T, v core.Version, f, w *core.Fault, raw []byte) {
				assert.Equal(t, core.CodeReceiver, f.Code)
				assert.Equal(t, pmGatewayURI, f.Node, "the intermediary names itself")
				assert.False(t, f.Remote)
				assert.ErrorIs(t, f, errSecret)
				assert.Equal(t, pmGatewayURI, w.Node)
				assert.NotContains(t, string(raw), "hunter2")
			},
		},
	}
	for _, v := range pmVersions {
		for _, c := range cases {
			t.Run(v.String()+"/"+c.name, func(t *testing.T) {
				fwd := &pmForward{err: c.nextErr}
				n := &core.Node{URI: pmGatewayURI, Roles: []string{pmRoleGate}, Intermediary: true, Next: fwd,
					Headers: map[xml.Name]core.HeaderFunc{
						pmName("Credentials"): func(ctx context.Context, m *core.Message, b *core.HeaderBlock) (context.Context, error) {
							return ctx, c.hfErr
						},
					}}
				req := pmRead(t, pmEnvelope(v, "", pmBody, pmBlock{Local: "Credentials", Role: pmRoleGate, MU: true}))
				reply, err := n.ServeSOAP(t.Context(), req)
				assert.Nil(t, reply)
				f := pmAsFault(t, err)
				if c.hfErr != nil {
					assert.Empty(t, fwd.seen, "nothing is forwarded after a HeaderFunc error")
				}
				written, raw := pmFaultWire(t, req, f)
				c.check(t, v, f, written, raw)
			})
		}
	}
}

// TestReceiverHandlerErrors covers the ultimate receiver's handler errors.
func TestReceiverHandlerErrors(t *testing.T) {
	errSecret := errors.New("sql: connection to db01 refused, user=root")
	for _, v := range pmVersions {
		t.Run(v.String()+"/plain error", func(t *testing.T) {
			n := &core.Node{URI: pmReceiverURI, Handler: core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
				return nil, errSecret
			})}
			req := pmRead(t, pmEnvelope(v, "", pmBody))
			_, err := n.ServeSOAP(t.Context(), req)
			f := pmAsFault(t, err)
			assert.Equal(t, core.CodeReceiver, f.Code)
			assert.Equal(t, core.InternalErrorReason, f.Reason)
			assert.ErrorIs(t, f, errSecret)
			assert.Equal(t, v, f.Version)
			w, raw := pmFaultWire(t, req, f)
			assert.Equal(t, core.CodeReceiver, w.Code)
			assert.Equal(t, core.InternalErrorReason, w.Reason)
			assert.NotContains(t, string(raw), "db01")
			assert.NotContains(t, string(raw), "root")
		})
		t.Run(v.String()+"/fault", func(t *testing.T) {
			mine := &core.Fault{Code: core.CodeSender, Reason: "no such order",
				Subcodes: []xml.Name{{Space: "urn:example:errors", Local: "UnknownOrder"}},
				Detail:   []byte(`<e:Order xmlns:e="urn:example:errors">42</e:Order>`)}
			n := &core.Node{URI: pmReceiverURI, Handler: core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
				return nil, mine
			})}
			req := pmRead(t, pmEnvelope(v, "", pmBody))
			_, err := n.ServeSOAP(t.Context(), req)
			f := pmAsFault(t, err)
			assert.Equal(t, core.CodeSender, f.Code)
			assert.Equal(t, "no such order", f.Reason)
			assert.Equal(t, mine.Detail, f.Detail)
			assert.Equal(t, mine.Subcodes, f.Subcodes)
			w, raw := pmFaultWire(t, req, f)
			assert.Equal(t, "no such order", w.Reason)
			assert.Contains(t, string(w.Detail), ">42</e:Order>", "%s", raw)
		})
	}
}

// TestNodeWithoutHandlerOrNext: a misconfigured node faults, naming itself.
func TestNodeWithoutHandlerOrNext(t *testing.T) {
	for _, intermediary := range []bool{false, true} {
		n := &core.Node{URI: pmGatewayURI, Intermediary: intermediary}
		_, err := n.ServeSOAP(t.Context(), pmRead(t, pmEnvelope(core.V12, "", pmBody)))
		f := pmAsFault(t, err)
		assert.Equal(t, core.CodeReceiver, f.Code)
		assert.Equal(t, pmGatewayURI, f.Node)
	}
	_, err := (&core.Node{}).ServeSOAP(t.Context(), &core.Message{})
	assert.Equal(t, core.CodeSender, pmAsFault(t, err).Code)
}
