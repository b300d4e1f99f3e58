package main

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpdir/mcpdir/service"
	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// pkce is a code verifier and its S256 challenge.
func pkce() (verifier, challenge string) {
	verifier = rand.Text() + rand.Text()
	sum := sha256.Sum256([]byte(verifier))
	return verifier, base64.RawURLEncoding.EncodeToString(sum[:])
}

// noRedirects is an HTTP client with the browser's cookies that stops at
// redirects, so that the test sees where the server sends the browser.
func (b *browser) noRedirects() *http.Client {
	return &http.Client{Jar: b.client.Jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// step makes one request without following redirects; it returns the
// status, the Location and the body.
func (b *browser) step(method, rawURL string, form url.Values) (int, string, string) {
	b.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	if !strings.HasPrefix(rawURL, "http") {
		rawURL = b.base + rawURL
	}
	req, _ := http.NewRequest(method, rawURL, body)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", b.base)
	}
	resp, err := b.noRedirects().Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Location"), string(out)
}

func postJSON(t *testing.T, rawURL string, v any) (int, map[string]any) {
	t.Helper()
	body, _ := json.Marshal(v)
	resp, err := http.Post(rawURL, "application/json", strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, decode[map[string]any](t, resp)
}

func postForm(t *testing.T, rawURL string, form url.Values) (int, map[string]any) {
	t.Helper()
	resp, err := http.PostForm(rawURL, form)
	if err != nil {
		t.Fatal(err)
	}
	if resp.ContentLength == 0 {
		resp.Body.Close()
		return resp.StatusCode, nil
	}
	return resp.StatusCode, decode[map[string]any](t, resp)
}

// register registers a client with one loopback redirect URI.
func register(t *testing.T, base, name string) (clientID, redirect string) {
	t.Helper()
	redirect = "http://127.0.0.1:4567/callback"
	code, reg := postJSON(t, base+"/oauth/register", map[string]any{"client_name": name, "redirect_uris": []string{redirect},
		"grant_types": []string{"authorization_code", "refresh_token"}, "response_types": []string{"code"}, "token_endpoint_auth_method": "none"})
	if code != 201 || reg["client_id"] == "" {
		t.Fatalf("register: %d %v", code, reg)
	}
	return reg["client_id"].(string), redirect
}

// authorize runs the browser side of an authorization for a signed-in
// person: the consent page, then Allow or Deny; it returns the redirect's
// query.
func (b *browser) authorize(base, clientID, redirect, challenge, state, decision string) url.Values {
	b.t.Helper()
	q := url.Values{"response_type": {"code"}, "client_id": {clientID}, "redirect_uri": {redirect}, "code_challenge": {challenge},
		"code_challenge_method": {"S256"}, "state": {state}, "resource": {base + "/api/open/mcp"}}
	code, _, page := b.step("GET", "/oauth/authorize?"+q.Encode(), nil)
	if code != 200 || !strings.Contains(page, ">Allow</button>") || !strings.Contains(page, ">Deny</button>") {
		b.t.Fatalf("consent page: %d\n%s", code, page)
	}
	q.Set("decision", decision)
	code, loc, _ := b.step("POST", "/oauth/authorize", q)
	if code != http.StatusSeeOther || !strings.HasPrefix(loc, redirect+"?") {
		b.t.Fatalf("answer: %d %q", code, loc)
	}
	u, _ := url.Parse(loc)
	return u.Query()
}

func signUp(t *testing.T, s *testServer, email string) *browser {
	b := newBrowser(t, s.URL)
	if code, _ := b.do("POST", "/signup", url.Values{"email": {email}, "password": {"a long enough password"}}); code != 200 {
		t.Fatalf("sign up: %d", code)
	}
	return b
}

// The whole OAuth contract against the real server: discovery, the 401
// that points to it, registration and its refusals, log-in and consent,
// PKCE, codes used once, refresh rotation, the grant's budget on REST and
// MCP across refreshes, Connected apps and revocation.
func TestOAuthFlow(t *testing.T) {
	s := startServer(t, "")
	resource := s.URL + "/api/open/mcp"

	for _, path := range []string{"/.well-known/oauth-protected-resource/api/open/mcp", "/.well-known/oauth-protected-resource"} {
		prm := decode[map[string]any](t, get(t, s.URL+path, ""))
		if prm["resource"] != resource || len(prm["authorization_servers"].([]any)) != 1 || prm["authorization_servers"].([]any)[0] != s.URL {
			t.Fatalf("%s: %v", path, prm)
		}
	}
	req, _ := http.NewRequest("POST", resource, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	challenge := resp.Header.Get("WWW-Authenticate")
	body := decode[map[string]any](t, resp)
	if resp.StatusCode != 401 || !strings.Contains(challenge, `resource_metadata="`+s.URL+`/.well-known/oauth-protected-resource/api/open/mcp"`) || body["error"] == nil {
		t.Fatalf("MCP without credentials: %d %q %v", resp.StatusCode, challenge, body)
	}
	asm := decode[map[string]any](t, get(t, s.URL+"/.well-known/oauth-authorization-server", ""))
	for k, want := range map[string]any{"issuer": s.URL, "authorization_endpoint": s.URL + "/oauth/authorize", "token_endpoint": s.URL + "/oauth/token",
		"registration_endpoint": s.URL + "/oauth/register", "revocation_endpoint": s.URL + "/oauth/revoke",
		"client_id_metadata_document_supported": true, "authorization_response_iss_parameter_supported": true} {
		if asm[k] != want {
			t.Errorf("metadata %s = %v, want %v", k, asm[k], want)
		}
	}
	if b, _ := json.Marshal(asm); !strings.Contains(string(b), `"code_challenge_methods_supported":["S256"]`) || !strings.Contains(string(b), `"token_endpoint_auth_methods_supported":["none"]`) {
		t.Errorf("metadata: %s", b)
	}

	// Registration refuses redirect URIs an attacker could use.
	for _, bad := range []string{"http://example.com/cb", "javascript:alert(1)", "https://app.example/cb#frag", "data:text/html,x", "ftp://x/cb"} {
		code, reg := postJSON(t, s.URL+"/oauth/register", map[string]any{"client_name": "x", "redirect_uris": []string{bad}})
		if code != 400 || reg["error"] != "invalid_redirect_uri" || reg["error_description"] == "" {
			t.Errorf("registering %q: %d %v", bad, code, reg)
		}
	}
	clientID, redirect := register(t, s.URL, "Test Agent")

	// Logged out: the log-in page, then back to the consent page.
	ada := newBrowser(t, s.URL)
	if code, _ := ada.do("POST", "/signup", url.Values{"email": {"ada@example.com"}, "password": {"a long enough password"}}); code != 200 {
		t.Fatalf("sign up: %d", code)
	}
	ada.do("POST", "/logout", url.Values{}, "Origin", s.URL)
	verifier, challengeS256 := pkce()
	q := url.Values{"response_type": {"code"}, "client_id": {clientID}, "redirect_uri": {"http://127.0.0.1:9999/callback"}, "code_challenge": {challengeS256},
		"code_challenge_method": {"S256"}, "state": {"st-1"}, "resource": {resource}}
	code, loc, _ := ada.step("GET", "/oauth/authorize?"+q.Encode(), nil)
	if code != http.StatusSeeOther || !strings.HasPrefix(loc, "/login?next=") {
		t.Fatalf("logged out: %d %q", code, loc)
	}
	code, _, page := ada.step("GET", loc, nil)
	if code != 200 || !strings.Contains(page, "Log in") || !strings.Contains(page, `name="next"`) {
		t.Fatalf("the login page: %d", code)
	}
	next, _ := url.Parse(loc)
	code, loc, _ = ada.step("POST", "/login", url.Values{"email": {"ada@example.com"}, "password": {"a long enough password"}, "next": {next.Query().Get("next")}})
	if code != http.StatusSeeOther || !strings.HasPrefix(loc, "/oauth/authorize?") {
		t.Fatalf("after log-in: %d %q", code, loc)
	}
	req, _ = http.NewRequest("GET", s.URL+loc, nil)
	resp, err = ada.noRedirects().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	page = string(must(io.ReadAll(resp.Body)))
	resp.Body.Close()
	csp := resp.Header.Get("Content-Security-Policy")
	if resp.StatusCode != 200 || !strings.Contains(page, "Test Agent") || !strings.Contains(page, "not verified") || !strings.Contains(page, "<strong>127.0.0.1:9999</strong>") ||
		!strings.Contains(csp, "form-action 'self' http://127.0.0.1:9999;") || !strings.Contains(csp, "frame-ancestors 'none'") {
		t.Fatalf("consent page: %d %q\n%s", resp.StatusCode, csp, page)
	}
	q.Set("decision", "allow")
	code, loc, _ = ada.step("POST", "/oauth/authorize", q)
	back, _ := url.Parse(loc)
	if code != http.StatusSeeOther || back.Host != "127.0.0.1:9999" || back.Query().Get("state") != "st-1" || back.Query().Get("iss") != s.URL || back.Query().Get("code") == "" {
		t.Fatalf("allow: %d %q", code, loc)
	}
	authCode := back.Query().Get("code")

	tokenURL := s.URL + "/oauth/token"
	exchange := url.Values{"grant_type": {"authorization_code"}, "code": {authCode}, "redirect_uri": {"http://127.0.0.1:9999/callback"}, "client_id": {clientID}}
	wrong := cloneWith(exchange, "code_verifier", strings.Repeat("w", 43))
	if code, e := postForm(t, tokenURL, wrong); code != 400 || e["error"] != "invalid_grant" {
		t.Fatalf("a wrong verifier: %d %v", code, e)
	}
	if code, e := postForm(t, tokenURL, cloneWith(cloneWith(exchange, "code_verifier", verifier), "resource", "https://elsewhere.example/mcp")); code != 400 || e["error"] != "invalid_target" {
		t.Fatalf("another resource: %d %v", code, e)
	}
	code, tok := postForm(t, tokenURL, cloneWith(cloneWith(exchange, "code_verifier", verifier), "resource", resource))
	if code != 200 || tok["token_type"] != "Bearer" || tok["access_token"] == nil || tok["refresh_token"] == nil || tok["expires_in"].(float64) > 3600 {
		t.Fatalf("exchange: %d %v", code, tok)
	}
	first := tok["access_token"].(string)
	if code := get(t, s.URL+"/api/open/v1/search?keywords=postgres", "Bearer "+first).StatusCode; code != 200 {
		t.Fatalf("the token on REST: %d", code)
	}
	// The same code again: refused, and the grant it made revoked.
	if code, e := postForm(t, tokenURL, cloneWith(exchange, "code_verifier", verifier)); code != 400 || e["error"] != "invalid_grant" {
		t.Fatalf("a code used twice: %d %v", code, e)
	}
	if resp := get(t, s.URL+"/api/open/v1/search?keywords=postgres", "Bearer "+first); resp.StatusCode != 401 {
		t.Fatalf("the token of a reused code still works: %d", resp.StatusCode)
	}

	// A fresh grant: its budget is the key budget, shared by REST and MCP,
	// kept across a refresh.
	verifier, challengeS256 = pkce()
	got := ada.authorize(s.URL, clientID, redirect, challengeS256, "st-2", "allow")
	code, tok = postForm(t, tokenURL, url.Values{"grant_type": {"authorization_code"}, "code": {got.Get("code")}, "redirect_uri": {redirect}, "client_id": {clientID}, "code_verifier": {verifier}})
	if code != 200 {
		t.Fatalf("exchange: %d %v", code, tok)
	}
	access, refresh := tok["access_token"].(string), tok["refresh_token"].(string)
	for i := range 5 {
		resp := get(t, s.URL+"/api/open/v1/search?keywords=postgres", "Bearer "+access)
		resp.Body.Close()
		if resp.StatusCode != 200 || resp.Header.Get("RateLimit-Limit") != "20" || resp.Header.Get("RateLimit-Remaining") != itoa(19-i) {
			t.Fatalf("REST search %d: %d %v", i, resp.StatusCode, resp.Header)
		}
	}
	cs := connectMCP(t, s, "Bearer "+access)
	for range 5 {
		if res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "search_mcp", Arguments: map[string]any{"keywords": "github"}}); err != nil || res.IsError {
			t.Fatalf("search_mcp with the token: %v %+v", err, res)
		}
	}
	code, tok = postForm(t, tokenURL, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}, "client_id": {clientID}})
	if code != 200 || tok["refresh_token"] == refresh || tok["access_token"] == access {
		t.Fatalf("refresh: %d %v", code, tok)
	}
	// (The old refresh token again would be a replay and end the grant:
	// TestOAuthRefreshReplayAcrossReplicas.)
	if resp := get(t, s.URL+"/api/open/v1/search?keywords=postgres", "Bearer "+access); resp.StatusCode != 401 {
		t.Fatalf("the access token before the refresh: %d", resp.StatusCode)
	}
	access, refresh = tok["access_token"].(string), tok["refresh_token"].(string)
	for i := 10; i < 20; i++ {
		resp := get(t, s.URL+"/api/open/v1/search?keywords=postgres", "Bearer "+access)
		resp.Body.Close()
		if resp.StatusCode != 200 || resp.Header.Get("RateLimit-Remaining") != itoa(19-i) {
			t.Fatalf("search %d after the refresh: %d remaining %s (a refresh must not reset the budget)", i, resp.StatusCode, resp.Header.Get("RateLimit-Remaining"))
		}
	}
	resp = get(t, s.URL+"/api/open/v1/search?keywords=postgres", "Bearer "+access)
	if e := decode[map[string]map[string]string](t, resp); resp.StatusCode != 401 || e["error"]["code"] != "rate_limited" {
		t.Fatalf("the 21st search: %d %v", resp.StatusCode, e)
	}
	// The admin API is not this token's.
	if resp := get(t, s.URL+"/api/admin/v1/export", "Bearer "+access); resp.StatusCode != 401 {
		t.Fatalf("the token on the admin API: %d", resp.StatusCode)
	}

	// Connected apps on /keys, then revocation at the endpoint.
	if code, page := ada.do("GET", "/keys", nil); code != 200 || !strings.Contains(page, "<h2>Connected apps</h2>") || !strings.Contains(page, "Test Agent") || !strings.Contains(page, "20 of 20") {
		t.Fatalf("/keys: %d\n%s", code, page)
	}
	if code, _ := postForm(t, s.URL+"/oauth/revoke", url.Values{"token": {refresh}, "client_id": {clientID}}); code != 200 {
		t.Fatalf("revoke: %d", code)
	}
	if resp := get(t, s.URL+"/api/open/v1/search?keywords=postgres", "Bearer "+access); resp.StatusCode != 401 {
		t.Fatalf("the access token of a revoked grant: %d", resp.StatusCode)
	}
	if code, e := postForm(t, tokenURL, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}, "client_id": {clientID}}); code != 400 || e["error"] != "invalid_grant" {
		t.Fatalf("a revoked refresh token: %d %v", code, e)
	}
	if code, page := ada.do("GET", "/keys", nil); code != 200 || strings.Contains(page, "Test Agent") {
		t.Fatalf("a revoked app is still listed: %d", code)
	}
	if code, _ := postForm(t, s.URL+"/oauth/revoke", url.Values{"token": {"mcpdrt_unknown"}}); code != 200 {
		t.Fatalf("revoking an unknown token: %d", code)
	}

	// Deny; and requests that never get a code.
	_, challengeS256 = pkce()
	if got := ada.authorize(s.URL, clientID, redirect, challengeS256, "st-3", "deny"); got.Get("error") != "access_denied" || got.Get("state") != "st-3" || got.Get("iss") != s.URL || got.Get("code") != "" {
		t.Fatalf("deny: %v", got)
	}
	base := url.Values{"response_type": {"code"}, "client_id": {clientID}, "redirect_uri": {redirect}, "state": {"s"}}
	for name, q := range map[string]url.Values{
		"no code_challenge": base,
		"plain":             cloneWith(cloneWith(base, "code_challenge", challengeS256), "code_challenge_method", "plain"),
		"no method":         cloneWith(base, "code_challenge", challengeS256),
	} {
		// A registered client's redirect URI is not trusted before the
		// person has seen the consent page: an error page, no redirect.
		code, loc, page := ada.step("GET", "/oauth/authorize?"+q.Encode(), nil)
		if code != http.StatusBadRequest || loc != "" || !strings.Contains(page, "invalid_request") || !strings.Contains(page, "127.0.0.1:4567") {
			t.Errorf("%s: %d %q", name, code, loc)
		}
	}
	for name, q := range map[string]url.Values{
		"unknown client":         cloneWith(base, "client_id", "mcpdc_nope"),
		"unregistered redirect":  cloneWith(base, "redirect_uri", "https://evil.example/cb"),
		"another loopback path":  cloneWith(base, "redirect_uri", "http://127.0.0.1:4567/other"),
		"redirect_uri twice":     {"response_type": {"code"}, "client_id": {clientID}, "redirect_uri": {redirect, "https://evil.example/cb"}},
		"no client_id":           {"response_type": {"code"}, "redirect_uri": {redirect}},
		"unknown client of evil": {"client_id": {"x"}, "redirect_uri": {"https://evil.example/cb"}},
	} {
		if code, loc, _ := ada.step("GET", "/oauth/authorize?"+q.Encode(), nil); code < 400 || code > 499 || loc != "" {
			t.Errorf("%s: %d %q (want an error page, no redirect)", name, code, loc)
		}
	}
	// What happened is counted.
	resp = get(t, s.URL+"/metrics", "")
	metrics := string(must(io.ReadAll(resp.Body)))
	resp.Body.Close()
	for _, line := range []string{"mcpdir_oauth_registrations_total 1", `mcpdir_oauth_authorizations_total{decision="allowed"} 2`,
		`mcpdir_oauth_authorizations_total{decision="denied"} 1`, `mcpdir_oauth_token_grants_total{grant_type="authorization_code"} 2`,
		`mcpdir_oauth_token_grants_total{grant_type="refresh_token"} 1`, `mcpdir_oauth_refusals_total{reason="invalid_grant"} 3`,
		`mcpdir_oauth_refusals_total{reason="invalid_redirect_uri"} 5`, `mcpdir_oauth_refusals_total{reason="invalid_target"} 1`} {
		if !strings.Contains(metrics, line+"\n") {
			t.Errorf("/metrics lacks %q", line)
		}
	}
	// A consent answered from another origin is refused.
	q = cloneWith(cloneWith(cloneWith(base, "code_challenge", challengeS256), "code_challenge_method", "S256"), "decision", "allow")
	r, _ := http.NewRequest("POST", s.URL+"/oauth/authorize", strings.NewReader(q.Encode()))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.Header.Set("Origin", "https://evil.example")
	if resp, err := ada.noRedirects().Do(r); err != nil || resp.StatusCode != 403 {
		t.Fatalf("a cross-origin consent: %v %v", err, resp.StatusCode)
	}
}

