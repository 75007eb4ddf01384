package core_test

import (
	"bytes"
	"encoding/xml"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
)

type vEcho struct {
	XMLName xml.Name `xml:"urn:e echoStringResponse"`
	Return  string   `xml:"return"`
	N       []int    `xml:"n,attr"`
}

// TestValueBody: a ValueBody writes what xml.Marshal writes for its value,
// on its own (WriteTo) and in an envelope, whether the value fast path
// (core/internal/xmlvalue) writes it or xml.Marshal does; a value
// xml.Marshal refuses is the writer's error.
func TestValueBody(t *testing.T) {
	type (
		nsAttr struct { // xml.Marshal's
			XMLName xml.Name `xml:"x"`
			A       string   `xml:"urn:x a,attr"`
		}
		cdata struct { // xml.Marshal's
			XMLName xml.Name `xml:"c"`
			C       string   `xml:",cdata"`
		}
	)
	for _, v := range []any{
		vEcho{Return: "it's <x> & \"y\"\t\r\n\x01\xff", N: []int{1, 2}},
		&vEcho{},
		[]vEcho{{Return: "a"}, {Return: "b"}},
		nsAttr{A: "1"},
		cdata{C: "]]> & <"},
	} {
		want, err := xml.Marshal(v)
		require.NoError(t, err)
		var b bytes.Buffer
		_, err = core.ValueBody(v).WriteTo(&b)
		require.NoError(t, err)
		assert.Equal(t, string(want), b.String(), "%T", v)
		for _, ver := range []core.Version{core.V11, core.V12} {
			var env bytes.Buffer
			_, err := core.NewMessage(ver, core.ValueBody(v)).WriteTo(&env)
			require.NoError(t, err)
			assert.Contains(t, env.String(), "<soap:Body>"+string(want)+"</soap:Body>", "%T", v)
		}
	}
	for _, v := range []any{make(chan int), struct{ F func() }{}} {
		var b bytes.Buffer
		_, err := core.ValueBody(v).WriteTo(&b)
		assert.Error(t, err, "%T", v)
		_, err = core.NewMessage(core.V11, core.ValueBody(v)).WriteTo(&b)
		assert.Error(t, err, "%T", v)
	}
}
