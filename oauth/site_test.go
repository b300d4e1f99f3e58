package oauth

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/accounts"
	"github.com/mcpdir/mcpdir/auth"
	"github.com/mcpdir/mcpdir/memory"
	"github.com/mcpdir/mcpdir/search"
	"github.com/mcpdir/mcpdir/sqlite"
	"github.com/mcpdir/mcpdir/web"
)

// site is the authorization server with the real pages and accounts on a
// SQLite store, on a clock the test moves, and a browser with cookies
// that stops at redirects.
type site struct {
	t       testing.TB
	URL     string
	srv     *Server
	store   *sqlite.DB
	guard   mcpdir.Guard
	browser *http.Client
	offset  atomic.Int64 // how far the clock was moved
}

func newSite(t testing.TB, docs *Documents) *site {
	ctx := context.Background()
	store, err := sqlite.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	index, _ := search.Build(ctx, store)
	logger := slog.New(slog.DiscardHandler)
	pages, err := web.New(index, logger)
	if err != nil {
		t.Fatal(err)
	}
	clientIP := func(*http.Request) string { return "test" }
	pages.WithAccounts(&web.AccountConfig{Accounts: accounts.New(store, memory.NewLimiter(nil)), Store: store, ClientIP: clientIP})
	mux := http.NewServeMux()
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	s := &site{t: t, URL: ts.URL, store: store}
	keys := auth.New(store, memory.NewLimiter(nil), logger)
	s.srv = New(Config{Store: store, Accounts: store, Limiter: memory.NewLimiter(nil), Budgets: keys, Pages: pages, ClientIP: clientIP, PublicURL: ts.URL, Documents: docs, Logger: logger})
	s.srv.now = func() time.Time { return time.Now().Add(time.Duration(s.offset.Load())) }
	s.guard = s.srv.Guard(keys)
	same := func(next http.Handler) http.Handler { return next }
	// The pages a person passes through on the way to the consent page.
	csrf := http.NewCrossOriginProtection()
	mux.Handle("GET /signup", pages.SignupForm())
	mux.Handle("POST /signup", csrf.Handler(pages.Signup()))
	mux.Handle("GET /login", pages.LoginForm())
	mux.Handle("POST /login", csrf.Handler(pages.Login()))
	mux.Handle("GET /keys", pages.Keys())
	mux.Handle("POST /keys/apps/{id}/revoke", csrf.Handler(pages.RevokeApp()))
	s.srv.Routes(mux, same)
	jar, _ := cookiejar.New(nil)
	s.browser = &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return s
}

// move moves the server's clock forward.
func (s *site) move(d time.Duration) { s.offset.Add(int64(d)) }

func (s *site) post(path string, form url.Values) *http.Response {
	s.t.Helper()
	req, _ := http.NewRequest("POST", s.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", s.URL)
	resp, err := s.browser.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

func (s *site) signUp() {
	s.t.Helper()
	if resp := s.post("/signup", url.Values{"email": {"ada@example.com"}, "password": {"a long enough password"}}); resp.StatusCode != http.StatusSeeOther {
		s.t.Fatalf("sign up: %d", resp.StatusCode)
	}
}

// authQuery is an authorization request with the S256 challenge of verifier.
func authQuery(clientID, redirect, verifier string) url.Values {
	sum := sha256.Sum256([]byte(verifier))
	return url.Values{"response_type": {"code"}, "client_id": {clientID}, "redirect_uri": {redirect},
		"code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])}, "code_challenge_method": {"S256"}, "state": {"xyz"}}
}

// allow answers Allow on the consent page of q and returns the code.
func (s *site) allow(q url.Values) string {
	s.t.Helper()
	form := url.Values{}
	for k, v := range q {
		form[k] = v
	}
	form.Set("decision", "allow")
	resp := s.post("/oauth/authorize", form)
	back, _ := url.Parse(resp.Header.Get("Location"))
	if resp.StatusCode != http.StatusSeeOther || back.Query().Get("code") == "" || back.Query().Get("state") != q.Get("state") {
		s.t.Fatalf("allow: %d %v", resp.StatusCode, back)
	}
	return back.Query().Get("code")
}

// form posts to an endpoint and decodes the JSON answer.
func (s *site) form(path string, form url.Values) (int, map[string]any) {
	s.t.Helper()
	resp, err := http.PostForm(s.URL+path, form)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

// register registers a client with a loopback redirect URI.
func (s *site) register() (clientID, redirect string) {
	s.t.Helper()
	redirect = "http://127.0.0.1:7777/callback"
	resp, err := http.Post(s.URL+"/oauth/register", "application/json", strings.NewReader(`{"client_name":"Agent","redirect_uris":["`+redirect+`"]}`))
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	var reg map[string]any
	json.NewDecoder(resp.Body).Decode(&reg)
	if resp.StatusCode != 201 {
		s.t.Fatalf("register: %d %v", resp.StatusCode, reg)
	}
	return reg["client_id"].(string), redirect
}
