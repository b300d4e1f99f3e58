package oauth

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpdir/mcpdir"
)

// Codes live 60 s, access tokens 1 h, refresh tokens 30 days unused; each
// refresh gives another 30 days.
func TestLifetimes(t *testing.T) {
	site := newSite(t, nil)
	site.signUp()
	clientID, redirect := site.register()
	verifier := strings.Repeat("v", 43)
	exchange := func(code string) (int, map[string]any) {
		return site.form("/oauth/token", url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {redirect},
			"client_id": {clientID}, "code_verifier": {verifier}})
	}
	refresh := func(token string) (int, map[string]any) {
		return site.form("/oauth/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {token}, "client_id": {clientID}})
	}

	code := site.allow(authQuery(clientID, redirect, verifier))
	site.move(61 * time.Second)
	if status, e := exchange(code); status != 400 || e["error"] != "invalid_grant" {
		t.Fatalf("a code 61 s old: %d %v", status, e)
	}

	code = site.allow(authQuery(clientID, redirect, verifier))
	site.move(59 * time.Second)
	status, tok := exchange(code)
	if status != 200 || tok["expires_in"] != float64(3600) {
		t.Fatalf("a code 59 s old: %d %v", status, tok)
	}
	ctx := context.Background()
	access := "Bearer " + tok["access_token"].(string)
	if _, err := site.guard.Authenticate(ctx, access); err != nil {
		t.Fatal(err)
	}
	site.move(time.Hour)
	if _, err := site.guard.Authenticate(ctx, access); !errors.Is(err, errExpiredToken) || mcpdir.ErrorCode(err) != mcpdir.ECodeExpiredKey {
		t.Fatalf("an access token an hour old: %v", err)
	}
	site.move(29 * 24 * time.Hour)
	status, tok = refresh(tok["refresh_token"].(string))
	if status != 200 {
		t.Fatalf("a refresh token 29 days unused: %d %v", status, tok)
	}
	site.move(29 * 24 * time.Hour)
	status, tok = refresh(tok["refresh_token"].(string))
	if status != 200 {
		t.Fatalf("the next refresh token, 29 days unused: %d %v", status, tok)
	}
	site.move(31 * 24 * time.Hour)
	if status, e := refresh(tok["refresh_token"].(string)); status != 400 || e["error"] != "invalid_grant" {
		t.Fatalf("a refresh token 31 days unused: %d %v", status, e)
	}
}

// Registration: 20 an hour from one address, then 429; a refused
// registration creates nothing.
func TestRegistrationLimits(t *testing.T) {
	site := newSite(t, nil)
	post := func(body string) int {
		resp, err := http.Post(site.URL+"/oauth/register", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, bad := range []string{`{"redirect_uris":["http://example.com/cb"]}`, `{"redirect_uris":["https://a.example/cb"],"grant_types":["password"]}`,
		`{"client_name":"` + strings.Repeat("n", 101) + `","redirect_uris":["https://a.example/cb"]}`, `{` + strings.Repeat(" ", 17<<10) + `}`, `not json`} {
		if code := post(bad); code < 400 || code > 499 {
			t.Fatalf("%.40s: %d", bad, code)
		}
	}
	if n, _ := site.srv.cfg.Store.CountClients(context.Background()); n != 0 {
		t.Fatalf("refused registrations created %d clients", n)
	}
	for i := range RegistrationsPerHour {
		if code := post(`{"redirect_uris":["https://a.example/cb"]}`); code != 201 {
			t.Fatalf("registration %d: %d", i, code)
		}
	}
	if code := post(`{"redirect_uris":["https://a.example/cb"]}`); code != http.StatusTooManyRequests {
		t.Fatalf("registration %d from one address: %d", RegistrationsPerHour+1, code)
	}
}

// Made-up access tokens cost at most MaxLookupsPerSecond store reads a
// second; a token seen once is not read again.
func TestUnknownTokensAreBounded(t *testing.T) {
	site := newSite(t, nil)
	frozen := time.Now() // however slow the lookups, one second
	site.srv.now = func() time.Time { return frozen.Add(time.Duration(site.offset.Load())) }
	ctx := context.Background()
	refused := 0
	for i := range 2 * MaxLookupsPerSecond {
		_, err := site.guard.Authenticate(ctx, "Bearer "+AccessPrefix+strings.Repeat("A", 20)+strconv.Itoa(i))
		switch mcpdir.ErrorCode(err) {
		case mcpdir.ECodeInvalidKey:
		case mcpdir.ECodeUnavailable:
			refused++
		default:
			t.Fatalf("a made-up token: %v", err)
		}
	}
	if refused != MaxLookupsPerSecond {
		t.Fatalf("%d of %d lookups refused in one second, want %d", refused, 2*MaxLookupsPerSecond, MaxLookupsPerSecond)
	}
	site.move(time.Second)
	if _, err := site.guard.Authenticate(ctx, "Bearer "+AccessPrefix+"fresh"); mcpdir.ErrorCode(err) != mcpdir.ECodeInvalidKey {
		t.Fatalf("a second later: %v", err)
	}
}
