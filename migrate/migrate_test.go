package migrate

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/postgres"
	"github.com/mcpdir/mcpdir/sqlite"
	"github.com/mcpdir/mcpdir/storetest"
)

// Every table the SQLite schema has is planned: a table added by a later
// migration without a plan fails here, not in an operator's migration.
func TestEveryTableHasAPlan(t *testing.T) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	snap, err := db.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	tables, err := snap.Tables(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := checkPlans(tables); err != nil {
		t.Fatal(err)
	}
	extra := append(slices.Clone(tables), sqlite.Table{Name: "later_table"})
	if err := checkPlans(extra); err == nil || !strings.Contains(err.Error(), "later_table") {
		t.Fatalf("a table without a plan: %v", err)
	}
}

// fill writes at least one row into every table of the store, through
// the store as the server would.
func fill(t *testing.T, db *sqlite.DB) {
	t.Helper()
	ctx := context.Background()
	now := time.Now().UTC()
	entries := []*mcpdir.Entry{
		{Name: "alpha", WebsiteURL: "https://e.com/alpha", Brief: "Alpha", Tags: []string{"a"}, Source: mcpdir.SourceAdmin, Edited: true},
		{Name: "beta", WebsiteURL: "https://e.com/beta", Brief: "Beta"},
	}
	if _, err := db.UpsertEntries(ctx, entries); err != nil {
		t.Fatal(err)
	}
	id := mcpdir.EntryID(entries[0].NaturalKey())
	check := &mcpdir.LiveCheck{URL: "https://e.com/mcp", Status: mcpdir.LiveUp, CheckedAt: now, Latency: time.Millisecond,
		ProtocolVersion: "2025-06-18", ProtocolVersions: []string{"2025-06-18"}, Tools: []mcpdir.Tool{{Name: "t"}}}
	must(t, db.RecordLiveCheck(ctx, id, check))
	must(t, db.PutVersions(ctx, []*mcpdir.ServerVersion{{Name: "io.example/alpha", Version: "1.0.0", EntryKey: entries[0].NaturalKey(),
		Server: []byte(`{"name":"io.example/alpha","version":"1.0.0"}`), Status: mcpdir.StatusActive, PublishedAt: now, UpdatedAt: now}}))
	acct := &mcpdir.Account{ID: "acct-1", Email: "ada@example.com", PasswordHash: "$argon2id$x", CreatedAt: now}
	must(t, db.CreateAccount(ctx, acct))
	must(t, db.CreateSession(ctx, &mcpdir.WebSession{Hash: []byte("session"), AccountID: acct.ID, CreatedAt: now, LastSeen: now}))
	must(t, db.CreateKey(ctx, &mcpdir.APIKey{Prefix: "mcpd_Abcdefgh", Name: "k", Scope: mcpdir.ScopeSearch, Hash: []byte("key-hash"), RateLimit: 20, CreatedAt: now, Owner: acct.ID}))
	must(t, db.CreateClient(ctx, &mcpdir.OAuthClient{ID: "mcpdc_one", Name: "Agent", RedirectURIs: []string{"http://127.0.0.1/cb", "https://app.example/cb"}, CreatedAt: now}, mcpdir.ClientQuota{}))
	code := &mcpdir.OAuthCode{Hash: []byte("code"), ClientID: "mcpdc_one", ClientName: "Agent", AccountID: acct.ID, RedirectURI: "http://127.0.0.1/cb", Challenge: "ch", ExpiresAt: now.Add(time.Minute)}
	must(t, db.CreateCode(ctx, code))
	g := &mcpdir.OAuthGrant{ID: "grant-1", ClientID: "mcpdc_one", ClientName: "Agent", AccountID: acct.ID, CreatedAt: now}
	must(t, db.RedeemCode(ctx, code.Hash, g,
		&mcpdir.OAuthToken{Hash: []byte("access"), GrantID: g.ID, ExpiresAt: now.Add(time.Hour)},
		&mcpdir.OAuthToken{Hash: []byte("refresh"), GrantID: g.ID, Refresh: true, ExpiresAt: now.Add(24 * time.Hour)}))
	must(t, db.SetState(ctx, "registry-sync:https://registry.example", now.Format(time.RFC3339Nano)))
	must(t, db.SaveRateWindows(ctx, "keys", map[string][]time.Time{"mcpd_Abcdefgh": {now.Add(-time.Minute), now}}))
	must(t, db.AppendAudit(ctx, mcpdir.AuditRecord{Actor: "cli", Action: "key.create", Target: "mcpd_Abcdefgh"}))
	hour := now.Truncate(time.Hour)
	must(t, db.AddInsights(ctx, mcpdir.InsightBatch{
		Buckets: []mcpdir.InsightBucket{{Hour: hour, Door: mcpdir.DoorREST, Searches: 2, Empty: 1}},
		Queries: []mcpdir.HourQuery{{Hour: hour, Query: "postgres", Count: 2, Empty: 1, LastSeen: now}},
		Keys:    []mcpdir.HourKey{{Hour: hour, Key: "mcpd_Abcdefgh", Requests: 2}},
	}))
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func openBoth(t *testing.T) (*sqlite.DB, *postgres.DB, string) {
	t.Helper()
	url := storetest.PostgresURL(t)
	dir := t.TempDir()
	src, err := sqlite.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	dst, err := postgres.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dst.Close() })
	return src, dst, dir
}

