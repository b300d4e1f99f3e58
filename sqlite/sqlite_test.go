package sqlite_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/sqlite"
)

func open(t *testing.T, dir string) *sqlite.DB {
	t.Helper()
	db, err := sqlite.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func entry(name, url, brief string) *mcpdir.Entry {
	return &mcpdir.Entry{Name: name, WebsiteURL: url, Brief: brief, Tags: []string{"t"}}
}

func TestUpsertIsIdempotentAndDetectsChanges(t *testing.T) {
	ctx := context.Background()
	db := open(t, t.TempDir())
	in := []*mcpdir.Entry{entry("a", "https://e.com/a", "A"), entry("b", "https://e.com/b", "B")}
	res, err := db.UpsertEntries(ctx, in)
	if err != nil || res.Added != 2 {
		t.Fatalf("first upsert: %+v %v", res, err)
	}
	seq1, _ := db.LatestChange(ctx)
	res, err = db.UpsertEntries(ctx, []*mcpdir.Entry{entry("a", "https://e.com/a", "A"), entry("b", "https://e.com/b", "B")})
	if err != nil || res.Added != 0 || res.Updated != 0 || res.Unchanged != 2 {
		t.Fatalf("second upsert must change nothing: %+v %v", res, err)
	}
	if seq2, _ := db.LatestChange(ctx); seq2 != seq1 {
		t.Fatalf("unchanged upsert wrote to the change feed: %d -> %d", seq1, seq2)
	}
	id := mcpdir.EntryID(in[0].NaturalKey())
	before := entryByID(t, db, id)
	time.Sleep(2 * time.Millisecond)
	res, err = db.UpsertEntries(ctx, []*mcpdir.Entry{entry("a", "https://e.com/a", "A, better")})
	if err != nil || res.Updated != 1 {
		t.Fatalf("changed entry not updated: %+v %v", res, err)
	}
	after := entryByID(t, db, id)
	if after.Brief != "A, better" || after.ID != id || !after.CreatedAt.Equal(before.CreatedAt) || !after.UpdatedAt.After(before.UpdatedAt) {
		t.Fatalf("update: before %+v after %+v", before, after)
	}
	changes, err := db.ChangesSince(ctx, seq1, 100)
	if err != nil || len(changes) != 1 || changes[0].Ref != id || changes[0].Kind != mcpdir.ChangeEntry {
		t.Fatalf("change feed after update: %+v %v", changes, err)
	}
	if n, _ := db.CountEntries(ctx); n != 2 {
		t.Fatalf("count %d", n)
	}
	if got, err := db.EntriesByID(ctx, []string{mcpdir.EntryID("nope")}); err != nil || len(got) != 0 {
		t.Fatalf("unknown id: %v %v", got, err)
	}
}

func entryByID(t *testing.T, db *sqlite.DB, id string) *mcpdir.Entry {
	t.Helper()
	got, err := db.EntriesByID(context.Background(), []string{id})
	if err != nil || len(got) != 1 {
		t.Fatalf("entry %s: %v %v", id, got, err)
	}
	return got[0]
}

func TestEntriesKeepEveryField(t *testing.T) {
	ctx := context.Background()
	db := open(t, t.TempDir())
	e, err := mcpdir.ParseRecord([]byte(`{"name":"x","title":"X","brief":"b","description":"d","website_url":"https://x.dev","repository_url":"https://github.com/x/x","author_name":"X Inc","tags":["a","b"],"categories":["c"],"packages":[{"registry_type":"npm","identifier":"x","version":"1.0.0","transport":"stdio"}],"remotes":[{"url":"https://x.dev/mcp","transport":"streamable-http"}],"tools":[{"name":"t","description":"does t"}],"license":"MIT","version":"1.0.0","is_official":true,"is_verified":true,"popularity":42,"custom":{"k":[1,2]}}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.UpsertEntries(ctx, []*mcpdir.Entry{e}); err != nil {
		t.Fatal(err)
	}
	got, err := db.EntriesByID(ctx, []string{mcpdir.EntryID(e.NaturalKey()), "unknown"})
	if err != nil || len(got) != 1 {
		t.Fatalf("EntriesByID: %v %v", got, err)
	}
	g := got[0]
	if g.Title != "X" || g.AuthorName != "X Inc" || len(g.Tools) != 1 || g.Packages[0].Version != "1.0.0" || g.Remotes[0].Transport != "streamable-http" ||
		!g.IsOfficial || !g.IsVerified || g.Popularity != 42 || g.License != "MIT" || string(g.Extra["custom"]) != `{"k":[1,2]}` ||
		!slices.Equal(g.Transports, []string{"stdio", "streamable-http"}) || g.CreatedAt.IsZero() {
		t.Fatalf("round trip lost fields: %+v", g)
	}
}

func TestKeys(t *testing.T) {
	ctx := context.Background()
	db := open(t, t.TempDir())
	k := &mcpdir.APIKey{Prefix: "mcpd_abcdefgh", Name: "ci", Scope: mcpdir.ScopeSearch, Hash: []byte("h1"), RateLimit: 20, CreatedAt: time.Now()}
	if err := db.CreateKey(ctx, k); err != nil {
		t.Fatal(err)
	}
	if err := db.CreateKey(ctx, k); err == nil {
		t.Fatal("duplicate prefix accepted")
	}
	seq, _ := db.LatestChange(ctx)
	used := time.Now().Add(time.Minute).Round(0)
	if err := db.TouchKeys(ctx, map[string]time.Time{k.Prefix: used}); err != nil {
		t.Fatal(err)
	}
	if err := db.TouchKeys(ctx, map[string]time.Time{k.Prefix: used.Add(-time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if s, _ := db.LatestChange(ctx); s != seq {
		t.Fatal("last-used writes must not fill the change feed")
	}
	if err := db.RevokeKey(ctx, k.Prefix, time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := db.RevokeKey(ctx, "mcpd_unknown1", time.Now()); !errors.Is(err, mcpdir.ErrNotFound) {
		t.Fatalf("revoke unknown: %v", err)
	}
	got, err := db.KeyByPrefix(ctx, k.Prefix)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Revoked() || !got.LastUsedAt.Equal(used) || got.RateLimit != 20 || string(got.Hash) != "h1" {
		t.Fatalf("key: %+v", got)
	}
	if all, _ := db.Keys(ctx); len(all) != 1 {
		t.Fatalf("keys: %v", all)
	}
	changes, _ := db.ChangesSince(ctx, seq, 10)
	if len(changes) != 1 || changes[0].Kind != mcpdir.ChangeKey || changes[0].Ref != k.Prefix {
		t.Fatalf("revocation not in the change feed: %+v", changes)
	}
}

func TestTwoHandlesOnOneFileSeeEachOther(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	server, cli := open(t, dir), open(t, dir)
	seq, _ := server.LatestChange(ctx)
	if _, err := cli.UpsertEntries(ctx, []*mcpdir.Entry{entry("a", "https://e.com/a", "A")}); err != nil {
		t.Fatal(err)
	}
	changes, err := server.ChangesSince(ctx, seq, 10)
	if err != nil || len(changes) != 1 {
		t.Fatalf("server did not see the CLI's write: %v %v", changes, err)
	}
	if err := server.CheckIntegrity(ctx); err != nil {
		t.Fatal(err)
	}
}
