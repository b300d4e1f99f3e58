// Package storetest is the one test suite every mcpdir.Store passes: SQLite
// and PostgreSQL run it alike, so that what a test says of one is true of
// the other (entries, keys, the change feed under concurrent writers,
// accounts, live checks, OAuth, versions, state, rate windows, audit,
// insight). It also holds what integration tests share: fresh PostgreSQL
// databases and Redis database numbers of their own (services.go), and a
// TCP proxy that cuts a dependency and restores it (proxy.go).
package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/importer"
)

// Opener returns a new empty store for a test, and a function that opens
// another handle on the same store (another process's view of it).
type Opener func(t *testing.T) (store mcpdir.Store, another func() mcpdir.Store)

// Run runs the suite.
func Run(t *testing.T, open Opener) {
	t.Run("upsert is idempotent and detects changes", func(t *testing.T) { upsert(t, open) })
	t.Run("entries keep every field", func(t *testing.T) { everyField(t, open) })
	t.Run("keys", func(t *testing.T) { keys(t, open) })
	t.Run("another handle sees writes", func(t *testing.T) { anotherHandle(t, open) })
	t.Run("feed in commit order under concurrent writers", func(t *testing.T) { concurrentFeed(t, open) })
	t.Run("a batch with one entry twice", func(t *testing.T) { duplicateInBatch(t, open) })
	t.Run("import", func(t *testing.T) { importFile(t, open) })
	t.Run("delete", func(t *testing.T) { deleteEntries(t, open) })
	t.Run("change feed prune", func(t *testing.T) { pruneChanges(t, open) })
	t.Run("accounts and sessions", func(t *testing.T) { accounts(t, open) })
	t.Run("account roles", func(t *testing.T) { roles(t, open) })
	t.Run("live checks", func(t *testing.T) { liveChecks(t, open) })
	t.Run("oauth", func(t *testing.T) { oauth(t, open) })
	t.Run("oauth client quota", func(t *testing.T) { clientQuota(t, open) })
	t.Run("server versions", func(t *testing.T) { versions(t, open) })
	t.Run("rate windows", func(t *testing.T) { rateWindows(t, open) })
	t.Run("audit", func(t *testing.T) { audit(t, open) })
	t.Run("insight", func(t *testing.T) { insight(t, open) })
	t.Run("state", func(t *testing.T) {
		ctx := context.Background()
		db, another := open(t)
		if v, err := db.State(ctx, "k"); err != nil || v != "" {
			t.Fatalf("no state: %q %v", v, err)
		}
		for _, v := range []string{"one", "two"} {
			if err := db.SetState(ctx, "k", v); err != nil {
				t.Fatal(err)
			}
			if got, err := another().State(ctx, "k"); err != nil || got != v {
				t.Fatalf("state: %q %v, want %q", got, err, v)
			}
		}
	})
}

func deleteEntries(t *testing.T, open Opener) {
	ctx := context.Background()
	db, _ := open(t)
	a, b := entry("a", "https://e.com/a", "A"), entry("b", "https://e.com/b", "B")
	if _, err := db.UpsertEntries(ctx, []*mcpdir.Entry{a, b}); err != nil {
		t.Fatal(err)
	}
	seq, _ := db.LatestChange(ctx)
	id := mcpdir.EntryID(a.NaturalKey())
	n, err := db.DeleteEntries(ctx, []string{id, mcpdir.EntryID("nope")})
	if err != nil || n != 1 {
		t.Fatalf("delete: %d %v", n, err)
	}
	if got, _ := db.EntriesByID(ctx, []string{id}); len(got) != 0 {
		t.Fatal("the entry is still there")
	}
	changes, _ := db.ChangesSince(ctx, seq, 10)
	if len(changes) != 1 || changes[0].Ref != id {
		t.Fatalf("the deletion is not in the change feed: %+v", changes)
	}
	if n, _ := db.CountEntries(ctx); n != 1 {
		t.Fatalf("%d entries", n)
	}
}