func runOn(t *testing.T, src *sqlite.DB, dst *postgres.DB, opts Options) ([]Count, error) {
	t.Helper()
	snap, err := src.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	return Run(context.Background(), snap, dst, opts)
}

// sqliteRows renders every row of a table, sorted, values as %v prints them,
// so that a SQLite table and its PostgreSQL copy compare equal.
func sqliteRows(t *testing.T, src *sqlite.DB, dst pgx.Tx, p plan) (cols, out []string) {
	t.Helper()
	ctx := context.Background()
	snap, err := src.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	tables, _ := snap.Tables(ctx)
	i := slices.IndexFunc(tables, func(tb sqlite.Table) bool { return tb.Name == p.table })
	cols = slices.DeleteFunc(slices.Clone(tables[i].Columns), func(c string) bool { return c == p.renumber })
	tcols, err := targetColumns(ctx, dst, p.table)
	if err != nil {
		t.Fatal(err)
	}
	must(t, snap.Rows(ctx, p.table, cols, func(row []any) error {
		for i := range row {
			v, err := convert(row[i], tcols[cols[i]])
			if err != nil {
				return err
			}
			row[i] = v
		}
		out = append(out, render(cols, row))
		return nil
	}))
	slices.Sort(out)
	return cols, out
}

func postgresRows(t *testing.T, tx pgx.Tx, table string, cols []string) []string {
	t.Helper()
	quoted := make([]string, len(cols))
	for i, c := range cols {
		quoted[i] = pgx.Identifier{c}.Sanitize()
	}
	rows, err := tx.Query(context.Background(), `SELECT `+strings.Join(quoted, ", ")+` FROM `+pgx.Identifier{table}.Sanitize())
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, render(cols, vals))
	}
	slices.Sort(out)
	return out
}

func render(cols []string, vals []any) string {
	var b strings.Builder
	for i, c := range cols {
		switch v := vals[i].(type) {
		case []byte:
			fmt.Fprintf(&b, "%s=%x ", c, v)
		case int32:
			fmt.Fprintf(&b, "%s=%d ", c, v)
		default:
			fmt.Fprintf(&b, "%s=%v ", c, v)
		}
	}
	return b.String()
}

