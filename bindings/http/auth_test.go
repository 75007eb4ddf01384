package http_test

import (
	"context"
	"encoding/base64"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soaphttp "github.com/soapwire/soapwire/bindings/http"
	"github.com/soapwire/soapwire/core"
)

func TestBasicAuth(t *testing.T) {
	users := make(chan string, 10)
	h := core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		u, _ := soaphttp.UserFromContext(ctx)
		users <- u + "|" + m.Meta["http.user"]
		return echo(ctx, m)
	})
	check := soaphttp.StaticCredentials(map[string]string{"alice": "s3cret", "bob": ""})
	srv := serve(t, h, soaphttp.WithAuth(check), soaphttp.WithRealm(`Soap "realm"`))
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	tests := []struct {
		name    string
		auth    []string
		version core.Version
		ok      bool
		user    string
	}{
		{"valid", []string{"Basic " + b64("alice:s3cret")}, core.V11, true, "alice"},
		{"valid, lower-case scheme", []string{"basic " + b64("alice:s3cret")}, core.V12, true, "alice"},
		{"valid empty password", []string{"Basic " + b64("bob:")}, core.V11, true, "bob"},
		{"missing", nil, core.V11, false, ""},
		{"missing 1.2", nil, core.V12, false, ""},
		{"wrong password", []string{"Basic " + b64("alice:wrong")}, core.V11, false, ""},
		{"password prefix", []string{"Basic " + b64("alice:s3cre")}, core.V11, false, ""},
		{"password longer", []string{"Basic " + b64("alice:s3cret!")}, core.V11, false, ""},
		{"unknown user", []string{"Basic " + b64("mallory:s3cret")}, core.V11, false, ""},
		{"bad base64", []string{"Basic !!!notbase64"}, core.V11, false, ""},
		{"unpadded base64", []string{"Basic " + strings.TrimRight(b64("alice:s3cret1"), "=")}, core.V11, false, ""},
		{"no colon", []string{"Basic " + b64("alices3cret")}, core.V11, false, ""},
		{"NUL in the user", []string{"Basic " + b64("alice\x00:s3cret")}, core.V11, false, ""},
		{"NUL in the password", []string{"Basic " + b64("alice:s3cret\x00")}, core.V11, false, ""},
		{"control character", []string{"Basic " + b64("alice:s3\ncret")}, core.V11, false, ""},
		{"DEL", []string{"Basic " + b64("alice:s3cret\x7f")}, core.V11, false, ""},
		{"invalid UTF-8", []string{"Basic " + b64("alice:\xff\xfe")}, core.V11, false, ""},
		{"Bearer scheme", []string{"Bearer " + b64("alice:s3cret")}, core.V11, false, ""},
		{"no credentials after the scheme", []string{"Basic"}, core.V11, false, ""},
		{"two Authorization headers", []string{"Basic " + b64("alice:s3cret"), "Basic " + b64("alice:s3cret")}, core.V11, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(envelope(tt.version, "", echoBody)))
			require.NoError(t, err)
			req.Header.Set("Content-Type", ctype(tt.version))
			req.Header["Authorization"] = tt.auth
			resp, data := do(t, req)
			if tt.ok {
				require.Equal(t, http.StatusOK, resp.StatusCode, "%s", data)
				assert.Equal(t, tt.user+"|"+tt.user, <-users)
				return
			}
			require.Equal(t, http.StatusUnauthorized, resp.StatusCode, "%s", data)
			assert.Equal(t, `Basic realm="Soap \"realm\"", charset="UTF-8"`, resp.Header.Get("WWW-Authenticate"))
			assert.Equal(t, ctype(tt.version), resp.Header.Get("Content-Type"))
			m, f := readFault(t, data)
			assert.Equal(t, tt.version, m.Version())
			assert.Equal(t, core.CodeSender, f.Code)
			assert.Equal(t, "Client Error", f.Reason)
			if tt.version == core.V11 {
				assert.Contains(t, string(data), "Client</faultcode>")
			}
		})
	}
	assert.Empty(t, users, "the handler never ran for a refused request")
}

// TestAuthRealm: the challenge names DefaultRealm unless WithRealm sets
// another, whichever order the options come in; WithRealm("") keeps the
// default, and WithRealm alone asks for no credentials.
func TestAuthRealm(t *testing.T) {
	check := soaphttp.StaticCredentials(map[string]string{"u": "p"})
	tests := []struct {
		name   string
		opts   []soaphttp.HandlerOption
		status int
		want   string
	}{
		{"default", []soaphttp.HandlerOption{soaphttp.WithAuth(check)}, http.StatusUnauthorized, `Basic realm="` + soaphttp.DefaultRealm + `", charset="UTF-8"`},
		{"realm after auth", []soaphttp.HandlerOption{soaphttp.WithAuth(check), soaphttp.WithRealm("orders")}, http.StatusUnauthorized, `Basic realm="orders", charset="UTF-8"`},
		{"realm before auth", []soaphttp.HandlerOption{soaphttp.WithRealm("orders"), soaphttp.WithAuth(check)}, http.StatusUnauthorized, `Basic realm="orders", charset="UTF-8"`},
		{"empty realm", []soaphttp.HandlerOption{soaphttp.WithAuth(check), soaphttp.WithRealm("")}, http.StatusUnauthorized, `Basic realm="` + soaphttp.DefaultRealm + `", charset="UTF-8"`},
		{"realm without auth", []soaphttp.HandlerOption{soaphttp.WithRealm("orders")}, http.StatusOK, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := serve(t, echo, tt.opts...)
			req, err := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(envelope(core.V11, "", echoBody)))
			require.NoError(t, err)
			req.Header.Set("Content-Type", ctype(core.V11))
			resp, data := do(t, req)
			require.Equal(t, tt.status, resp.StatusCode, "%s", data)
			assert.Equal(t, tt.want, resp.Header.Get("WWW-Authenticate"))
		})
	}
}

func TestStaticCredentials(t *testing.T) {
	creds := map[string]string{"alice": "pw"}
	check := soaphttp.StaticCredentials(creds)
	creds["alice"] = "changed" // the map is copied
	ctx := context.Background()
	assert.True(t, check(ctx, "alice", "pw"))
	assert.False(t, check(ctx, "alice", "changed"))
	assert.False(t, check(ctx, "alice", ""))
	assert.False(t, check(ctx, "", ""))
	assert.False(t, soaphttp.StaticCredentials(nil)(ctx, "", ""))
}
