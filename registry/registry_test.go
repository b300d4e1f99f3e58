package registry_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/registry"
	"github.com/mcpdir/mcpdir/sqlite"
)

// fakeRegistry serves the list API over its servers: cursor pagination,
// limit, updated_since, and a number of 503s to answer first.
type fakeRegistry struct {
	mu       sync.Mutex
	servers  []item
	failNext int
	requests []string
}

type item struct {
	server   map[string]any
	status   string
	updated  time.Time
	isLatest bool
}

func (f *fakeRegistry) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests = append(f.requests, r.URL.RawQuery)
	if r.URL.Path != "/v0.1/servers" {
		http.NotFound(w, r)
		return
	}
	if f.failNext > 0 {
		f.failNext--
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
		return
	}
	q := r.URL.Query()
	limit, _ := strconv.Atoi(q.Get("limit"))
	start, _ := strconv.Atoi(q.Get("cursor"))
	var since time.Time
	if s := q.Get("updated_since"); s != "" {
		since, _ = time.Parse(time.RFC3339Nano, s)
	}
	var match []item
	for _, it := range f.servers {
		if since.IsZero() || it.updated.After(since) {
			match = append(match, it)
		}
	}
	end := min(len(match), start+limit)
	type wireItem struct {
		Server map[string]any `json:"server"`
		Meta   map[string]any `json:"_meta"`
	}
	out := struct {
		Servers  []wireItem     `json:"servers"`
		Metadata map[string]any `json:"metadata"`
	}{Servers: []wireItem{}, Metadata: map[string]any{"count": end - start}}
	for _, it := range match[start:end] {
		out.Servers = append(out.Servers, wireItem{it.server, map[string]any{
			"io.modelcontextprotocol.registry/official": map[string]any{"status": it.status, "updatedAt": it.updated, "isLatest": it.isLatest},
		}})
	}
	if end < len(match) {
		out.Metadata["nextCursor"] = strconv.Itoa(end)
	}
	json.NewEncoder(w).Encode(out)
}

func server(name, version, description string) map[string]any {
	return map[string]any{
		"$schema": "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json",
		"name":    name, "description": description, "version": version,
		"repository": map[string]any{"url": "https://github.com/example/shared-repo", "source": "github"},
		"packages": []any{map[string]any{"registryType": "npm", "identifier": name, "version": version,
			"transport": map[string]any{"type": "stdio"}, "environmentVariables": []any{map[string]any{"name": "TOKEN", "isSecret": true}}}},
	}
}

func setup(t *testing.T) (*fakeRegistry, *registry.Syncer, *sqlite.DB) {
	t.Helper()
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	f := &fakeRegistry{}
	for i := range 7 {
		f.servers = append(f.servers, item{server(fmt.Sprintf("io.github.example/server-%d", i), "1.0.0", fmt.Sprintf("Server %d does things", i)), "active", base.Add(time.Duration(i) * time.Minute), true})
	}
	// Two versions of one server: both are kept, the entry is the latest.
	f.servers = append(f.servers,
		item{server("io.github.example/versions", "1.0.0", "Old description"), "active", base.Add(10 * time.Minute), false},
		item{server("io.github.example/versions", "2.0.0", "New description"), "active", base.Add(11 * time.Minute), true},
		// Malformed: no name.
		item{map[string]any{"description": "nameless"}, "active", base.Add(12 * time.Minute), true},
	)
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	db, err := sqlite.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return f, &registry.Syncer{Base: srv.URL, Client: registry.HTTPClient(true, false), Store: db, RetryWait: time.Millisecond}, db
}

func entryOf(t *testing.T, db *sqlite.DB, name string) *mcpdir.Entry {
	t.Helper()
	e := &mcpdir.Entry{Name: name, Source: mcpdir.SourceRegistry}
	got, err := db.EntriesByID(context.Background(), []string{mcpdir.EntryID(e.NaturalKey())})
	if err != nil || len(got) != 1 {
		return nil
	}
	return got[0]
}

