package oauth

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/memory"
)

// grantFlow is one client of the site with helpers for its tokens.
type grantFlow struct {
	site               *site
	clientID, redirect string
	verifier           string
}

func newGrantFlow(site *site) *grantFlow {
	id, redirect := site.register()
	return &grantFlow{site: site, clientID: id, redirect: redirect, verifier: strings.Repeat("v", 43)}
}

// code allows the client and returns a code.
func (f *grantFlow) code() string { return f.site.allow(authQuery(f.clientID, f.redirect, f.verifier)) }

func (f *grantFlow) exchange(code string) (int, map[string]any) {
	return f.site.form("/oauth/token", url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {f.redirect},
		"client_id": {f.clientID}, "code_verifier": {f.verifier}})
}

func (f *grantFlow) refresh(token string) (int, map[string]any) {
	return f.site.form("/oauth/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {token}, "client_id": {f.clientID}})
}

// tokens allows the client and exchanges the code.
func (f *grantFlow) tokens() (access, refresh string) {
	f.site.t.Helper()
	status, tok := f.exchange(f.code())
	if status != 200 {
		f.site.t.Fatalf("exchange: %d %v", status, tok)
	}
	return tok["access_token"].(string), tok["refresh_token"].(string)
}

// Finding 3: a rotated refresh token presented again revokes the whole
// grant: the refresh token and the access token the rotation gave stop
// working too.
func TestRefreshTokenReplayRevokesTheGrant(t *testing.T) {
	site := newSite(t, nil)
	site.signUp()
	f := newGrantFlow(site)
	_, rt1 := f.tokens()
	status, tok := f.refresh(rt1)
	if status != 200 {
		t.Fatalf("refresh: %d %v", status, tok)
	}
	at2, rt2 := tok["access_token"].(string), tok["refresh_token"].(string)
	ctx := context.Background()
	if _, err := site.guard.Authenticate(ctx, "Bearer "+at2); err != nil {
		t.Fatal(err)
	}
	if status, e := f.refresh(rt1); status != 400 || e["error"] != "invalid_grant" || !strings.Contains(e["error_description"].(string), "revoked") {
		t.Fatalf("the rotated refresh token again: %d %v", status, e)
	}
	if status, e := f.refresh(rt2); status != 400 || e["error"] != "invalid_grant" {
		t.Fatalf("the newer refresh token after the replay: %d %v", status, e)
	}
	if _, err := site.guard.Authenticate(ctx, "Bearer "+at2); mcpdir.ErrorCode(err) != mcpdir.ECodeRevokedKey && mcpdir.ErrorCode(err) != mcpdir.ECodeInvalidKey {
		t.Fatalf("the newer access token after the replay: %v", err)
	}
	if list, _ := site.store.Grants(ctx, mustAccount(t, site).ID); len(list) != 0 {
		t.Fatalf("the grant outlived the replay: %+v", list)
	}

	// A replay also revokes when the thief refreshes first: the
	// client's own refresh, coming second, ends the thief's tokens.
	_, rt1 = f.tokens()
	status, tok = f.refresh(rt1) // the thief
	if status != 200 {
		t.Fatalf("refresh: %d", status)
	}
	if status, _ := f.refresh(rt1); status != 400 { // the client
		t.Fatalf("the client's refresh after the thief's: %d", status)
	}
	if status, _ := f.refresh(tok["refresh_token"].(string)); status != 400 {
		t.Fatalf("the thief's refresh token after the replay: %d", status)
	}

	// A rotated refresh token replayed under another client_id is a replay
	// all the same.
	_, rt1 = f.tokens()
	status, tok = f.refresh(rt1)
	if status != 200 {
		t.Fatalf("refresh: %d", status)
	}
	if status, _ := site.form("/oauth/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt1}, "client_id": {"mcpdc_someone-else"}}); status != 400 {
		t.Fatalf("the rotated token under another client_id: %d", status)
	}
	if status, _ := f.refresh(tok["refresh_token"].(string)); status != 400 {
		t.Fatalf("the grant outlived a replay under another client_id: %d", status)
	}
}

// 20 refreshes at once with one refresh token: one succeeds, and since the
// others are replays of it, the grant ends.
func TestParallelRefreshesGiveOneSuccess(t *testing.T) {
	site := newSite(t, nil)
	site.signUp()
	f := newGrantFlow(site)
	_, rt := f.tokens()
	var wg sync.WaitGroup
	var mu sync.Mutex
	ok := 0
	for range 20 {
		wg.Go(func() {
			if status, _ := f.refresh(rt); status == 200 {
				mu.Lock()
				ok++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if ok != 1 {
		t.Fatalf("%d of 20 parallel refreshes succeeded", ok)
	}
}

// Finding 6: a refresh ends the grant's earlier access tokens, on the
// replica that refreshed at once (it had the token in memory).
func TestRefreshEndsEarlierAccessTokens(t *testing.T) {
	site := newSite(t, nil)
	site.signUp()
	f := newGrantFlow(site)
	at1, rt1 := f.tokens()
	ctx := context.Background()
	if _, err := site.guard.Authenticate(ctx, "Bearer "+at1); err != nil {
		t.Fatal(err)
	}
	status, tok := f.refresh(rt1)
	if status != 200 {
		t.Fatalf("refresh: %d", status)
	}
	if _, err := site.guard.Authenticate(ctx, "Bearer "+at1); mcpdir.ErrorCode(err) != mcpdir.ECodeInvalidKey {
		t.Fatalf("the access token before the refresh: %v", err)
	}
	if _, err := site.guard.Authenticate(ctx, "Bearer "+tok["access_token"].(string)); err != nil {
		t.Fatalf("the new access token: %v", err)
	}
}

func mustAccount(t *testing.T, s *site) *mcpdir.Account {
	t.Helper()
	a, err := s.store.AccountByEmail(context.Background(), "ada@example.com")
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// Finding 4: a code kept across `accounts disable` gives nothing; and the
// token endpoint checks the account on every exchange and refresh, also
// for what was in flight when the account was disabled.
func TestTokensOfADisabledAccount(t *testing.T) {
	site := newSite(t, nil)
	site.signUp()
	f := newGrantFlow(site)
	_, rt := f.tokens()
	code := f.code()
	ctx := context.Background()
	if err := site.store.DisableAccount(ctx, "ada@example.com", time.Now()); err != nil {
		t.Fatal(err)
	}
	if status, e := f.exchange(code); status != 400 || e["error"] != "invalid_grant" {
		t.Fatalf("a code kept across the ban: %d %v", status, e)
	}
	if status, e := f.refresh(rt); status != 400 || e["error"] != "invalid_grant" {
		t.Fatalf("a refresh after the ban: %d %v", status, e)
	}

	// What the store cannot show: an account disabled between the
	// reads of the token endpoint (its codes and grants were live when read).
	site = newSite(t, nil)
	site.signUp()
	f = newGrantFlow(site)
	_, rt = f.tokens()
	code = f.code()
	off := &disabledAccounts{Accounts: site.store}
	site.srv.cfg.Accounts = off
	off.disabled.Store(true)
	if status, e := f.exchange(code); status != 400 || e["error"] != "invalid_grant" || !strings.Contains(e["error_description"].(string), "disabled") {
		t.Fatalf("exchange for a disabled account: %d %v", status, e)
	}
	if status, e := f.refresh(rt); status != 400 || e["error"] != "invalid_grant" || !strings.Contains(e["error_description"].(string), "disabled") {
		t.Fatalf("refresh for a disabled account: %d %v", status, e)
	}
	off.disabled.Store(false)
	if status, _ := f.refresh(rt); status != 400 {
		t.Fatalf("the grant refused for a disabled account was not revoked: %d", status)
	}
}

// disabledAccounts reports every account disabled while disabled is set:
// the state of an account disabled while a token request is under way.
type disabledAccounts struct {
	Accounts
	disabled atomic.Bool
}

func (d *disabledAccounts) AccountByID(ctx context.Context, id string) (*mcpdir.Account, error) {
	a, err := d.Accounts.AccountByID(ctx, id)
	if err == nil && d.disabled.Load() {
		a.DisabledAt = time.Now()
	}
	return a, err
}

// Finding 6: grants per account are bounded; a new one past the bound
// revokes the one unused for the longest, never one in use.
func TestGrantsPerAccountAreBounded(t *testing.T) {
	site := newSite(t, nil)
	site.signUp()
	f := newGrantFlow(site)
	ctx := context.Background()
	first, _ := f.tokens()
	var accesses []string
	for range MaxGrantsPerAccount + 4 {
		a, _ := f.tokens()
		accesses = append(accesses, a)
		if len(accesses) == 1 {
			// the first grant is used: it is the newest in use
			if _, err := site.guard.Authenticate(ctx, "Bearer "+first); err != nil {
				t.Fatal(err)
			}
		}
	}
	list, err := site.store.Grants(ctx, mustAccount(t, site).ID)
	if err != nil || len(list) != MaxGrantsPerAccount {
		t.Fatalf("%d grants after %d allowed, want %d (%v)", len(list), MaxGrantsPerAccount+5, MaxGrantsPerAccount, err)
	}
	if _, err := site.guard.Authenticate(ctx, "Bearer "+first); err != nil {
		t.Fatalf("the grant in use went: %v", err)
	}
	for i, a := range accesses {
		_, err := site.guard.Authenticate(ctx, "Bearer "+a)
		if gone := err != nil; gone != (i < 5) {
			t.Errorf("grant %d: %v", i+1, err)
		}
	}
}

// Finding 6: the token endpoint is limited per address (every request)
// and per client (requests with a valid code or refresh token of it:
// invented ones with its client_id do not spend its limit), 429 with
// Retry-After past either.
func TestTokenEndpointRateLimits(t *testing.T) {
	site := newSite(t, nil)
	site.srv.cfg.ClientIP = func(r *http.Request) string { return r.Header.Get("X-Test-Addr") }
	site.srv.cfg.Limiter = memory.NewLimiter(site.srv.now)
	site.signUp()
	f := newGrantFlow(site)
	post := func(addr string, form url.Values) (*http.Response, map[string]any) {
		req, _ := http.NewRequest("POST", site.URL+"/oauth/token", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("X-Test-Addr", addr)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		json.NewDecoder(resp.Body).Decode(&out)
		return resp, out
	}
	refresh := func(token string) url.Values {
		return url.Values{"grant_type": {"refresh_token"}, "refresh_token": {token}, "client_id": {f.clientID}}
	}
	// Per address: every request counts.
	for i := range TokenRequestsPerMinute {
		if resp, _ := post("198.51.100.1", refresh("mcpdrt_made_up")); resp.StatusCode != 400 {
			t.Fatalf("request %d: %d", i, resp.StatusCode)
		}
	}
	resp, e := post("198.51.100.1", refresh("mcpdrt_made_up"))
	if resp.StatusCode != 429 || e["error"] != "rate_limited" || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("past the per-address limit: %d %v %q", resp.StatusCode, e, resp.Header.Get("Retry-After"))
	}
	// Made-up tokens with the client's id from many addresses leave its
	// limit whole; its real refreshes, from as many addresses, do not.
	for i := range 2 * TokenRequestsPerMinute {
		if resp, _ := post("203.0.113."+strconv.Itoa(i), refresh("mcpdrt_made_up")); resp.StatusCode != 400 {
			t.Fatalf("made-up %d: %d", i, resp.StatusCode)
		}
	}
	_, rt := f.tokens() // one exchange: counted
	for i := range TokenRequestsPerMinute - 1 {
		resp, tok := post("192.0.2."+strconv.Itoa(i), refresh(rt))
		if resp.StatusCode != 200 {
			t.Fatalf("refresh %d: %d %v", i, resp.StatusCode, tok)
		}
		rt = tok["refresh_token"].(string)
	}
	resp, e = post("192.0.2.200", refresh(rt))
	if resp.StatusCode != 429 || e["error"] != "rate_limited" || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("past the per-client limit: %d %v", resp.StatusCode, e)
	}
	// The refused refresh did not rotate: the token works a minute later.
	site.move(time.Minute)
	if resp, e := post("192.0.2.201", refresh(rt)); resp.StatusCode != 200 {
		t.Fatalf("a minute later: %d %v", resp.StatusCode, e)
	}
}
