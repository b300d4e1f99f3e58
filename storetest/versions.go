package storetest

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpdir/mcpdir"
)

func versions(t *testing.T, open Opener) {
	ctx := context.Background()
	db, another := open(t)
	before, err := db.LatestChange(ctx)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	v := func(name, version, status string, published time.Time) *mcpdir.ServerVersion {
		return &mcpdir.ServerVersion{
			Name: name, Version: version, EntryKey: "registry:" + name, Status: status,
			Server:      json.RawMessage(`{"name":"` + name + `","version":"` + version + `","description":"d"}`),
			PublishedAt: published, UpdatedAt: published.Add(time.Hour),
		}
	}
	put := []*mcpdir.ServerVersion{
		v("io.x/a", "1.0.0", mcpdir.StatusActive, at),
		v("io.x/a", "1.1.0", mcpdir.StatusActive, at.Add(time.Minute)),
		v("io.x/b", "0.1.0", mcpdir.StatusDeleted, at),
	}
	put[2].StatusMessage, put[2].StatusChangedAt = "gone", at.Add(2*time.Hour)
	if err := db.PutVersions(ctx, put); err != nil {
		t.Fatal(err)
	}
	// One change per server named, for other replicas to follow.
	changes, err := db.ChangesSince(ctx, before, 100)
	if err != nil {
		t.Fatal(err)
	}
	var refs []string
	for _, c := range changes {
		if c.Kind == mcpdir.ChangeVersion {
			refs = append(refs, c.Ref)
		}
	}
	slices.Sort(refs)
	if !slices.Equal(refs, []string{"io.x/a", "io.x/b"}) {
		t.Fatalf("version changes: %v", refs)
	}

	got, err := another().ServerVersions(ctx, []string{"io.x/a", "io.x/b", "io.x/none"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("got %d versions, want 3", len(got))
	}
	slices.SortFunc(got, func(a, b *mcpdir.ServerVersion) int {
		return strings.Compare(a.Name+" "+a.Version, b.Name+" "+b.Version)
	})
	for i, g := range got {
		w := put[i]
		if g.Name != w.Name || g.Version != w.Version || g.EntryKey != w.EntryKey || g.Status != w.Status ||
			g.StatusMessage != w.StatusMessage || string(g.Server) != string(w.Server) ||
			!g.PublishedAt.Equal(w.PublishedAt) || !g.UpdatedAt.Equal(w.UpdatedAt) || !g.StatusChangedAt.Equal(w.StatusChangedAt) {
			t.Fatalf("version %d: got %+v, want %+v", i, g, w)
		}
	}

	// Putting a version again replaces it.
	again := v("io.x/a", "1.0.0", mcpdir.StatusDeprecated, at)
	again.Server = json.RawMessage(`{"name":"io.x/a","version":"1.0.0","description":"new"}`)
	if err := db.PutVersions(ctx, []*mcpdir.ServerVersion{again}); err != nil {
		t.Fatal(err)
	}
	var heads []*mcpdir.ServerVersion
	if err := db.VersionHeads(ctx, func(h *mcpdir.ServerVersion) error { heads = append(heads, h); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(heads) != 3 {
		t.Fatalf("%d heads, want 3", len(heads))
	}
	for _, h := range heads {
		if h.Server != nil {
			t.Fatalf("a head carries its record: %s", h.Server)
		}
		if h.Name == "io.x/a" && h.Version == "1.0.0" && h.Status != mcpdir.StatusDeprecated {
			t.Fatalf("replaced version's status: %q", h.Status)
		}
	}
	got, err = db.ServerVersions(ctx, []string{"io.x/a"})
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range got {
		if g.Version == "1.0.0" && !strings.Contains(string(g.Server), "new") {
			t.Fatalf("replaced record: %s", g.Server)
		}
	}
}