// An NDJSON import over the store: counted, idempotent, skips reported.
func importFile(t *testing.T, open Opener) {
	ctx := context.Background()
	db, _ := open(t)
	var in strings.Builder
	for i := range 1234 {
		fmt.Fprintf(&in, `{"name": "server-%d", "brief": "b", "website_url": "https://e.com/%d"}`+"\n", i, i)
	}
	in.WriteString("not json\n" + `{"name": "server-0", "website_url": "https://e.com/0"}` + "\n")
	for round, want := range []mcpdir.ImportResult{{Added: 1234, Skipped: 2}, {Unchanged: 1234, Skipped: 2}} {
		sum, err := importer.Import(ctx, db, strings.NewReader(in.String()), nil)
		if err != nil || sum.Added != want.Added || sum.Unchanged != want.Unchanged || sum.Updated != 0 || sum.Skipped != want.Skipped {
			t.Fatalf("import %d: %+v %v", round+1, sum.ImportResult, err)
		}
	}
	if n, _ := db.CountEntries(ctx); n != 1234 {
		t.Fatalf("%d entries", n)
	}
}

func entry(name, url, brief string) *mcpdir.Entry {
	return &mcpdir.Entry{Name: name, WebsiteURL: url, Brief: brief, Tags: []string{"t"}}
}

func entryByID(t *testing.T, db mcpdir.Store, id string) *mcpdir.Entry {
	t.Helper()
	got, err := db.EntriesByID(context.Background(), []string{id})
	if err != nil || len(got) != 1 {
		t.Fatalf("entry %s: %v %v", id, got, err)
	}
	return got[0]
}

func upsert(t *testing.T, open Opener) {
	ctx := context.Background()
	db, _ := open(t)
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
	time.Sleep(2 * time.Millisecond) // a later update time, at the clock's resolution
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
	var all []string
	if err := db.AllEntries(ctx, func(e *mcpdir.Entry) error { all = append(all, e.Name); return nil }); err != nil {
		t.Fatal(err)
	}
	slices.Sort(all)
	if !slices.Equal(all, []string{"a", "b"}) {
		t.Fatalf("all entries: %v", all)
	}
}

func everyField(t *testing.T, open Opener) {
	ctx := context.Background()
	db, _ := open(t)
	e, err := importer.ParseRecord([]byte(`{"name":"x","title":"X","brief":"b","description":"d","website_url":"https://x.dev","repository_url":"https://github.com/x/x","author_name":"X Inc","tags":["a","b"],"categories":["c"],"packages":[{"registry_type":"npm","identifier":"x","version":"1.0.0","transport":"stdio"}],"remotes":[{"url":"https://x.dev/mcp","transport":"streamable-http"}],"tools":[{"name":"t","description":"does t"}],"license":"MIT","version":"1.0.0","is_official":true,"is_verified":true,"popularity":42,"custom":{"k":[1,2]}}`))
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
		!g.IsOfficial || !g.IsVerified || g.Popularity != 42 || g.License != "MIT" || string(g.Extra.Map()["custom"]) != `{"k":[1,2]}` ||
		!slices.Equal(g.Transports, []string{"stdio", "streamable-http"}) || g.CreatedAt.IsZero() {
		t.Fatalf("round trip lost fields: %+v", g)
	}
}