func cloneWith(v url.Values, k, val string) url.Values {
	out := url.Values{}
	for key, vs := range v {
		out[key] = append([]string(nil), vs...)
	}
	out.Set(k, val)
	return out
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// The official Go SDK's OAuth client connects with nothing but the URL:
// discovery from the 401, dynamic registration, PKCE, the person's
// consent (the test's browser), the token exchange, then tools/call.
func TestOAuthWithTheGoSDKClient(t *testing.T) {
	s := startServer(t, "")
	ada := signUp(t, s, "ada@example.com")
	redirect := "http://127.0.0.1:4567/callback"
	fetcher := func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
		code, _, page := ada.step("GET", args.URL, nil)
		if code != 200 || !strings.Contains(page, "mcpdir Go test") {
			return nil, errors.New("no consent page")
		}
		u, _ := url.Parse(args.URL)
		form := u.Query()
		form.Set("decision", "allow")
		_, loc, _ := ada.step("POST", "/oauth/authorize", form)
		back, err := url.Parse(loc)
		if err != nil {
			return nil, err
		}
		return &auth.AuthorizationResult{Code: back.Query().Get("code"), State: back.Query().Get("state"), Iss: back.Query().Get("iss")}, nil
	}
	handler, err := auth.NewAuthorizationCodeHandler(&auth.AuthorizationCodeHandlerConfig{
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			ClientName: "mcpdir Go test", RedirectURIs: []string{redirect}, GrantTypes: []string{"authorization_code", "refresh_token"}}},
		RedirectURL:              redirect,
		AuthorizationCodeFetcher: fetcher,
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := sdk.NewClient(&sdk.Implementation{Name: "mcpdir Go test", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: s.URL + "/api/open/mcp", OAuthHandler: handler, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "search_mcp", Arguments: map[string]any{"keywords": "postgres"}})
	if err != nil || res.IsError || !strings.Contains(res.Content[0].(*sdk.TextContent).Text, `"success":true`) {
		t.Fatalf("search_mcp: %v %+v", err, res)
	}
}

