package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/sqlite"
	"github.com/mcpdir/mcpdir/storetest"
)

// TestErrorBodiesPlain: an error body says "Bearer <key>", not
// "Bearer \u003ckey\u003e", and stays application/json with nosniff
// (issue 35, item 6.9); a server name's unencoded slash in the registry
// API is answered with the API's JSON 404 that says how to encode it, not
// the site's HTML page (item 6.10).
func TestErrorBodiesPlain(t *testing.T) {
	s := startServer(t, "")
	keyed := startServer(t, "", "--registry-api", "key")
	for _, c := range []struct {
		url    string
		status int
		want   string
	}{
		{s.URL + "/api/open/v1/search?keywords=postgres", http.StatusUnauthorized, "Bearer <key>"},
		{keyed.URL + "/v0.1/servers", http.StatusUnauthorized, "Bearer <key>"},
		{s.URL + "/v0.1/servers/com.acme/deploy/versions", http.StatusNotFound, "/v0.1/servers/com.acme%2Fdeploy/versions"},
		{s.URL + "/v0.1/servers/com.acme/deploy/versions/1.0.0", http.StatusNotFound, "/v0.1/servers/com.acme%2Fdeploy/versions/1.0.0"},
		{s.URL + "/v0.1/servers/com.acme/deploy", http.StatusNotFound, "%2F"},
	} {
		resp, err := http.Get(c.url)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.status || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") ||
			resp.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("GET %s: %d %q %q, want %d, JSON, nosniff\n%s", c.url, resp.StatusCode, resp.Header.Get("Content-Type"),
				resp.Header.Get("X-Content-Type-Options"), c.status, body)
			continue
		}
		if !json.Valid(body) || !strings.Contains(string(body), c.want) || strings.Contains(string(body), `\u003c`) {
			t.Errorf("GET %s: %s, want it to say %q", c.url, body, c.want)
		}
	}
}

// TestLogDurations: JSON logs give a duration in seconds, a number a
// collector reads ("took":1.52), text logs as a person reads it ("1.52s")
// (issue 35, item 6.8).
func TestLogDurations(t *testing.T) {
	var j, x strings.Builder
	newLogger(&j, "info", "json").Info("done", "took", 1520*time.Millisecond, slog.Group("g", "wait", 250*time.Millisecond))
	newLogger(&x, "info", "text").Info("done", "took", 1520*time.Millisecond)
	var rec struct {
		Took float64
		G    struct{ Wait float64 }
	}
	if err := json.Unmarshal([]byte(j.String()), &rec); err != nil || rec.Took != 1.52 || rec.G.Wait != 0.25 {
		t.Errorf("JSON log: %s (%v)", j.String(), err)
	}
	if !strings.Contains(x.String(), "took=1.52s") {
		t.Errorf("text log: %s", x.String())
	}
}

// TestDocsCountTheMCPTools: the README, docs/mcp.md and the endpoint's
// own instructions name every tool the endpoint lists, and every count of
// "the tools" they give is the number listed (issue 35, item 6.4).
func TestDocsCountTheMCPTools(t *testing.T) {
	s := startServer(t, "")
	cs := connectMCP(t, s, newKey(t, s.DataDir))
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
	}
	words := map[string]int{"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "both": 2}
	count := regexp.MustCompile(`(?i)\b(one|two|three|four|five|six|both)\s+tools\b`)
	texts := map[string]string{"initialize instructions": cs.InitializeResult().Instructions}
	for _, f := range []string{"../../README.md", "../../docs/mcp.md"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		texts[f] = string(b)
	}
	for where, text := range texts {
		for _, n := range names {
			if !strings.Contains(text, n) {
				t.Errorf("%s does not name the tool %s", where, n)
			}
		}
		for _, m := range count.FindAllStringSubmatch(text, -1) {
			if words[strings.ToLower(m[1])] != len(names) {
				t.Errorf("%s says %q; the endpoint lists %d: %v", where, m[0], len(names), names)
			}
		}
	}
}

// TestDocsContainerLinesRunOnRestrictedHosts: every `podman run` and
// `docker run` the README and docs/deploy.md show carries the limits
// e2e/image.sh runs the image with, without which it does not start on
// restricted hosts (issue 35, item 6.2).
func TestDocsContainerLinesRunOnRestrictedHosts(t *testing.T) {
	const limits = "--ulimit nofile=1024:1024 --ulimit nproc=1024:1024"
	if b, _ := os.ReadFile("../../e2e/image.sh"); !strings.Contains(string(b), limits) {
		t.Fatalf("e2e/image.sh no longer runs with %s: change the docs with it", limits)
	}
	for _, f := range []string{"../../README.md", "../../docs/deploy.md"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for line := range strings.Lines(string(b)) {
			if l := strings.TrimSpace(line); strings.HasPrefix(l, "podman run ") || strings.HasPrefix(l, "docker run ") {
				n++
				if !strings.Contains(l, limits) {
					t.Errorf("%s: %s lacks %s", f, l, limits)
				}
			}
		}
		if n == 0 {
			t.Errorf("%s shows no container run", f)
		}
	}
}

