package core_test

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
)

type getReq struct {
	XMLName xml.Name `xml:"urn:m Get"`
	ID      int      `xml:"urn:m id"`
}

var errTransport = errors.New("connection reset")

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errTransport }

func TestBodyIsReadLazily(t *testing.T) {
	for _, v := range versions {
		head := envOf(v, `<s:Envelope xmlns:s="{ns}"><s:Header><h:a xmlns:h="urn:h"/></s:Header><s:Body><m:Get xmlns:m="urn:m">`)
		env, err := core.ReadEnvelope(io.MultiReader(strings.NewReader(head), failingReader{}), core.Limits{})
		require.NoError(t, err, "the rest of the body is not needed to read the envelope")
		assert.Equal(t, xml.Name{Space: "urn:m", Local: "Get"}, env.Body.Name())
		assert.Len(t, env.Headers, 1)
		err = env.Body.Discard()
		requireFault(t, err, core.CodeSender, "connection reset")
		assert.ErrorIs(t, err, errTransport)
	}
}

func TestBodyDecode(t *testing.T) {
	for _, v := range versions {
		env, err := core.ReadEnvelope(strings.NewReader(envOf(v, wrap("", reqBody))), core.Limits{})
		require.NoError(t, err)
		assert.False(t, env.Body.IsEmpty())
		assert.Nil(t, env.Body.Fault())
		var got getReq
		require.NoError(t, env.Body.Decode(&got))
		assert.Equal(t, 7, got.ID)

		env, err = core.ReadEnvelope(strings.NewReader(envOf(v, wrap("", `<m:Get xmlns:m="urn:m"><m:id>x</m:id></m:Get>`))), core.Limits{})
		require.NoError(t, err)
		requireFault(t, env.Body.Decode(&got), core.CodeSender, "does not fit the expected value")
	}
}

func TestBodyTokensResolveQNameValues(t *testing.T) {
	for _, v := range versions {
		in := envOf(v, `<s:Envelope xmlns:s="{ns}" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">`+
			`<s:Body><m:Add xmlns:m="urn:m"><a xsi:type="xsd:int">1</a></m:Add><m:Second xmlns:m="urn:m2"/></s:Body></s:Envelope>`)
		env, err := core.ReadEnvelope(strings.NewReader(in), core.Limits{})
		require.NoError(t, err)
		var starts []xml.StartElement
		for {
			tok, err := env.Body.Token()
			if err == io.EOF {
				break
			}
			require.NoError(t, err)
			if se, ok := tok.(xml.StartElement); ok {
				starts = append(starts, se)
			}
		}
		require.Len(t, starts, 3)
		assert.Equal(t, xml.Name{Space: "urn:m", Local: "Add"}, starts[0].Name)
		scope := map[string]string{}
		for _, a := range starts[0].Attr {
			if a.Name.Space == "xmlns" {
				scope[a.Name.Local] = a.Value
			}
		}
		assert.Equal(t, core.NamespaceXMLSchema, scope["xsd"], "xsd declared on the Envelope is carried by the first child")
		assert.Equal(t, v.Namespace(), scope["s"])
		assert.Equal(t, xml.Attr{Name: xml.Name{Space: core.NamespaceXMLSchemaInst, Local: "type"}, Value: "xsd:int"}, starts[1].Attr[0])
		assert.Equal(t, xml.Name{Space: "urn:m2", Local: "Second"}, starts[2].Name)
		_, err = env.Body.Token()
		assert.Equal(t, io.EOF, err, "EOF stays")
	}
}

func TestBodyTokenDecoder(t *testing.T) {
	for _, v := range versions {
		env, err := core.ReadEnvelope(strings.NewReader(envOf(v, wrap("", reqBody))), core.Limits{})
		require.NoError(t, err)
		var got getReq
		require.NoError(t, xml.NewTokenDecoder(env.Body).Decode(&got))
		assert.Equal(t, 7, got.ID)
	}
}

func TestBodyWriteToIsNamespaceComplete(t *testing.T) {
	known := map[string]bool{"urn:m": true, "urn:x": true, core.NamespaceV11: true, core.NamespaceV12: true}
	for _, v := range versions {
		in := envOf(v, `<s:Envelope xmlns:s="{ns}" xmlns:m="urn:m"><s:Body xmlns:x="urn:x">`+
			`<m:Get x:flag="1"><m:id>7</m:id></m:Get><x:More/></s:Body></s:Envelope>`)
		env, err := core.ReadEnvelope(strings.NewReader(in), core.Limits{})
		require.NoError(t, err)
		var buf bytes.Buffer
		n, err := env.Body.WriteTo(&buf)
		require.NoError(t, err)
		assert.Equal(t, int64(buf.Len()), n)
		names := resolvedNames(t, []byte("<r>"+buf.String()+"</r>"), known)
		assert.Equal(t, []string{"{}r", "{urn:m}Get", "{urn:x}flag", "{urn:m}id", "{urn:x}More"}, names)
	}
}