// Without --public-url the issuer is the address listened on; on every
// interface, localhost.
func TestDefaultPublicURL(t *testing.T) {
	for addr, want := range map[string]string{"127.0.0.1:8080": "http://127.0.0.1:8080", "[::]:8080": "http://localhost:8080",
		"0.0.0.0:9": "http://localhost:9", "[::1]:80": "http://[::1]:80"} {
		a, _ := net.ResolveTCPAddr("tcp", addr)
		if got := service.DefaultPublicURL(a); got != want {
			t.Errorf("%s: %s, want %s", addr, got, want)
		}
	}
}

// grantToken runs the flow for a new account and client and returns the
// access token.
func grantToken(t *testing.T, s *testServer, email string) string {
	t.Helper()
	clientID, redirect := register(t, s.URL, "Era Agent")
	return allowAndExchange(t, signUp(t, s, email), s.URL, s.URL, clientID, redirect)["access_token"].(string)
}

// allowAndExchange has the person signed in on b allow the client (issuer
// is the base URL the server announces), then exchanges the code at the
// token endpoint of tokenBase (another replica, maybe) and returns the
// tokens.
func allowAndExchange(t *testing.T, b *browser, issuer, tokenBase, clientID, redirect string) map[string]any {
	t.Helper()
	verifier, challenge := pkce()
	got := b.authorize(issuer, clientID, redirect, challenge, "s", "allow")
	code, tok := postForm(t, tokenBase+"/oauth/token", url.Values{"grant_type": {"authorization_code"}, "code": {got.Get("code")}, "redirect_uri": {redirect},
		"client_id": {clientID}, "code_verifier": {verifier}})
	if code != 200 {
		t.Fatalf("exchange: %d %v", code, tok)
	}
	return tok
}

