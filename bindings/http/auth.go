package http

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"net/http"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/soapwire/soapwire/core"
)

// ClientErrorReason is the faultstring of the fault that answers a request
// refused for its credentials.
const ClientErrorReason = "Client Error"

type basicAuth struct {
	realm string
	check func(ctx context.Context, user, pass string) bool
}

// authenticate returns the user of r's valid Basic credentials.
func (a *basicAuth) authenticate(ctx context.Context, r *http.Request) (string, bool) {
	hs := r.Header.Values("Authorization")
	if len(hs) != 1 {
		return "", false
	}
	user, pass, ok := parseBasic(hs[0])
	if !ok || !a.check(ctx, user, pass) {
		return "", false
	}
	return user, true
}

// parseBasic decodes "Basic base64(user:pass)" (RFC 7617). It refuses another
// scheme, bad base64, a missing colon, invalid UTF-8 and control characters
// (NUL included) anywhere in the user or the password.
func parseBasic(h string) (user, pass string, ok bool) {
	scheme, cred, found := strings.Cut(h, " ")
	if !found || !strings.EqualFold(scheme, "Basic") {
		return "", "", false
	}
	raw, err := base64.StdEncoding.Strict().DecodeString(strings.TrimSpace(cred))
	if err != nil || !utf8.Valid(raw) {
		return "", "", false
	}
	s := string(raw)
	for _, c := range s {
		if unicode.IsControl(c) {
			return "", "", false
		}
	}
	return strings.Cut(s, ":")
}

func (s *handler) unauthorized(ctx context.Context, w http.ResponseWriter, r *http.Request, ct contentType) {
	realm := strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s.o.auth.realm)
	w.Header().Set("WWW-Authenticate", `Basic realm="`+realm+`", charset="UTF-8"`)
	v := chooseVersion(r, ct, core.V11)
	s.writeFault(ctx, w, nil, &core.Fault{Code: core.CodeSender, Reason: ClientErrorReason}, v, http.StatusUnauthorized)
}

// StaticCredentials returns a check for WithAuth that accepts the users
// and passwords of creds (user → password). Comparisons take the same time
// whatever the input: SHA-256 digests are compared with crypto/subtle, so
// neither a user's existence nor a password's length shows in the timing.
// The map is copied.
func StaticCredentials(creds map[string]string) func(ctx context.Context, user, pass string) bool {
	type entry struct{ user, pass [sha256.Size]byte }
	entries := make([]entry, 0, len(creds))
	for u, p := range creds {
		entries = append(entries, entry{sha256.Sum256([]byte(u)), sha256.Sum256([]byte(p))})
	}
	return func(_ context.Context, user, pass string) bool {
		u, p := sha256.Sum256([]byte(user)), sha256.Sum256([]byte(pass))
		match := 0
		for i := range entries {
			match |= subtle.ConstantTimeCompare(u[:], entries[i].user[:]) & subtle.ConstantTimeCompare(p[:], entries[i].pass[:])
		}
		return match == 1
	}
}
