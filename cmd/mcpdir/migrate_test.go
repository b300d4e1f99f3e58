package main

import (
	"bytes"
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpdir/mcpdir/storetest"
)

// A directory used for a while on SQLite (an account and its key, a key
// made with the CLI, searches spent, an OAuth grant, a live check, a web
// session) moved with `mcpdir migrate`, then served by two replicas on
// PostgreSQL and Redis: every key works with its budget, shared by both;
// the grant refreshes on one replica and its old refresh token is spent
// on the other; the account is still signed in; the check still shows.
func TestMigrateToPostgresThenServeReplicas(t *testing.T) {
	dir := t.TempDir()
	var (
		webKey, cliKey, clientID, refresh, access string
		ada                                       *browser
		entries                                   int
	)
	t.Run("on SQLite", func(t *testing.T) { // the server stops at the end of this
		s := startServer(t, dir)
		ada = signUp(t, s, "ada@example.com")
		code, body := ada.do("POST", "/keys", url.Values{"name": {"laptop"}, "expires": {"never"}})
		m := keyInPage.FindStringSubmatch(body)
		if code != 201 || m == nil {
			t.Fatalf("create a key: %d", code)
		}
		webKey = m[1]
		cliKey = newKey(t, dir, "--rate-limit", "5/h")
		for range 3 {
			resp := get(t, s.URL+"/api/open/v1/search?keywords=github", "Bearer "+webKey)
			resp.Body.Close()
		}
		var redirect string
		clientID, redirect = register(t, s.URL, "Migrating Agent")
		tok := allowAndExchange(t, ada, s.URL, s.URL, clientID, redirect)
		access, refresh = tok["access_token"].(string), tok["refresh_token"].(string)
		if resp := get(t, s.URL+"/api/open/v1/search?keywords=postgres", "Bearer "+access); resp.StatusCode != 200 {
			t.Fatalf("the access token: %d", resp.StatusCode)
		}
		checkedEntry(t, s)
		entries = s.search(t, cliKey, "github").Total
		// Not while the server still writes to the store (issue 35).
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), []string{"mcpdir", "migrate", "--from-data-dir", dir, "--to", "postgres://127.0.0.1:1/none"}, noEnv, nil, &stdout, &stderr)
		if err == nil || !strings.Contains(err.Error(), "serving from it") {
			t.Fatalf("migrate while serving: %v", err)
		}
	})

	db, rdb := storetest.PostgresURL(t), ownRedisDB(t)
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), []string{"mcpdir", "migrate", "--from-data-dir", dir, "--to", db, "--redis-url", rdb}, noEnv, nil, &stdout, &stderr); err != nil {
		t.Fatalf("mcpdir migrate: %v\n%s%s", err, stdout.String(), stderr.String())
	}
	out := stdout.String()
	t.Logf("mcpdir migrate:\n%s", out)
	for _, table := range []string{"entries", "live_checks", "accounts", "web_sessions", "api_keys", "oauth_clients", "oauth_codes", "oauth_grants", "oauth_tokens", "state", "changes"} {
		m := regexp.MustCompile(`(?m)^\s*` + table + `\s+(\d+)\s+(\d+)\s+(\d+)\s*$`).FindStringSubmatch(out)
		if m == nil || m[1] != m[2] || m[2] != m[3] {
			t.Errorf("the counts of %s: %v", table, m)
		}
	}
	if !strings.Contains(out, "verified") || !strings.Contains(out, "budgets of the last 1h0m0s copied to Redis") {
		t.Errorf("no verification or rate windows said:\n%s", out)
	}
	// Again: the target is not empty now.
	err := run(context.Background(), []string{"mcpdir", "migrate", "--from-data-dir", dir, "--to", db}, noEnv, nil, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "not empty") || !strings.Contains(err.Error(), "--merge") {
		t.Fatalf("a second migration: %v", err)
	}

	a := startServer(t, "", "--database-url", db, "--redis-url", rdb)
	b := startServer(t, "", "--database-url", db, "--redis-url", rdb)
	replicas := []*testServer{a, b}

	// The directory is the same (the starter was not loaded on top).
	if got := a.search(t, cliKey, "github").Total; got != entries {
		t.Fatalf("%d entries match on PostgreSQL, %d did on SQLite", got, entries)
	}
	// The web key's budget (20 an hour, 3 spent on SQLite) carries on in
	// Redis and holds across both replicas.
	for i := range 17 {
		resp := get(t, replicas[i%2].URL+"/api/open/v1/search?keywords=github", "Bearer "+webKey)
		resp.Body.Close()
		if resp.StatusCode != 200 || resp.Header.Get("RateLimit-Limit") != "20" || resp.Header.Get("RateLimit-Remaining") != strconv.Itoa(16-i) {
			t.Fatalf("search %d with the migrated key: %d %v", i, resp.StatusCode, resp.Header)
		}
	}
	resp := get(t, b.URL+"/api/open/v1/search?keywords=github", "Bearer "+webKey)
	if e := decode[errorBody](t, resp); resp.StatusCode != 401 || e.Error.Code != "rate_limited" {
		t.Fatalf("the 21st search of the hour, across stores and replicas: %d %v", resp.StatusCode, e)
	}
	// The CLI key keeps its own limit (5 an hour; one spent on SQLite, one
	// on PostgreSQL above).
	resp = get(t, b.URL+"/api/open/v1/search?keywords=github", "Bearer "+cliKey)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("RateLimit-Limit") != "5" || resp.Header.Get("RateLimit-Remaining") != "2" {
		t.Fatalf("the CLI key: %d %v", resp.StatusCode, resp.Header)
	}

	// The grant: its access token works, its refresh token refreshes on one
	// replica and the new access token works on the other.
	if resp := get(t, b.URL+"/api/open/v1/search?keywords=postgres", "Bearer "+access); resp.StatusCode != 200 {
		t.Fatalf("the migrated access token: %d", resp.StatusCode)
	}
	code, tok := postForm(t, a.URL+"/oauth/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}, "client_id": {clientID}})
	if code != 200 || tok["access_token"] == nil || tok["refresh_token"] == refresh {
		t.Fatalf("refresh on PostgreSQL: %d %v", code, tok)
	}
	refreshed := tok["access_token"].(string)
	if resp := get(t, b.URL+"/api/open/v1/search?keywords=postgres", "Bearer "+refreshed); resp.StatusCode != 200 {
		t.Fatalf("the refreshed access token: %d", resp.StatusCode)
	}

	// Ada is still signed in (her session cookie), and sees her key and app.
	ada.base = b.URL
	if code, page := ada.do("GET", "/keys", nil); code != 200 || !strings.Contains(page, webKey[:13]) || !strings.Contains(page, "Migrating Agent") {
		t.Fatalf("Ada's keys page on PostgreSQL: %d\n%.500s", code, page)
	}
	// The live check came along.
	page := get(t, a.URL+"/servers/"+mcpdirEntryID("https://example.com/github-hosted"), "")
	body := string(must(ioReadAll(page)))
	if page.StatusCode != 200 || !strings.Contains(body, ">Up</span>") {
		t.Fatalf("the checked entry on PostgreSQL: %d", page.StatusCode)
	}
	// And the CLI on PostgreSQL lists the keys made on SQLite.
	if list := cli(t, t.TempDir(), "keys", "list", "--database-url", db); !strings.Contains(list, cliKey[:13]) || !strings.Contains(list, webKey[:13]) {
		t.Fatalf("keys list:\n%s", list)
	}
	// The rotated refresh token came along as spent: replayed on the other
	// replica, it is refused and ends the grant on both.
	if code, e := postForm(t, b.URL+"/oauth/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}, "client_id": {clientID}}); code != 400 || e["error"] != "invalid_grant" {
		t.Fatalf("the old refresh token on the other replica: %d %v", code, e)
	}
	waitFor(t, 2*time.Second, "the replayed grant's end on the first replica", func() bool {
		resp := get(t, a.URL+"/api/open/v1/search?keywords=postgres", "Bearer "+refreshed)
		resp.Body.Close()
		return resp.StatusCode == http.StatusUnauthorized
	})
}

func ioReadAll(resp *http.Response) ([]byte, error) {
	defer resp.Body.Close()
	var b bytes.Buffer
	_, err := b.ReadFrom(resp.Body)
	return b.Bytes(), err
}

// Mistakes are told, and nothing is written.
func TestMigrateRefusals(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--to", "postgres://x/y"}, "usage: mcpdir migrate"},
		{[]string{"--from-data-dir", t.TempDir()}, "usage: mcpdir migrate"},
		{[]string{"--from-data-dir", t.TempDir(), "--to", "mysql://x/y"}, "postgres://"},
		{[]string{"--from-data-dir", t.TempDir(), "--to", "postgres://127.0.0.1:1/none"}, "no embedded store"},
	} {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), append([]string{"mcpdir", "migrate"}, tc.args...), noEnv, nil, &stdout, &stderr)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.args, err, tc.want)
		}
	}
}
