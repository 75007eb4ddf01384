package mail

import (
	"fmt"
	"strconv"
)

// The SASL mechanisms of OAuth 2.0 bearer tokens that mail servers take
// (Microsoft 365 and Gmail accept nothing else for IMAP and SMTP
// submission).
const (
	MechOAuthBearer = "OAUTHBEARER" // RFC 7628
	MechXOAuth2     = "XOAUTH2"     // Google's and Microsoft's
)

// OAuthResponse returns the initial client response of mech (MechXOAuth2 or
// MechOAuthBearer) for user with token, for host and port (OAUTHBEARER
// names them; port 0 leaves it out). CR, LF, NUL or the separator \x01 in
// user or token is ErrHeaderInjection: they would change the exchange.
func OAuthResponse(mech, user, token, host string, port int) ([]byte, error) {
	for _, s := range []string{user, token, host} {
		for i := 0; i < len(s); i++ {
			if c := s[i]; c == '\r' || c == '\n' || c == 0 || c == 1 {
				return nil, fmt.Errorf("mail: a control character in the OAuth user, token or host: %w", ErrHeaderInjection)
			}
		}
	}
	switch mech {
	case MechXOAuth2:
		return []byte("user=" + user + "\x01auth=Bearer " + token + "\x01\x01"), nil
	case MechOAuthBearer:
		gs2 := "n,"
		if user != "" {
			gs2 += "a=" + saslName(user)
		}
		s := gs2 + ",\x01"
		if host != "" {
			s += "host=" + host + "\x01"
		}
		if port > 0 {
			s += "port=" + strconv.Itoa(port) + "\x01"
		}
		return []byte(s + "auth=Bearer " + token + "\x01\x01"), nil
	}
	return nil, fmt.Errorf("mail: unknown OAuth mechanism %q", mech)
}

// saslName escapes ',' and '=' in a GS2 authzid (RFC 5801).
func saslName(s string) string {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ',':
			out = append(out, "=2C"...)
		case '=':
			out = append(out, "=3D"...)
		default:
			out = append(out, s[i])
		}
	}
	return string(out)
}

// ParseOAuthResponse reads an initial client response of mech and returns
// the user and token it carries (the server side, for the embedded
// servers' and tests' token checks). ok is false for a malformed response.
func ParseOAuthResponse(mech string, resp []byte) (user, token string, ok bool) {
	fields := splitFields(string(resp))
	switch mech {
	case MechXOAuth2:
		if len(fields) < 2 {
			return "", "", false
		}
		u, ok1 := cutPrefix(fields[0], "user=")
		a, ok2 := cutPrefix(fields[1], "auth=Bearer ")
		return u, a, ok1 && ok2 && a != ""
	case MechOAuthBearer:
		if len(fields) < 2 {
			return "", "", false
		}
		gs2 := fields[0]
		if len(gs2) < 3 || gs2[:2] != "n," || gs2[len(gs2)-1] != ',' {
			return "", "", false
		}
		if a, found := cutPrefix(gs2[2:len(gs2)-1], "a="); found {
			user = unSASLName(a)
		}
		for _, f := range fields[1:] {
			if t, found := cutPrefix(f, "auth=Bearer "); found && t != "" {
				return user, t, true
			}
		}
	}
	return "", "", false
}

func splitFields(s string) []string {
	var out []string
	for len(s) > 0 {
		i := 0
		for i < len(s) && s[i] != 1 {
			i++
		}
		if i > 0 {
			out = append(out, s[:i])
		}
		if i == len(s) {
			break
		}
		s = s[i+1:]
	}
	return out
}

func cutPrefix(s, p string) (string, bool) {
	if len(s) >= len(p) && s[:len(p)] == p {
		return s[len(p):], true
	}
	return "", false
}

func unSASLName(s string) string {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '=' && i+2 < len(s) && s[i+1:i+3] == "2C":
			out, i = append(out, ','), i+2
		case s[i] == '=' && i+2 < len(s) && s[i+1:i+3] == "3D":
			out, i = append(out, '='), i+2
		default:
			out = append(out, s[i])
		}
	}
	return string(out)
}

// OAuthClient is a SASL client (go-sasl's Client interface) of XOAUTH2 or
// OAUTHBEARER: the initial response IR (OAuthResponse), then, to the
// server's error challenge, the response that ends the exchange (the
// server then refuses the login).
type OAuthClient struct {
	Mech string
	IR   []byte
}

// Start returns the mechanism and the initial response.
func (o *OAuthClient) Start() (string, []byte, error) { return o.Mech, o.IR, nil }

// Next answers the server's error challenge.
func (o *OAuthClient) Next(challenge []byte) ([]byte, error) {
	if o.Mech == MechOAuthBearer {
		return []byte{1}, nil // RFC 7628 §3.2.3: a dummy response after an error
	}
	return []byte{}, nil
}
