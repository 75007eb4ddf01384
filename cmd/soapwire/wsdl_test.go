package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
)

func TestReadWSDL(t *testing.T) {
	for _, tc := range []struct {
		name string
		doc  string
		op   string
		v    core.Version
		want opInfo
		err  string
	}{
		{name: "document/literal wrapped", doc: wsdlDocLiteral, op: "add", v: core.V11,
			want: opInfo{namespace: "urn:calc", style: "document", action: "urn:calc#add", params: []param{{"a", "int"}, {"b", "int"}}}},
		{name: "only a 1.1 binding, asked for 1.2", doc: wsdlDocLiteral, op: "add", v: core.V12,
			want: opInfo{namespace: "urn:calc", style: "document", action: "urn:calc#add", params: []param{{"a", "int"}, {"b", "int"}}}},
		{name: "rpc/encoded, body namespace", doc: wsdlRPCEncoded, op: "add", v: core.V12,
			want: opInfo{namespace: "urn:calc:ops", style: "encoded", action: "", params: []param{{"a", "int"}, {"b", "string"}}}},
		{name: "no such operation", doc: wsdlDocLiteral, op: "sub", v: core.V11, err: `no SOAP binding of the operation in the WSDL: "sub"`},
		{name: "not XML", doc: "<definitions", op: "add", err: "wsdl: XML syntax error"},
		{name: "too large", doc: "<a>" + strings.Repeat(" ", maxWSDLBytes) + "</a>", op: "add", err: "wsdl: larger than 8 MiB"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			info, err := readWSDL(strings.NewReader(tc.doc), tc.op, tc.v)
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, *info)
		})
	}
}

func TestOrderArgs(t *testing.T) {
	var args []arg
	for _, s := range []string{"b=2", "extra=x", "a=1", "c:string=3"} {
		a, err := parseArg(s)
		require.NoError(t, err)
		args = append(args, a)
	}
	require.NoError(t, orderArgs(args, []param{{"a", "int"}, {"b", "long"}, {"c", "int"}}))
	var got []any
	for _, a := range args {
		got = append(got, a.value)
	}
	assert.Equal(t, []any{int32(1), int64(2), "3", "x"}, got, "WSDL order, WSDL types, given types win, unknown names last as strings")
}