// An access token works as a Bearer in every protocol era the endpoint
// serves, and each era's calls spend the one grant budget.
func TestOAuthTokenInEveryEra(t *testing.T) {
	s := startServer(t, "")
	bearer := "Bearer " + grantToken(t, s, "era@example.com")
	client := &http.Client{Transport: headerTransport{bearer}}
	endpoint := s.URL + "/api/open/mcp"
	eras := []struct {
		version   string
		transport sdk.Transport
	}{
		{"2026-07-28", &sdk.StreamableClientTransport{Endpoint: endpoint, HTTPClient: client, MaxRetries: -1}},
		{"2025-11-25", &sdk.StreamableClientTransport{Endpoint: endpoint, HTTPClient: client, MaxRetries: -1}},
		{"2025-06-18", &sdk.StreamableClientTransport{Endpoint: endpoint, HTTPClient: client, MaxRetries: -1}},
		{"2025-03-26", &sdk.StreamableClientTransport{Endpoint: endpoint, HTTPClient: client, MaxRetries: -1}},
		{"2024-11-05", &sdk.SSEClientTransport{Endpoint: endpoint, HTTPClient: client}},
	}
	for _, era := range eras {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "era", Version: "1"}, nil).Connect(ctx, era.transport, &sdk.ClientSessionOptions{ProtocolVersion: era.version})
		if err != nil {
			cancel()
			t.Fatalf("%s: connect: %v", era.version, err)
		}
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "search_mcp", Arguments: map[string]any{"keywords": "postgres"}})
		if err != nil || res.IsError || cs.InitializeResult().ProtocolVersion != era.version {
			t.Errorf("%s: %v %+v (negotiated %s)", era.version, err, res, cs.InitializeResult().ProtocolVersion)
		}
		cs.Close()
		cancel()
	}
	resp := get(t, s.URL+"/api/open/v1/search?keywords=postgres", bearer)
	resp.Body.Close()
	if got := resp.Header.Get("RateLimit-Remaining"); got != strconv.Itoa(20-len(eras)-1) {
		t.Fatalf("remaining after %d MCP calls and a REST search: %s", len(eras), got)
	}
}