// Every row of every table reaches PostgreSQL unchanged (the change
// feed's numbers excepted), the counts printed are the counts read back,
// and the PostgreSQL store reads what the SQLite one wrote.
func TestCopiesEveryRow(t *testing.T) {
	ctx := context.Background()
	src, dst, _ := openBoth(t)
	fill(t, src)
	counts, err := runOn(t, src, dst, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range counts {
		if c.Skipped != "" {
			continue
		}
		if c.Source == 0 {
			t.Errorf("%s: the test wrote no row into it: fill must cover every table", c.Table)
		}
		if c.Copied != c.Source || c.After != c.Source || c.Before != 0 {
			t.Errorf("%s: %+v", c.Table, c)
		}
	}
	must(t, dst.Bulk(ctx, func(tx pgx.Tx) error {
		for _, p := range plans {
			if p.skip != "" {
				continue
			}
			cols, want := sqliteRows(t, src, tx, p)
			if got := postgresRows(t, tx, p.table, cols); !slices.Equal(got, want) {
				t.Errorf("%s:\n got %q\nwant %q", p.table, got, want)
			}
		}
		return nil
	}))

	// Through the store: the key, the grant's refresh token, the live check.
	k, err := dst.KeyByPrefix(ctx, "mcpd_Abcdefgh")
	if err != nil || string(k.Hash) != "key-hash" || k.RateLimit != 20 || k.Owner != "acct-1" {
		t.Fatalf("key: %+v %v", k, err)
	}
	tok, grant, err := dst.Token(ctx, []byte("refresh"))
	if err != nil || !tok.Refresh || grant.ID != "grant-1" || grant.Revoked() {
		t.Fatalf("refresh token: %+v %+v %v", tok, grant, err)
	}
	if c, err := dst.Client(ctx, "mcpdc_one"); err != nil || !slices.Equal(c.RedirectURIs, []string{"http://127.0.0.1/cb", "https://app.example/cb"}) {
		t.Fatalf("client: %+v %v", c, err)
	}
	if n, err := dst.CountEntries(ctx); err != nil || n != 2 {
		t.Fatalf("entries: %d %v", n, err)
	}
	got, err := dst.EntriesByID(ctx, []string{mcpdir.EntryID("url:https://e.com/alpha")})
	if err != nil || len(got) != 1 || got[0].Source != mcpdir.SourceAdmin || !got[0].Edited || got[0].Live == nil || got[0].Live.Status != mcpdir.LiveUp {
		t.Fatalf("the edited entry, its provenance and live check: %+v %v", got, err)
	}
	// The feed continues after the copied changes.
	seq, _ := dst.LatestChange(ctx)
	must(t, dst.SetState(ctx, "k", "v"))
	if changes, _ := dst.ChangesSince(ctx, seq, 10); len(changes) != 1 || changes[0].Ref != "k" {
		t.Fatalf("a write after the copy: %+v", changes)
	}
}

// A target that holds anything is refused, with nothing written; --merge
// adds what it lacks and keeps what it has.
func TestRefusesANonEmptyTargetUnlessMerge(t *testing.T) {
	ctx := context.Background()
	src, dst, _ := openBoth(t)
	fill(t, src)
	must(t, dst.CreateKey(ctx, &mcpdir.APIKey{Prefix: "mcpd_Zzzzzzzz", Name: "there", Scope: mcpdir.ScopeSearch, Hash: []byte("other"), RateLimit: 5, CreatedAt: time.Now()}))
	// The same account, under another id, is there already.
	must(t, dst.CreateAccount(ctx, &mcpdir.Account{ID: "acct-other", Email: "ada@example.com", PasswordHash: "h", CreatedAt: time.Now()}))
	_, err := runOn(t, src, dst, Options{})
	if !IsNotEmpty(err) || !strings.Contains(err.Error(), "api_keys 1") || !strings.Contains(err.Error(), "--merge") {
		t.Fatalf("a non-empty target: %v", err)
	}
	if n, _ := dst.CountRows(ctx, "entries"); n != 0 {
		t.Fatalf("a refused migration wrote %d entries", n)
	}
	counts, err := runOn(t, src, dst, Options{Merge: true})
	if err != nil {
		t.Fatal(err)
	}
	byTable := map[string]Count{}
	for _, c := range counts {
		byTable[c.Table] = c
	}
	if c := byTable["api_keys"]; c.Copied != 1 || c.Before != 1 || c.After != 2 {
		t.Fatalf("keys: %+v", c)
	}
	// The account's email was taken: the target's is kept, and its
	// session, whose account is not there, is left out.
	if c := byTable["accounts"]; c.Copied != 0 || c.Kept() != 1 {
		t.Fatalf("accounts: %+v", c)
	}
	if c := byTable["web_sessions"]; c.Copied != 0 || c.Kept() != 1 {
		t.Fatalf("sessions: %+v", c)
	}
	if k, err := dst.KeyByPrefix(ctx, "mcpd_Zzzzzzzz"); err != nil || k.Name != "there" {
		t.Fatalf("the target's key: %+v %v", k, err)
	}
	// Merging again copies nothing more but the change feed and the
	// audit trail (both numbered anew: their rows have no key to match).
	counts, err = runOn(t, src, dst, Options{Merge: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range counts {
		if c.Copied != 0 && c.Table != "changes" && c.Table != "audit" {
			t.Errorf("a second merge copied %d rows of %s", c.Copied, c.Table)
		}
	}
}

// A table the plans do not know stops the migration before it writes.
func TestUnknownTableStopsTheCopy(t *testing.T) {
	ctx := context.Background()
	src, dst, dir := openBoth(t)
	fill(t, src)
	raw, err := sql.Open("sqlite", "file:"+filepath.Join(dir, sqlite.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.Exec(`CREATE TABLE later_table (key TEXT PRIMARY KEY, hits BLOB)`); err != nil {
		t.Fatal(err)
	}
	_, err = runOn(t, src, dst, Options{})
	if err == nil || !strings.Contains(err.Error(), "later_table") {
		t.Fatalf("an unknown table: %v", err)
	}
	if n, _ := dst.CountRows(ctx, "entries"); n != 0 {
		t.Fatalf("%d entries copied", n)
	}
}
