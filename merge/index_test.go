package merge_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"sync"
	"testing"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/merge"
	"github.com/mcpdir/mcpdir/packed"
	"github.com/mcpdir/mcpdir/search"
)

// postgresRecords are one server's records from two sources: the
// registry's and the npm package it publishes.
func postgresRecords(t *testing.T) (reg, pkg *mcpdir.Entry) {
	reg = rec(t, mcpdir.SourceRegistry, "io.github.modelcontextprotocol/server-postgres", func(e *mcpdir.Entry) {
		e.Brief = "Read-only access to PostgreSQL databases"
		e.Packages = []mcpdir.Package{npm("@modelcontextprotocol/server-postgres")}
	})
	pkg = corpus(t, "npm", "@modelcontextprotocol/server-postgres")
	pkg.Brief = "MCP server for interacting with PostgreSQL databases"
	pkg.Popularity = 250000
	return reg, pkg
}

func TestIndexMergesAndResolvesAliases(t *testing.T) {
	inner := search.New()
	x := merge.NewIndex(inner, merge.DefaultRules())
	reg, pkg := postgresRecords(t)
	other := corpus(t, "npm", "weather-mcp")
	x.Upsert(reg, pkg, other)
	if x.Len() != 2 {
		t.Fatalf("%d entries, want 2 (postgres merged, weather)", x.Len())
	}
	res := x.Search("postgres", 10)
	if len(res.Hits) != 1 || res.Hits[0].Entry.ID != reg.ID || res.Hits[0].Entry.Popularity != 250000 {
		t.Fatalf("postgres: %d hits, first %+v", len(res.Hits), res.Hits[0].Entry)
	}
	e, ok := x.Get(pkg.ID)
	if !ok || e.ID != reg.ID || len(e.Aliases) != 1 || e.Aliases[0].ID != pkg.ID {
		t.Fatalf("the package's id resolves to %+v %v", e, ok)
	}
	if gid, ids, ok := x.GroupOf(pkg.ID); !ok || gid != reg.ID || !slices.Contains(ids, pkg.ID) {
		t.Fatalf("group of the package: %s %v", gid, ids)
	}

	// A write that changes no evidence merges the group again (a tool the
	// package's record learnt shows in the entry).
	pkg2 := *pkg
	pkg2.Tools = []mcpdir.Tool{{Name: "query"}}
	x.Upsert(&pkg2)
	if e, _ := x.Get(reg.ID); len(e.Tools) != 1 || e.Tools[0].Name != "query" {
		t.Fatalf("the merged entry did not follow its record: %+v", e.Tools)
	}

	// A split keeps them apart; withdrawn, they merge again.
	s := merge.Splits{}
	s.Add(reg.ID, pkg.ID)
	x.SetSplits(s)
	if x.Len() != 3 {
		t.Fatalf("split: %d entries, want 3", x.Len())
	}
	if e, ok := x.Get(pkg.ID); !ok || e.ID != pkg.ID {
		t.Fatalf("split: the package's id finds %+v", e)
	}
	x.SetSplits(merge.Splits{})
	if x.Len() != 2 {
		t.Fatalf("joined: %d entries, want 2", x.Len())
	}

	// Evidence that changes (the package's record now names another
	// package) groups again; a removed record leaves its group.
	pkg3 := pkg2
	pkg3.WebsiteURL = "https://www.npmjs.com/package/something-else"
	pkg3.Packages = []mcpdir.Package{npm("something-else")}
	x.Upsert(&pkg3)
	if x.Len() != 3 {
		t.Fatalf("after the package changed: %d entries, want 3", x.Len())
	}
	x.Upsert(&pkg2)
	x.Remove(pkg.ID)
	if x.Len() != 2 {
		t.Fatalf("after a removal: %d entries", x.Len())
	}
	if _, ok := x.Get(pkg.ID); ok {
		t.Fatal("a removed record's id still finds an entry")
	}
	if e, _ := x.Get(reg.ID); len(e.Aliases) != 0 || !reflect.DeepEqual(e, reg) {
		t.Fatalf("alone again, the registry's record is served as it is: %+v", e)
	}
}

// Lookups and searches run while the index groups again, its records
// are written again (a lookup reads their ids from their packs) and its
// table of them grows (under -race).
func TestIndexConcurrent(t *testing.T) {
	x := merge.NewIndex(search.New(), merge.DefaultRules())
	reg, pkg := postgresRecords(t)
	x.Upsert(reg)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 200 {
				if e, ok := x.Get(reg.ID); !ok || e.ID != reg.ID {
					t.Error("the registry's record vanished")
					return
				}
				x.Search("postgres", 5)
				x.Get(pkg.ID)
			}
		})
	}
	for i := range 50 {
		if i%2 == 0 {
			x.Upsert(pkg)
		} else {
			x.Remove(pkg.ID)
		}
		again := *reg
		again.Brief = fmt.Sprintf("Version %d", i)
		more := []*mcpdir.Entry{&again}
		for j := range 10 {
			e := &mcpdir.Entry{Name: fmt.Sprintf("server-%d-%d", i, j), Source: mcpdir.SourceRegistry}
			e.ID = mcpdir.EntryID(e.NaturalKey())
			more = append(more, e)
		}
		x.Upsert(more...)
	}
	wg.Wait()
}