// Finding 4 as an operator meets it: a person allows a client and the
// client keeps the code; `mcpdir accounts disable` runs; the code then
// gives nothing, and the tokens issued before stop working.
func TestOAuthTokenAfterAccountsDisable(t *testing.T) {
	s := startServer(t, "")
	clientID, redirect := register(t, s.URL, "Kept Code")
	ada := signUp(t, s, "ada@example.com")
	tok := allowAndExchange(t, ada, s.URL, s.URL, clientID, redirect)
	access, refresh := tok["access_token"].(string), tok["refresh_token"].(string)
	verifier, challenge := pkce()
	kept := ada.authorize(s.URL, clientID, redirect, challenge, "s", "allow").Get("code")

	if out := cli(t, s.DataDir, "accounts", "disable", "ada@example.com"); !strings.Contains(out, "connected apps") {
		t.Fatalf("disable: %q", out)
	}
	if code, e := postForm(t, s.URL+"/oauth/token", url.Values{"grant_type": {"authorization_code"}, "code": {kept}, "redirect_uri": {redirect},
		"client_id": {clientID}, "code_verifier": {verifier}}); code != 400 || e["error"] != "invalid_grant" {
		t.Fatalf("the code kept across the ban: %d %v", code, e)
	}
	if code, e := postForm(t, s.URL+"/oauth/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}, "client_id": {clientID}}); code != 400 || e["error"] != "invalid_grant" {
		t.Fatalf("a refresh after the ban: %d %v", code, e)
	}
	waitFor(t, 2*time.Second, "the access token refused after the ban", func() bool {
		resp := get(t, s.URL+"/api/open/v1/search?keywords=postgres", "Bearer "+access)
		resp.Body.Close()
		return resp.StatusCode == 401
	})
}