// TestQuickStartKeyIsUnlimited: the quick start's operator key has no
// limit, and says how to make one, so that trying the service does not
// spend a 20-an-hour budget in a minute (issue 35, item 6.3).
func TestQuickStartKeyIsUnlimited(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	quick, _, _ := strings.Cut(string(b)[strings.Index(string(b), "## Quick start"):], "\n## ")
	const line = "go run ./cmd/mcpdir keys create --name laptop --rate-limit unlimited"
	if !strings.Contains(quick, line) {
		t.Fatalf("the quick start does not make an unlimited key:\n%s", quick)
	}
	dir := t.TempDir()
	key := newKey(t, dir, "--rate-limit", "unlimited")
	s := startServer(t, dir)
	for i := range 25 {
		resp := get(t, s.URL+"/api/open/v1/search?keywords=postgres", "Bearer "+key)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("search %d with the quick start's key: %d", i+1, resp.StatusCode)
		}
	}
}

// TestBackupKeepsAnExistingFile: backup FILE refuses a FILE that exists,
// which it would replace, unless told --force (issue 35, item 6.7).
func TestBackupKeepsAnExistingFile(t *testing.T) {
	dir := t.TempDir()
	cli(t, dir, "keys", "list") // makes the store
	file := filepath.Join(t.TempDir(), "kept.db")
	os.WriteFile(file, []byte("last week's backup"), 0o600)
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"mcpdir", "backup", file, "--data-dir", dir}, noEnv, nil, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "exists") || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("a backup over an existing file: %v", err)
	}
	if b, _ := os.ReadFile(file); string(b) != "last week's backup" {
		t.Fatalf("the refused backup changed the file")
	}
	if out := cli(t, dir, "backup", file, "--force"); !strings.Contains(out, "backed up") {
		t.Fatalf("backup --force: %s", out)
	}
	if b, _ := os.ReadFile(file); string(b) == "last week's backup" {
		t.Fatalf("backup --force left the file as it was")
	}
}

// TestCheckWithoutNetworkMarksNothingDown: when no check gets through
// (here no name resolves: the .invalid names never do, and no server is
// reached), check says so, exits with an error, and records nothing, so
// that no server ranks lower for this machine's fault (issue 35, item
// 6.6; livecheck's TestRunWithoutNetworkRecordsNothing covers no route).
func TestCheckWithoutNetworkMarksNothingDown(t *testing.T) {
	dir := t.TempDir()
	var lines []string
	for _, n := range []string{"alpha", "beta", "gamma"} {
		lines = append(lines, fmt.Sprintf(`{"name": %q, "brief": "Hosted", "website_url": "https://example.com/%s", "remotes": [{"url": "https://%s.mcpdir-test.invalid/mcp", "type": "streamable-http"}]}`, n, n, n))
	}
	cli(t, dir, "import", writeLines(t, lines...))
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"mcpdir", "check", "--data-dir", dir}, noEnv, nil, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "no network here?") || !strings.Contains(err.Error(), "Nothing was recorded") {
		t.Fatalf("check without a network: %v\n%s", err, stdout.String())
	}
	store, err := sqlite.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	store.AllEntries(context.Background(), func(e *mcpdir.Entry) error {
		if l := e.CheckedLive(); l != nil && strings.Contains(e.WebsiteURL, "https://example.com/") {
			t.Errorf("%s recorded %s", e.Name, l.Status)
		}
		return nil
	})
}

// TestRateWindowsKeptOnPostgres: a key's spent budget survives migrate
// (SQLite to PostgreSQL, without Redis) and a restart of a server on
// PostgreSQL without Redis, as it survives a restart on SQLite (issue 35,
// item 6.11).
func TestRateWindowsKeptOnPostgres(t *testing.T) {
	dir := t.TempDir()
	key := newKey(t, dir)
	spend := func(t *testing.T, s *testServer, n, left int) {
		t.Helper()
		for i := range n {
			resp := get(t, s.URL+"/api/open/v1/search?keywords=postgres", "Bearer "+key)
			resp.Body.Close()
			if want := strconv.Itoa(left - 1 - i); resp.StatusCode != 200 || resp.Header.Get("RateLimit-Remaining") != want {
				t.Fatalf("search %d: %d, %s remaining, want %s", i+1, resp.StatusCode, resp.Header.Get("RateLimit-Remaining"), want)
			}
		}
	}
	t.Run("spend 5 on SQLite", func(t *testing.T) { spend(t, startServer(t, dir), 5, 20) })
	db := storetest.PostgresURL(t)
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), []string{"mcpdir", "migrate", "--from-data-dir", dir, "--to", db}, noEnv, nil, &stdout, &stderr); err != nil {
		t.Fatalf("migrate: %v\n%s%s", err, stdout.String(), stderr.String())
	}
	if !strings.Contains(stdout.String(), "rate windows") || strings.Contains(stdout.String(), "start afresh") {
		t.Errorf("migrate does not say the budgets carry on:\n%s", stdout.String())
	}
	t.Run("spend 3 on PostgreSQL", func(t *testing.T) { spend(t, startServer(t, "", "--database-url", db), 3, 15) })
	t.Run("after a restart", func(t *testing.T) { spend(t, startServer(t, "", "--database-url", db), 1, 12) })
}
