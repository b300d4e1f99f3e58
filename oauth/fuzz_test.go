package oauth

import (
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"
)

// A registration request's body: anything is either refused with an OAuth
// error or gives a client whose every redirect URI passes the rules.
func FuzzParseRegistration(f *testing.F) {
	for _, s := range []string{
		`{"client_name":"Claude","redirect_uris":["https://claude.ai/api/mcp/auth_callback"],"grant_types":["authorization_code","refresh_token"],"response_types":["code"],"token_endpoint_auth_method":"none"}`,
		`{"redirect_uris":["http://127.0.0.1:33418/"],"application_type":"native"}`,
		`{"redirect_uris":["cursor://anysphere.cursor-retrieval/oauth/callback"]}`,
		`{"redirect_uris":["javascript:alert(1)"]}`,
		`{"redirect_uris":["http://example.com/cb"]}`,
		`{"redirect_uris":[]}`, `{}`, `[]`, `null`, `{"redirect_uris":"x"}`, `{"client_name":"\u202eevil"}`, `{"a":1}{"b":2}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		reg, err := parseRegistration(body)
		if err != nil {
			if reg != nil || err.Code == "" || err.Description == "" || err.Status != 400 {
				t.Fatalf("a refusal without a clear error: %+v", err)
			}
			return
		}
		if reg.ClientName == "" || utf8.RuneCountInString(reg.ClientName) > maxClientNameRunes || !utf8.ValidString(reg.ClientName) {
			t.Fatalf("client name %q", reg.ClientName)
		}
		if len(reg.RedirectURIs) == 0 || len(reg.RedirectURIs) > maxRedirectURIs || reg.TokenEndpointAuthMethod != "none" {
			t.Fatalf("registration %+v", reg)
		}
		for _, u := range reg.RedirectURIs {
			if checkRedirectURI(u, reg.ApplicationType) != nil || strings.HasPrefix(strings.ToLower(u), "javascript:") {
				t.Fatalf("redirect URI %q passed", u)
			}
		}
	})
}

// A token request's body: refused with an OAuth error, or every field the
// grant type needs is there and bounded.
func FuzzParseTokenRequest(f *testing.F) {
	f.Add("application/x-www-form-urlencoded", "grant_type=authorization_code&code=abc&redirect_uri=http%3A%2F%2F127.0.0.1%2Fcb&client_id=mcpdc_x&code_verifier="+strings.Repeat("v", 43), "")
	f.Add("application/x-www-form-urlencoded", "grant_type=refresh_token&refresh_token=mcpdrt_x&client_id=mcpdc_x", "")
	f.Add("application/x-www-form-urlencoded; charset=utf-8", "grant_type=refresh_token&refresh_token=r", "mcpdc_basic")
	f.Add("application/x-www-form-urlencoded", "grant_type=password&username=a", "")
	f.Add("application/json", `{"grant_type":"refresh_token"}`, "")
	f.Add("application/x-www-form-urlencoded", "grant_type=refresh_token&grant_type=authorization_code", "")
	f.Add("application/x-www-form-urlencoded", "%zz", "")
	f.Fuzz(func(t *testing.T, contentType, body, basicUser string) {
		req, err := parseTokenRequest(contentType, []byte(body), basicUser)
		if err != nil {
			if req != nil || err.Code == "" || err.Description == "" || err.Status < 400 || err.Status > 499 {
				t.Fatalf("a refusal without a clear error: %+v", err)
			}
			return
		}
		v, perr := url.ParseQuery(body)
		if perr != nil || req.ClientID == "" || len(req.ClientID) > maxRedirectURIBytes {
			t.Fatalf("accepted %q: %+v", body, req)
		}
		for k, vs := range v {
			if len(vs) > 1 {
				t.Fatalf("%s given twice was accepted", k)
			}
		}
		switch req.GrantType {
		case "authorization_code":
			if req.Code == "" || req.RedirectURI == "" || len(req.Verifier) < 43 || len(req.Verifier) > 128 {
				t.Fatalf("accepted %+v", req)
			}
		case "refresh_token":
			if req.RefreshToken == "" || len(req.RefreshToken) > 256 {
				t.Fatalf("accepted %+v", req)
			}
		default:
			t.Fatalf("grant type %q accepted", req.GrantType)
		}
	})
}