func TestSync(t *testing.T) {
	ctx := context.Background()
	f, s, db := setup(t)
	f.failNext = 2 // the first page fails twice, then is retried
	sum, err := s.Sync(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Added != 8 || sum.Versions != 9 || sum.Skipped["missing name"] != 1 || sum.Pages != 1 {
		t.Fatalf("first sync: %+v", sum)
	}
	if e := entryOf(t, db, "io.github.example/versions"); e == nil || e.Version != "2.0.0" || e.Brief != "New description" {
		t.Fatalf("the latest version: %+v", e)
	}
	history, err := db.ServerVersions(ctx, []string{"io.github.example/versions"})
	if err != nil || len(history) != 2 {
		t.Fatalf("the versions kept: %d %v", len(history), err)
	}
	for _, v := range history {
		if !strings.Contains(string(v.Server), v.Version) || v.Status != mcpdir.StatusActive || v.UpdatedAt.IsZero() {
			t.Fatalf("version %s: %+v", v.Version, v)
		}
	}
	// Servers sharing a repository stay apart; the registry's record is kept whole.
	e := entryOf(t, db, "io.github.example/server-1")
	if e == nil || e.RepositoryURL != "https://github.com/example/shared-repo" || e.Source != mcpdir.SourceRegistry {
		t.Fatalf("server-1: %+v", e)
	}
	var whole map[string]any
	json.Unmarshal(e.Extra.Map()["server"], &whole)
	if _, ok := whole["packages"].([]any)[0].(map[string]any)["environmentVariables"]; !ok {
		t.Errorf("the registry's record lost its environment variables: %s", e.Extra.Map()["server"])
	}

	// Second run: only what changed since; an update, a deletion, a
	// deprecation, and an entry an admin edited (kept as the admin left it).
	later := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	f.mu.Lock()
	f.servers[0] = item{server("io.github.example/server-0", "1.1.0", "Server 0 does more"), "active", later, true}
	f.servers[1].status, f.servers[1].updated = "deleted", later
	f.servers[2].status, f.servers[2].updated = "deprecated", later
	f.servers[3].updated = later
	f.requests = nil
	f.mu.Unlock()
	admin := entryOf(t, db, "io.github.example/server-3")
	admin.Brief, admin.Edited = "An admin's words", true
	if _, err := db.UpsertEntries(ctx, []*mcpdir.Entry{admin}); err != nil {
		t.Fatal(err)
	}
	sum, err = s.Sync(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Updated != 2 || sum.Hidden != 1 || sum.Kept != 1 || sum.Added != 0 {
		t.Fatalf("second sync: %+v", sum)
	}
	if q := f.requests[0]; !containsParam(q, "updated_since") {
		t.Errorf("the second sync did not resume: %q", q)
	}
	if entryOf(t, db, "io.github.example/server-1") != nil {
		t.Error("a deleted server is still in the directory")
	}
	if e := entryOf(t, db, "io.github.example/server-2"); e == nil || string(e.Extra.Map()["registry_status"]) != `"deprecated"` {
		t.Errorf("a deprecated server: %+v", e)
	}
	if e := entryOf(t, db, "io.github.example/server-3"); e == nil || e.Brief != "An admin's words" {
		t.Errorf("the admin's edit was overwritten: %+v", e)
	}
	if e := entryOf(t, db, "io.github.example/server-0"); e == nil || e.Version != "1.1.0" {
		t.Errorf("the update: %+v", e)
	}
	// The deleted server's version stays, deleted, for registries that
	// follow this one (updated when this registry learnt of it, never
	// before the publisher's time); the updated server keeps its first
	// version too.
	gone, err := db.ServerVersions(ctx, []string{"io.github.example/server-1", "io.github.example/server-0"})
	if err != nil || len(gone) != 3 {
		t.Fatalf("versions after the second sync: %d %v", len(gone), err)
	}
	for _, v := range gone {
		if v.Name == "io.github.example/server-1" && (v.Status != mcpdir.StatusDeleted || v.UpdatedAt.Before(later) || v.StatusChangedAt.IsZero()) {
			t.Errorf("the deleted version: %+v", v)
		}
	}
}

func containsParam(rawQuery, name string) bool {
	q, _ := url.ParseQuery(rawQuery)
	return q.Get(name) != ""
}

// Pages: a registry of more than one page is followed to its end, and a
// page that keeps failing ends the sync with what was committed kept.
func TestSyncPagesAndFailure(t *testing.T) {
	ctx := context.Background()
	f, s, db := setup(t)
	for i := range 2*registry.PageSize + 5 {
		f.servers = append(f.servers, item{server(fmt.Sprintf("io.github.bulk/s-%d", i), "1.0.0", "Bulk"), "active", time.Date(2026, 1, 2, 0, 0, i, 0, time.UTC), true})
	}
	sum, err := s.Sync(ctx)
	if err != nil || sum.Pages != 3 || sum.Added != 8+2*registry.PageSize+5 {
		t.Fatalf("%+v %v", sum, err)
	}
	// A registry that fails for good: an error, the store as it was.
	before, _ := db.CountEntries(ctx)
	f.failNext = 100
	if _, err := s.Sync(ctx); err == nil {
		t.Fatal("a failing registry did not fail the sync")
	}
	if after, _ := db.CountEntries(ctx); after != before {
		t.Fatalf("%d entries after a failed sync, %d before", after, before)
	}
}

// The shared sample of server.json records (two versions of one server, a
// spam-looking one): synced through the fake registry.
func TestSyncSharedSample(t *testing.T) {
	dir := os.Getenv("MCPDIR_SHARED_DATA")
	if dir == "" {
		dir = filepath.Join("..", "..", "shared", "data")
	}
	raw, err := os.ReadFile(filepath.Join(dir, "registry-servers-sample.json"))
	if err != nil {
		t.Skipf("registry-servers-sample.json not found (%v): this test needs the shared data set", err)
	}
	var servers []map[string]any
	if err := json.Unmarshal(raw, &servers); err != nil {
		t.Fatal(err)
	}
	f, s, db := setup(t)
	f.servers = nil
	latest := map[string]int{}
	valid := 0 // the spam-looking one's name breaks server.json's pattern: skipped
	for i, sv := range servers {
		latest[sv["name"].(string)] = i // later versions come later in the sample
	}
	for i, sv := range servers {
		f.servers = append(f.servers, item{sv, "active", time.Date(2026, 1, 1, 0, i, 0, 0, time.UTC), latest[sv["name"].(string)] == i})
		if registry.ValidName(sv["name"].(string)) == nil {
			valid++
		}
	}
	invalid := len(servers) - valid
	sum, err := s.Sync(context.Background())
	if err != nil || sum.Added != len(latest)-invalid || sum.Versions != valid || sum.Skipped["invalid name"] != invalid {
		t.Fatalf("%+v %v", sum, err)
	}
	if e := entryOf(t, db, "io.github.domdomegg/airtable-mcp-server"); e == nil || e.Version != "1.7.3" || len(e.Packages) == 0 {
		t.Fatalf("airtable: %+v", e)
	}
}