func keys(t *testing.T, open Opener) {
	ctx := context.Background()
	db, _ := open(t)
	k := &mcpdir.APIKey{Prefix: "mcpd_abcdefgh", Name: "ci", Scope: mcpdir.ScopeSearch, Hash: []byte("h1"), RateLimit: 20, CreatedAt: time.Now()}
	if err := db.CreateKey(ctx, k); err != nil {
		t.Fatal(err)
	}
	if err := db.CreateKey(ctx, k); err == nil {
		t.Fatal("duplicate prefix accepted")
	}
	seq, _ := db.LatestChange(ctx)
	used := time.Now().Add(time.Minute).Round(0).UTC()
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
	if _, err := db.KeyByPrefix(ctx, "mcpd_unknown1"); !errors.Is(err, mcpdir.ErrNotFound) {
		t.Fatalf("unknown key: %v", err)
	}
	got, err := db.KeyByPrefix(ctx, k.Prefix)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Revoked() || !got.LastUsedAt.Equal(used) || got.RateLimit != 20 || string(got.Hash) != "h1" || got.Scope != mcpdir.ScopeSearch {
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

func anotherHandle(t *testing.T, open Opener) {
	ctx := context.Background()
	server, another := open(t)
	cli := another()
	seq, _ := server.LatestChange(ctx)
	if _, err := cli.UpsertEntries(ctx, []*mcpdir.Entry{entry("a", "https://e.com/a", "A")}); err != nil {
		t.Fatal(err)
	}
	changes, err := server.ChangesSince(ctx, seq, 10)
	if err != nil || len(changes) != 1 {
		t.Fatalf("the server did not see the other handle's write: %v %v", changes, err)
	}
	if got := entryByID(t, server, changes[0].Ref); got.Name != "a" {
		t.Fatalf("entry %+v", got)
	}
}

// Writers on several handles at once: a follower that reads the feed while
// they write, always after the last change it saw, sees every change once.
func concurrentFeed(t *testing.T, open Opener) {
	ctx := context.Background()
	reader, another := open(t)
	const writers, each = 4, 15
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		db := another()
		wg.Go(func() {
			for i := range each {
				e := entry(fmt.Sprintf("w%d-%d", w, i), fmt.Sprintf("https://e.com/%d/%d", w, i), "x")
				if _, err := db.UpsertEntries(ctx, []*mcpdir.Entry{e}); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	seen := map[string]int{}
	var after int64
	for finished := false; ; {
		select {
		case <-done:
			finished = true
		default:
		}
		changes, err := reader.ChangesSince(ctx, after, 7)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range changes {
			if c.Seq <= after {
				t.Fatalf("change %d after %d", c.Seq, after)
			}
			after = c.Seq
			seen[c.Ref]++
		}
		if finished && len(changes) == 0 {
			break
		}
	}
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if len(seen) != writers*each {
		t.Fatalf("the follower saw %d of %d changes", len(seen), writers*each)
	}
	for ref, n := range seen {
		if n != 1 {
			t.Fatalf("change %s seen %d times", ref, n)
		}
	}
}

func duplicateInBatch(t *testing.T, open Opener) {
	ctx := context.Background()
	db, _ := open(t)
	res, err := db.UpsertEntries(ctx, []*mcpdir.Entry{entry("a", "https://e.com/a", "one"), entry("a", "https://e.com/a", "two")})
	if err != nil || res.Added != 1 || res.Updated != 1 {
		t.Fatalf("%+v %v", res, err)
	}
	if got := entryByID(t, db, mcpdir.EntryID(entry("a", "https://e.com/a", "").NaturalKey())); got.Brief != "two" {
		t.Fatalf("the later record wins within a batch: %+v", got)
	}
}

func accounts(t *testing.T, open Opener) {
	ctx := context.Background()
	db, _ := open(t)
	a := &mcpdir.Account{ID: mcpdir.EntryID("acct-a"), Email: "a@example.com", PasswordHash: "h", CreatedAt: time.Now()}
	if err := db.CreateAccount(ctx, a); err != nil {
		t.Fatal(err)
	}
	dup := *a
	dup.ID = mcpdir.EntryID("acct-b")
	if err := db.CreateAccount(ctx, &dup); mcpdir.ErrorCode(err) != mcpdir.ECodeConflict {
		t.Fatalf("a taken email: %v", err)
	}
	if got, err := db.AccountByEmail(ctx, "a@example.com"); err != nil || got.ID != a.ID || got.PasswordHash != "h" || got.Disabled() {
		t.Fatalf("by email: %+v %v", got, err)
	}
	if _, err := db.AccountByID(ctx, "nope"); !errors.Is(err, mcpdir.ErrNotFound) {
		t.Fatalf("unknown id: %v", err)
	}
	ws := &mcpdir.WebSession{Hash: []byte("token-hash"), AccountID: a.ID, CreatedAt: time.Now(), LastSeen: time.Now()}
	if err := db.CreateSession(ctx, ws); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Hour).Round(0).UTC()
	if err := db.TouchSession(ctx, ws.Hash, later); err != nil {
		t.Fatal(err)
	}
	if got, err := db.SessionByHash(ctx, ws.Hash); err != nil || got.AccountID != a.ID || !got.LastSeen.Equal(later) {
		t.Fatalf("session: %+v %v", got, err)
	}
	k := &mcpdir.APIKey{Prefix: "mcpd_owned123", Name: "k", Scope: mcpdir.ScopeSearch, Hash: []byte("kh"), RateLimit: 20, CreatedAt: time.Now(), Owner: a.ID}
	if err := db.CreateKey(ctx, k); err != nil {
		t.Fatal(err)
	}
	if got, _ := db.KeyByPrefix(ctx, k.Prefix); got.Owner != a.ID || got.OwnerDisabled {
		t.Fatalf("the key's owner: %q (disabled %v)", got.Owner, got.OwnerDisabled)
	}
	before, _ := db.LatestChange(ctx)
	if err := db.DisableAccount(ctx, "a@example.com", time.Now()); err != nil {
		t.Fatal(err)
	}
	// Its keys stop, and every server hears of them.
	ownerDisabled := func() (bool, bool) {
		one, err := db.KeyByPrefix(ctx, k.Prefix)
		if err != nil {
			t.Fatal(err)
		}
		all, _ := db.Keys(ctx)
		if len(all) != 1 {
			t.Fatalf("keys: %d", len(all))
		}
		return one.OwnerDisabled, all[0].OwnerDisabled
	}
	if one, all := ownerDisabled(); !one || !all {
		t.Fatalf("a disabled account's key: OwnerDisabled %v (by prefix) %v (in Keys)", one, all)
	}
	if changes, _ := db.ChangesSince(ctx, before, 100); !slices.ContainsFunc(changes, func(c mcpdir.Change) bool { return c.Kind == mcpdir.ChangeKey && c.Ref == k.Prefix }) {
		t.Fatalf("disabling wrote no key change: %+v", changes)
	}
	if _, err := db.SessionByHash(ctx, ws.Hash); !errors.Is(err, mcpdir.ErrNotFound) {
		t.Fatalf("a disabled account's session lives on: %v", err)
	}
	if got, _ := db.AccountByEmail(ctx, "a@example.com"); !got.Disabled() {
		t.Fatal("not disabled")
	}
	if all, _ := db.Accounts(ctx); len(all) != 1 {
		t.Fatalf("accounts: %d", len(all))
	}
	before, _ = db.LatestChange(ctx)
	if err := db.EnableAccount(ctx, "a@example.com"); err != nil {
		t.Fatal(err)
	}
	if got, _ := db.AccountByEmail(ctx, "a@example.com"); got.Disabled() {
		t.Fatal("still disabled")
	}
	if one, all := ownerDisabled(); one || all {
		t.Fatalf("an enabled account's key: OwnerDisabled %v %v", one, all)
	}
	if changes, _ := db.ChangesSince(ctx, before, 100); len(changes) == 0 {
		t.Fatal("enabling wrote no key change")
	}
	if err := db.EnableAccount(ctx, "nobody@example.com"); !errors.Is(err, mcpdir.ErrNotFound) {
		t.Fatalf("enable an unknown account: %v", err)
	}
	if err := db.DeleteSession(ctx, []byte("none")); err != nil {
		t.Fatal(err)
	}
}

// Pruning deletes what is older than asked and never the newest change,
// so that a replica starting after it still finds where the feed is.
func pruneChanges(t *testing.T, open Opener) {
	ctx := context.Background()
	db, _ := open(t)
	if _, err := db.UpsertEntries(ctx, []*mcpdir.Entry{entry("a", "https://example.com/a", "A"), entry("b", "https://example.com/b", "B")}); err != nil {
		t.Fatal(err)
	}
	latest, _ := db.LatestChange(ctx)
	if n, err := db.PruneChanges(ctx, time.Now().Add(-time.Hour)); err != nil || n != 0 {
		t.Fatalf("pruning what is older than an hour: %d %v", n, err)
	}
	n, err := db.PruneChanges(ctx, time.Now().Add(time.Hour))
	if err != nil || n < 1 {
		t.Fatalf("pruning everything: %d %v", n, err)
	}
	if got, _ := db.LatestChange(ctx); got != latest {
		t.Fatalf("the newest change went: %d, was %d", got, latest)
	}
	if changes, _ := db.ChangesSince(ctx, 0, 10); len(changes) != 1 || changes[0].Seq != latest {
		t.Fatalf("after pruning: %+v, want only the newest", changes)
	}
	if _, err := db.UpsertEntries(ctx, []*mcpdir.Entry{entry("c", "https://example.com/c", "C")}); err != nil {
		t.Fatal(err)
	}
	if changes, _ := db.ChangesSince(ctx, latest, 10); len(changes) != 1 || changes[0].Seq <= latest {
		t.Fatalf("a write after pruning: %+v", changes)
	}
}
