package main

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"
)

// keyState is how s answers a key on REST search: "ok", or the error's
// code and message.
func keyState(t *testing.T, s *testServer, key string) string {
	t.Helper()
	resp := get(t, s.URL+"/api/open/v1/search?keywords=github", "Bearer "+key)
	if resp.StatusCode == 200 {
		resp.Body.Close()
		return "ok"
	}
	body := decode[errorBody](t, resp)
	return fmt.Sprintf("%d %s: %s", resp.StatusCode, body.Error.Code, body.Error.Message)
}

// Finding 7 of issue 33: a disabled account's keys kept working. Now
// disabling it stops them on every server following the store (the CLI
// says so); enabling it again brings back its other keys, never one
// revoked in the meantime.
func TestDisabledAccountsKeysStop(t *testing.T) {
	s := startServer(t, "")
	other := startServer(t, s.DataDir) // another replica of the same store
	ada := newBrowser(t, s.URL)
	ada.do("POST", "/signup", url.Values{"email": {"ada@example.com"}, "password": {"a long enough password"}})
	_, body := ada.do("POST", "/keys", url.Values{"name": {"laptop"}, "expires": {"never"}})
	m := keyInPage.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("create a key: %.300s", body)
	}
	// A web key (20 an hour: checked sparingly) and two the operator made
	// for the account without a budget (polled).
	web := m[1]
	keys := []string{newKey(t, s.DataDir, "--owner", "ada@example.com", "--rate-limit", "unlimited"),
		newKey(t, s.DataDir, "--owner", "ada@example.com", "--rate-limit", "unlimited")}
	for _, srv := range []*testServer{s, other} {
		for _, k := range keys {
			waitFor(t, 5*time.Second, "the key working", func() bool { return keyState(t, srv, k) == "ok" })
		}
		if got := keyState(t, srv, web); got != "ok" {
			t.Fatalf("the web key: %s", got)
		}
	}
	out := cli(t, s.DataDir, "accounts", "disable", "ada@example.com")
	if !strings.Contains(out, "its keys") || strings.Contains(out, "revoke its keys") {
		t.Errorf("disable says nothing of the keys stopping:\n%s", out)
	}
	disabled := func(state string) bool {
		return strings.HasPrefix(state, "401 revoked_key") && strings.Contains(state, "disabled")
	}
	for _, srv := range []*testServer{s, other} {
		for _, k := range append(keys, web) {
			waitFor(t, 5*time.Second, "a disabled account's key refused", func() bool { return disabled(keyState(t, srv, k)) })
		}
	}
	// Revoked while disabled: it stays revoked.
	cli(t, s.DataDir, "keys", "revoke", keys[1][:13])
	out = cli(t, s.DataDir, "accounts", "enable", "ada@example.com")
	if !strings.Contains(out, "enabled ada@example.com") {
		t.Errorf("enable:\n%s", out)
	}
	for _, srv := range []*testServer{s, other} {
		waitFor(t, 5*time.Second, "the key of an enabled account working again", func() bool { return keyState(t, srv, keys[0]) == "ok" })
		if got := keyState(t, srv, web); got != "ok" {
			t.Errorf("the web key after enable: %s", got)
		}
		if got := keyState(t, srv, keys[1]); !strings.HasPrefix(got, "401 revoked_key") || strings.Contains(got, "disabled") {
			t.Errorf("a key revoked while the account was disabled: %s", got)
		}
	}
	if code, _ := ada.do("POST", "/login", url.Values{"email": {"ada@example.com"}, "password": {"a long enough password"}}); code != 200 {
		t.Errorf("log in after enable: %d", code)
	}
}

// Finding 8 of issue 33: revoked keys counted toward the 20-key cap, so an
// account at the cap could never make another. Only live keys count; the
// revoked ones stay listed.
func TestRevokedKeysLeaveTheCap(t *testing.T) {
	s := startServer(t, "", "--no-starter")
	ada := newBrowser(t, s.URL)
	ada.do("POST", "/signup", url.Values{"email": {"ada@example.com"}, "password": {"a long enough password"}})
	var first string
	for i := range 20 {
		code, body := ada.do("POST", "/keys", url.Values{"name": {fmt.Sprintf("key %d", i)}, "expires": {"never"}})
		m := keyInPage.FindStringSubmatch(body)
		if code != 201 || m == nil {
			t.Fatalf("key %d: %d", i, code)
		}
		if first == "" {
			first = m[1]
		}
	}
	if code, body := ada.do("POST", "/keys", url.Values{"name": {"one too many"}, "expires": {"never"}}); code != 400 || !strings.Contains(body, "at most 20") {
		t.Fatalf("the 21st live key: %d", code)
	}
	if code, _ := ada.do("POST", "/keys/"+first[:13]+"/revoke", url.Values{}); code != 200 {
		t.Fatalf("revoke: %d", code)
	}
	code, body := ada.do("POST", "/keys", url.Values{"name": {"after a revocation"}, "expires": {"never"}})
	if code != 201 || !strings.Contains(body, first[:13]) || !strings.Contains(body, "revoked") {
		t.Fatalf("a key after revoking one at the cap: %d (the revoked one listed: %v)", code, strings.Contains(body, first[:13]))
	}
	if code, _ := ada.do("POST", "/keys", url.Values{"name": {"one too many"}, "expires": {"never"}}); code != 400 {
		t.Fatalf("past the cap again: %d", code)
	}
}
