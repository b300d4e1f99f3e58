package registry_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/registry"
	"github.com/mcpdir/mcpdir/sqlite"
)

// liar serves pages of records with the _meta it is given: a registry
// that mcpdir follows and that lies.
type liar struct {
	pages func(cursor string) (servers []map[string]any, meta map[string]any, next string)
	bytes int
}

func (h *liar) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	servers, meta, next := h.pages(r.URL.Query().Get("cursor"))
	type item struct {
		Server map[string]any `json:"server"`
		Meta   map[string]any `json:"_meta"`
	}
	out := struct {
		Servers  []item         `json:"servers"`
		Metadata map[string]any `json:"metadata"`
	}{Metadata: map[string]any{"nextCursor": next}}
	for _, s := range servers {
		out.Servers = append(out.Servers, item{s, meta})
	}
	b, _ := json.Marshal(out)
	h.bytes += len(b)
	w.Write(b)
}

func store(t *testing.T) *sqlite.DB {
	t.Helper()
	db, err := sqlite.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func syncFrom(t *testing.T, db *sqlite.DB, h http.Handler, trust mcpdir.Trust) (registry.Summary, error) {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	s := &registry.Syncer{Base: srv.URL, Client: registry.HTTPClient(true, false), Store: db, RetryWait: time.Millisecond, Trust: trust}
	return s.Sync(context.Background())
}

// GitHub's entry as the starter directory has it.
func github(t *testing.T, db *sqlite.DB) *mcpdir.Entry {
	t.Helper()
	e := &mcpdir.Entry{Name: "io.github.github/github-mcp-server", Brief: "GitHub", WebsiteURL: "https://github.com/github/github-mcp-server",
		Remotes: []mcpdir.Remote{{URL: "https://api.githubcopilot.com/mcp/", Transport: "streamable-http"}}}
	if _, err := db.UpsertEntries(context.Background(), []*mcpdir.Entry{e}); err != nil {
		t.Fatal(err)
	}
	got, _ := db.EntriesByID(context.Background(), []string{mcpdir.EntryID(e.NaturalKey())})
	return got[0]
}

func evil(name string) map[string]any {
	return map[string]any{"name": name, "description": "Totally GitHub", "version": "1.0.0",
		"remotes": []any{map[string]any{"type": "streamable-http", "url": "https://evil.example/mcp"}}}
}

// A followed registry's _meta key cannot claim an entry of another source,
// nor its records replace another registry's of the same name.
func TestFollowedRegistryClaimsNothing(t *testing.T) {
	db := store(t)
	gh := github(t, db)
	claim := &liar{pages: func(string) ([]map[string]any, map[string]any, string) {
		return []map[string]any{evil("io.github.attacker/gh")}, map[string]any{
			registry.DirectoryMetaKey: map[string]any{"key": "url:https://github.com/github/github-mcp-server"},
		}, ""
	}}
	sum, err := syncFrom(t, db, claim, mcpdir.Trust{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Added+sum.Updated != 0 || sum.Skipped[registry.ReasonOwned] != 1 {
		t.Fatalf("the claim: %+v", sum)
	}
	got, _ := db.EntriesByID(context.Background(), []string{gh.ID})
	if len(got) != 1 || got[0].Name != gh.Name || got[0].Remotes[0].URL != gh.Remotes[0].URL || got[0].Source != "" {
		t.Fatalf("GitHub's entry became %+v", got)
	}
	if vs, _ := db.ServerVersions(context.Background(), []string{"io.github.attacker/gh"}); len(vs) != 0 {
		t.Fatalf("the refused server's versions were kept: %d", len(vs))
	}

	// The official registry's record of a name; then another registry's of
	// the same name is refused; the official one's owner comes back to an
	// entry an unverified registry took first.
	official := &liar{pages: func(string) ([]map[string]any, map[string]any, string) {
		s := evil("io.github.acme/tool")
		s["remotes"] = []any{map[string]any{"type": "streamable-http", "url": "https://mcp.acme.example/mcp"}}
		return []map[string]any{s}, nil, ""
	}}
	other := &liar{pages: func(string) ([]map[string]any, map[string]any, string) {
		s := evil("io.github.acme/tool")
		s["version"] = "9.0.0"
		return []map[string]any{s}, nil, ""
	}}
	srvOfficial := httptest.NewServer(official)
	defer srvOfficial.Close()
	trust := mcpdir.Trust{VerifyingRegistries: []string{mcpdir.RegistryOrigin(srvOfficial.URL)}}
	sync := func(h http.Handler, base string) registry.Summary {
		if base == "" {
			srv := httptest.NewServer(h)
			defer srv.Close()
			base = srv.URL
		}
		s := &registry.Syncer{Base: base, Client: registry.HTTPClient(true, false), Store: db, Trust: trust}
		sum, err := s.Sync(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return sum
	}
	acme := func() *mcpdir.Entry {
		e := &mcpdir.Entry{Name: "io.github.acme/tool", Source: mcpdir.SourceRegistry}
		got, _ := db.EntriesByID(context.Background(), []string{mcpdir.EntryID(e.NaturalKey())})
		if len(got) != 1 {
			t.Fatal("no acme entry")
		}
		return got[0]
	}
	if sum := sync(other, ""); sum.Added != 1 {
		t.Fatalf("the unverified registry first: %+v", sum)
	}
	if sum := sync(official, srvOfficial.URL); sum.Updated != 1 {
		t.Fatalf("the verified registry takes its name back: %+v", sum)
	}
	if e := acme(); e.Origin != mcpdir.RegistryOrigin(srvOfficial.URL) || e.Remotes[0].URL != "https://mcp.acme.example/mcp" {
		t.Fatalf("acme: %+v", e)
	}
	if sum := sync(other, ""); sum.Skipped[registry.ReasonOwned] != 1 || sum.Updated != 0 {
		t.Fatalf("the unverified registry again: %+v", sum)
	}
	if e := acme(); e.Version != "1.0.0" || e.Remotes[0].URL != "https://mcp.acme.example/mcp" {
		t.Fatalf("acme after the other registry: %+v", e)
	}
	// Its versions stay the official registry's too.
	if vs, _ := db.ServerVersions(context.Background(), []string{"io.github.acme/tool"}); len(vs) != 2 {
		t.Fatalf("versions: %d", len(vs)) // 9.0.0 from the first sync stays recorded; none since
	}
	// A publisher here cannot change it either.
	v, err := registry.NewVersion(mustJSON(evil("io.github.acme/tool")), mcpdir.StatusActive, time.Now(), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	k, err := registry.Keep(context.Background(), db, []*mcpdir.ServerVersion{v})
	if err != nil || k.Refused["io.github.acme/tool"] == "" {
		t.Fatalf("publish over the official registry's entry: %+v %v", k, err)
	}
}

func mustJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// A registry that never stops giving is stopped at a bound, with a message
// saying which, and what it gave before is kept.
func TestSyncBounds(t *testing.T) {
	loop := &liar{pages: func(cursor string) ([]map[string]any, map[string]any, string) {
		return []map[string]any{evil("io.github.loop/a")}, nil, "again"
	}}
	sum, err := syncFrom(t, store(t), loop, mcpdir.Trust{})
	if be, ok := errors.AsType[*registry.BoundError](err); !ok || be.Bound != "cursor" || sum.Pages != 2 || sum.Added != 1 {
		t.Fatalf("a cursor for ever: %v %+v", err, sum)
	}
	n := 0
	fresh := &liar{pages: func(string) ([]map[string]any, map[string]any, string) {
		var page []map[string]any
		for range 100 {
			n++
			page = append(page, evil(fmt.Sprintf("io.github.flood/s%d", n)))
		}
		return page, nil, fmt.Sprint("c", n)
	}}
	db := store(t)
	srv := httptest.NewServer(fresh)
	defer srv.Close()
	s := &registry.Syncer{Base: srv.URL, Client: registry.HTTPClient(true, false), Store: db, MaxServers: 250}
	sum, err = s.Sync(context.Background())
	if be, ok := errors.AsType[*registry.BoundError](err); !ok || be.Bound != "servers" || sum.Added != 250 {
		t.Fatalf("servers without end: %v %+v", err, sum)
	}
	if n, _ := db.CountEntries(context.Background()); n != 250 {
		t.Fatalf("kept %d entries", n)
	}
	for _, tc := range []struct {
		bound string
		set   func(*registry.Syncer)
	}{
		{"pages", func(s *registry.Syncer) { s.MaxPages = 3 }},
		{"bytes", func(s *registry.Syncer) { s.MaxBytes = 20_000 }},
		{"time", func(s *registry.Syncer) { s.MaxTime = 300 * time.Millisecond }},
	} {
		s := &registry.Syncer{Base: srv.URL, Client: registry.HTTPClient(true, false), Store: store(t)}
		tc.set(s)
		_, err := s.Sync(context.Background())
		if be, ok := errors.AsType[*registry.BoundError](err); !ok || be.Bound != tc.bound {
			t.Errorf("%s: %v", tc.bound, err)
		}
	}
}
