package main

import (
	"io"
	"testing"
	"time"

	"github.com/mcpdir/mcpdir/storetest"
)

// Replicas on one PostgreSQL database: what the CLI writes with
// --database-url (an import, a key, a revocation) reaches every replica.
func TestReplicasShareThePostgresStore(t *testing.T) {
	db := storetest.PostgresURL(t)
	a := startServer(t, "", "--database-url", db, "--no-starter")
	b := startServer(t, "", "--database-url", db, "--no-starter")
	key := newKey(t, t.TempDir(), "--database-url", db, "--rate-limit", "unlimited")
	cli(t, t.TempDir(), "import", "--database-url", db, writeLines(t, `{"name": "zebrafish-mcp", "brief": "Zebrafish genome lookups", "website_url": "https://example.com/zebrafish"}`))
	start := time.Now()
	for _, s := range []*testServer{a, b} {
		waitFor(t, 5*time.Second, "the import on every replica", func() bool {
			resp := get(t, s.URL+"/api/open/v1/search?keywords=zebrafish", "Bearer "+key)
			defer resp.Body.Close()
			if resp.StatusCode != 200 {
				io.Copy(io.Discard, resp.Body)
				return false
			}
			return decode[searchBody](t, resp).Total == 1
		})
	}
	t.Logf("import and key on both replicas after %v", time.Since(start).Round(time.Millisecond))
	cli(t, t.TempDir(), "keys", "revoke", "--database-url", db, key[:13])
	start = time.Now()
	for _, s := range []*testServer{a, b} {
		waitFor(t, 5*time.Second, "the revocation on every replica", func() bool {
			resp := get(t, s.URL+"/api/open/v1/search?keywords=zebrafish", "Bearer "+key)
			resp.Body.Close()
			return resp.StatusCode == 401
		})
	}
	t.Logf("revocation on both replicas after %v", time.Since(start).Round(time.Millisecond))
}
