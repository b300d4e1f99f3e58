package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// A registry speaking the list API, with three servers.
func fakeRegistry(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v0.1/servers" {
			http.NotFound(w, r)
			return
		}
		var items []string
		for _, name := range []string{"osprey", "puffin", "gannet"} {
			items = append(items, fmt.Sprintf(`{"server": {"name": "io.github.birds/%s", "description": "The %s seabird server", "version": "1.0.0",
				"packages": [{"registryType": "npm", "identifier": "%s-mcp", "transport": {"type": "stdio"}}]},
				"_meta": {"io.modelcontextprotocol.registry/official": {"status": "active", "updatedAt": "2026-01-01T00:00:00Z", "isLatest": true}}}`, name, name, name))
		}
		fmt.Fprintf(w, `{"servers": [%s], "metadata": {"count": 3}}`, strings.Join(items, ","))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// serve --sync-from follows a registry from its start; mcpdir sync pulls
// one by hand and says what it did.
func TestSyncFromARegistry(t *testing.T) {
	from := fakeRegistry(t)
	s := startServer(t, "", "--no-starter", "--sync-from", from, "--sync-allow-private")
	key := newKey(t, s.DataDir, "--rate-limit", "unlimited")
	waitFor(t, 5*time.Second, "the registry's servers in search", func() bool { return s.search(t, key, "seabird").Total == 3 })
	out := cli(t, s.DataDir, "sync", "--allow-private", "--from", from)
	if !strings.Contains(out, "0 added, 0 updated, 3 unchanged, 0 hidden") {
		t.Errorf("sync again: %s", out)
	}
}

// Issue 28, finding 9: a sync goes through the SSRF guard; a registry on
// a private address needs --allow-private (serve: --sync-allow-private).
func TestSyncFromAPrivateAddressNeedsTheFlag(t *testing.T) {
	from := fakeRegistry(t)
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"mcpdir", "sync", "--from", from, "--data-dir", t.TempDir()}, noEnv, nil, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "not at a public address") {
		t.Fatalf("a sync from a loopback registry without --allow-private: %v\n%s", err, stdout.String())
	}
	if !strings.Contains(stdout.String(), "0 added") {
		t.Errorf("the summary: %s", stdout.String())
	}
	env := func(k string) string {
		if k == "MCPDIR_SYNC_ALLOW_PRIVATE" {
			return "1"
		}
		return ""
	}
	stdout.Reset()
	if err := run(context.Background(), []string{"mcpdir", "sync", "--from", from, "--data-dir", t.TempDir()}, env, nil, &stdout, &stderr); err != nil || !strings.Contains(stdout.String(), "3 added") {
		t.Fatalf("with MCPDIR_SYNC_ALLOW_PRIVATE=1: %v %s", err, stdout.String())
	}
}