// An approved-only listing serves the groups that hold an approved record:
// approving any record of a group shows its merged entry; the rest are
// not found; nil shows all again.
func TestIndexListing(t *testing.T) {
	x := merge.NewIndex(search.New(), merge.DefaultRules())
	reg, pkg := postgresRecords(t)
	other := corpus(t, "npm", "weather-mcp")
	x.SetListing(map[string]bool{})
	x.Upsert(reg, pkg, other)
	if x.Len() != 0 || len(x.Search("postgres", 10).Hits) != 0 {
		t.Fatalf("nothing approved: %d entries", x.Len())
	}
	x.SetListing(map[string]bool{pkg.ID: true})
	if x.Len() != 1 {
		t.Fatalf("one approved: %d entries", x.Len())
	}
	if e, ok := x.Get(pkg.ID); !ok || e.Name != reg.Name {
		t.Fatalf("the approved group: %+v %v", e, ok)
	}
	if _, ok := x.Get(other.ID); ok {
		t.Fatal("an unapproved entry is found")
	}
	// A write to an unapproved record does not show it.
	w := *other
	w.Brief = "Weather, now better"
	x.Upsert(&w)
	if _, ok := x.Get(other.ID); ok || x.Len() != 1 {
		t.Fatal("a write showed an unapproved entry")
	}
	x.SetListing(nil)
	if x.Len() != 2 {
		t.Fatalf("all listed: %d entries", x.Len())
	}
}

// A write regroups only the components it touches: after any sequence of
// writes and removals, the index groups as Groups over every record does.
func TestIndexRegroupsComponentsAsTheWhole(t *testing.T) {
	for seed := range uint64(3) {
		es, splits := world(t, seed, 1500)
		rules := merge.DefaultRules()
		rules.Splits = splits
		x := merge.NewIndex(search.New(), rules)
		x.Upsert(es...)
		r := rand.New(rand.NewPCG(seed, 2))
		live := map[string]*mcpdir.Entry{}
		for _, e := range es {
			live[e.ID] = e
		}
		for step := range 200 {
			e := es[r.IntN(len(es))]
			switch r.IntN(4) {
			case 0:
				x.Remove(e.ID)
				delete(live, e.ID)
			case 1: // new evidence: another package, or a registry name
				c := *e
				c.Packages = []mcpdir.Package{npm(fmt.Sprintf("@o%d/s%d", r.IntN(80), r.IntN(4)))}
				x.Upsert(&c)
				live[c.ID] = &c
			default:
				x.Upsert(e)
				live[e.ID] = e
			}
			if step%25 != 24 {
				continue
			}
			var all []*mcpdir.Entry
			for _, e := range live {
				all = append(all, e)
			}
			want, conflicts := merge.Resolve(all, rules)
			for _, g := range want {
				for _, m := range g.Members {
					if gid, _, ok := x.GroupOf(m.ID); !ok || gid != g.ID {
						t.Fatalf("seed %d step %d: record %s in group %s, want %s", seed, step, m.ID, gid, g.ID)
					}
				}
			}
			if len(x.Conflicts()) != len(conflicts) {
				have := map[string]bool{}
				for _, c := range x.Conflicts() {
					have[fmt.Sprint(c)] = true
				}
				for _, c := range conflicts {
					if !have[fmt.Sprint(c)] {
						t.Logf("missing %v", c)
					}
				}
			}
			if x.Len() != len(want) || len(x.Conflicts()) != len(conflicts) {
				t.Fatalf("seed %d step %d: %d entries and %d conflicts, want %d and %d", seed, step, x.Len(), len(x.Conflicts()), len(want), len(conflicts))
			}
		}
	}
}

// writes records what an inner index is given, and keeps it.
type writes struct {
	*search.Index
	entries, packs int
}

func (w *writes) Upsert(es ...*mcpdir.Entry) { w.entries += len(es); w.Index.Upsert(es...) }
func (w *writes) UpsertPacked(ps ...packed.Entry) {
	w.packs += len(ps)
	w.Index.UpsertPacked(ps...)
}

// A lone record reaches the search index packed, as the merged index keeps
// it (one copy for both); a merged group's entry is made, and packed there.
// What the index serves is the same either way.
func TestLoneRecordsGoPacked(t *testing.T) {
	inner := &writes{Index: search.New()}
	x := merge.NewIndex(inner, merge.DefaultRules())
	reg, pkg := postgresRecords(t)
	weather, git := corpus(t, "npm", "weather-mcp"), corpus(t, "npm", "mcp-server-git")
	x.Upsert(reg, pkg, weather, git)
	if inner.packs != 2 || inner.entries != 1 {
		t.Fatalf("%d packed entries and %d made, want 2 (weather, git) and 1 (postgres)", inner.packs, inner.entries)
	}
	if e, ok := x.Get(weather.ID); !ok || !reflect.DeepEqual(e, weather) {
		t.Fatalf("weather is served as %+v, want %+v", e, weather)
	}
	if e, ok := x.Get(pkg.ID); !ok || e.ID != reg.ID || len(e.Aliases) != 1 {
		t.Fatalf("postgres is served as %+v", e)
	}
}