func TestBodyLazyErrorsAreSenderFaults(t *testing.T) {
	bad := map[string]string{
		"element after the Body": `<s:Envelope xmlns:s="{ns}"><s:Body>` + reqBody + `</s:Body><x:t xmlns:x="urn:x"/></s:Envelope>`,
		"two Bodies":             `<s:Envelope xmlns:s="{ns}"><s:Body>` + reqBody + `</s:Body><s:Body/></s:Envelope>`,
		"content after":          wrap("", reqBody) + `<x/>`,
	}
	consumers := map[string]func(core.Body) error{
		"Discard": func(b core.Body) error { return b.Discard() },
		"Decode":  func(b core.Body) error { var g getReq; err := b.Decode(&g); return errors.Join(err, b.Discard()) },
		"WriteTo": func(b core.Body) error { _, err := b.WriteTo(io.Discard); return err },
		"Envelope.WriteTo": func(b core.Body) error {
			_, err := (&core.Envelope{Version: core.V12, Body: b}).WriteTo(io.Discard)
			return err
		},
	}
	for _, v := range versions {
		for name, in := range bad {
			for cname, consume := range consumers {
				t.Run(v.String()+"/"+name+"/"+cname, func(t *testing.T) {
					env, err := core.ReadEnvelope(strings.NewReader(envOf(v, in)), core.Limits{})
					require.NoError(t, err)
					err = consume(env.Body)
					require.Error(t, err)
					var f *core.Fault
					require.True(t, errors.As(err, &f), "%v", err)
					assert.Equal(t, core.CodeSender, f.Code)
				})
			}
		}
	}
}

func TestEmptyBody(t *testing.T) {
	for _, v := range versions {
		for _, body := range []string{`<s:Body/>`, `<s:Body></s:Body>`, `<s:Body> <!-- c --> </s:Body>`} {
			in := envOf(v, `<s:Envelope xmlns:s="{ns}">`+body+`</s:Envelope>`)
			env, err := core.ReadEnvelope(strings.NewReader(in), core.Limits{})
			require.NoError(t, err)
			assert.True(t, env.Body.IsEmpty())
			assert.Equal(t, xml.Name{}, env.Body.Name())
			_, err = env.Body.Token()
			assert.Equal(t, io.EOF, err)
			require.NoError(t, env.Body.Discard())
			var buf bytes.Buffer
			_, err = env.WriteTo(&buf)
			require.NoError(t, err)
			assert.Contains(t, buf.String(), "<soap:Body/>")
		}
	}
	assert.True(t, core.Body{}.IsEmpty())
	assert.Equal(t, xml.Name{}, core.Body{}.Name())
}

func TestOutboundBodies(t *testing.T) {
	want := getReq{ID: 7}
	bodies := map[string]func() core.Body{
		"raw":   func() core.Body { return core.RawBody([]byte(`<m:Get xmlns:m="urn:m"><m:id>7</m:id></m:Get>`)) },
		"value": func() core.Body { return core.ValueBody(want) },
		"stream": func() core.Body {
			return core.StreamBody(xml.Name{Space: "urn:m", Local: "Get"}, func(w io.Writer) error {
				_, err := io.WriteString(w, `<Get xmlns="urn:m"><id>7</id></Get>`)
				return err
			})
		},
	}
	for _, v := range versions {
		for name, mk := range bodies {
			t.Run(v.String()+"/"+name, func(t *testing.T) {
				b := mk()
				assert.Equal(t, xml.Name{Space: "urn:m", Local: "Get"}, b.Name())
				var got getReq
				require.NoError(t, mk().Decode(&got), "an outbound body decodes too")
				assert.Equal(t, 7, got.ID)

				var buf bytes.Buffer
				_, err := (&core.Envelope{Version: v, Body: b}).WriteTo(&buf)
				require.NoError(t, err)
				env, err := core.ReadEnvelope(&buf, core.Limits{})
				require.NoError(t, err)
				assert.Equal(t, v, env.Version)
				got = getReq{}
				require.NoError(t, env.Body.Decode(&got))
				assert.Equal(t, 7, got.ID)
			})
		}
		t.Run(v.String()+"/fault", func(t *testing.T) {
			var buf bytes.Buffer
			_, err := (&core.Envelope{Version: v, Body: core.FaultBody(core.SenderFault("no %s", "id"))}).WriteTo(&buf)
			require.NoError(t, err)
			env, err := core.ReadEnvelope(&buf, core.Limits{})
			require.NoError(t, err)
			f := env.Body.Fault()
			require.NotNil(t, f)
			assert.Equal(t, core.CodeSender, f.Code)
			assert.Equal(t, "no id", f.Reason)
			assert.Equal(t, xml.Name{Space: v.Namespace(), Local: "Fault"}, env.Body.Name())
			assert.ErrorIs(t, env.Body.Decode(&getReq{}), &core.Fault{Code: core.CodeSender}, "decoding a fault body returns the fault")
		})
	}
	t.Run("stream error", func(t *testing.T) {
		boom := errors.New("boom")
		b := core.StreamBody(xml.Name{Local: "x"}, func(io.Writer) error { return boom })
		_, err := (&core.Envelope{Body: b}).WriteTo(io.Discard)
		assert.ErrorIs(t, err, boom)
	})
}
