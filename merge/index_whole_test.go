package merge_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/merge"
	"github.com/mcpdir/mcpdir/search"
)

// Through any writes, removals, records carrying aliases, splits, joins
// and listings, the index serves what Resolve over every record gives: the
// merged entry of each listed group and nothing else, found by each of its
// records' ids (and aliases'), the groups' members, the conflicts, and
// the holders of each name.
func TestIndexServesWhatResolveGives(t *testing.T) {
	for seed := range uint64(3) {
		es, splits := world(t, seed, 600)
		rules := merge.DefaultRules()
		rules.Splits = splits
		inner := search.New()
		x := merge.NewIndex(inner, rules)
		x.Upsert(es[:len(es)/2]...)
		x.Upsert(es[len(es)/2:]...)
		r := rand.New(rand.NewPCG(seed, 3))
		live := map[string]*mcpdir.Entry{}
		for _, e := range es {
			live[e.ID] = e
		}
		var approved map[string]bool
		for step := range 300 {
			e := es[r.IntN(len(es))]
			switch r.IntN(10) {
			case 0, 1:
				ids := []string{e.ID, es[r.IntN(len(es))].ID}
				x.Remove(ids...)
				for _, id := range ids {
					delete(live, id)
				}
			case 2: // new evidence
				c := *e
				c.Packages = []mcpdir.Package{npm(fmt.Sprintf("@o%d/s%d", r.IntN(30), r.IntN(4)))}
				x.Upsert(&c)
				live[c.ID] = &c
			case 3: // a record carrying aliases: another record's id, and one no record has
				c := *e
				o := es[r.IntN(len(es))]
				c.Aliases = []mcpdir.Alias{{ID: o.ID, Name: o.Name, Source: o.Source}, {ID: fmt.Sprintf("gone-%d", step), Name: "gone"}}
				x.Upsert(&c)
				live[c.ID] = &c
			case 4: // a new brief, in a batch with another record
				c := *e
				c.Brief = fmt.Sprintf("Brief %d", step)
				o := es[r.IntN(len(es))]
				x.Upsert(&c, o)
				live[c.ID], live[o.ID] = &c, o
			case 5:
				switch step % 3 {
				case 0:
					approved = map[string]bool{}
					for _, o := range es {
						if r.IntN(2) == 0 {
							approved[o.ID] = true
						}
					}
				case 1:
					approved = nil
				case 2:
					joins := merge.Splits{}
					for range 5 {
						joins.Add(es[r.IntN(len(es))].ID, es[r.IntN(len(es))].ID)
					}
					rules.Joins = joins
					x.SetAdmin(rules.Splits, joins)
				}
				x.SetListing(approved)
			default:
				x.Upsert(e)
				live[e.ID] = e
			}
			if step%20 == 19 {
				checkWhole(t, fmt.Sprintf("seed %d step %d", seed, step), x, inner, live, rules, approved)
			}
		}
	}
}

func checkWhole(t *testing.T, at string, x *merge.Index, inner *search.Index, live map[string]*mcpdir.Entry, rules merge.Rules, approved map[string]bool) {
	t.Helper()
	var all []*mcpdir.Entry
	for _, e := range live {
		all = append(all, e)
	}
	groups, conflicts := merge.Resolve(all, rules)
	listed := 0
	for _, g := range groups {
		show := approved == nil
		for _, m := range g.Members {
			show = show || approved[m.ID]
			for _, a := range m.Aliases {
				show = show || approved[a.ID]
			}
		}
		var want *mcpdir.Entry
		if show {
			listed++
			want = g.Members[0]
			if len(g.Members) > 1 || len(want.Aliases) > 0 {
				want = merge.Merge(g)
			}
			if got, ok := inner.Get(g.ID); !ok || !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: group %s serves %+v, want %+v", at, g.ID, got, want)
			}
		}
		var ids []string
		for _, m := range g.Members {
			ids = append(ids, m.ID)
		}
		for _, m := range g.Members {
			gid, members, ok := x.GroupOf(m.ID)
			if !ok || gid != g.ID || !slices.Equal(members, ids) {
				t.Fatalf("%s: record %s in %s %v, want %s %v", at, m.ID, gid, members, g.ID, ids)
			}
			if got, ok := x.Get(m.ID); ok != show || show && got.ID != g.ID {
				t.Fatalf("%s: record %s finds %v %v, want %s %v", at, m.ID, got, ok, g.ID, show)
			}
			for _, a := range m.Aliases {
				if live[a.ID] != nil {
					continue
				}
				if gid, _, ok := x.GroupOf(a.ID); !ok || gid != g.ID {
					t.Fatalf("%s: alias %s in %s, want %s", at, a.ID, gid, g.ID)
				}
			}
		}
	}
	if inner.Len() != listed || x.Len() != listed {
		t.Fatalf("%s: %d entries served, want %d", at, inner.Len(), listed)
	}
	if got := x.Conflicts(); !reflect.DeepEqual(got, conflicts) && len(got)+len(conflicts) > 0 {
		t.Fatalf("%s: conflicts\n%v\nwant\n%v", at, got, conflicts)
	}
	names := map[string][]string{}
	for _, e := range all {
		if n := strings.ToLower(e.Name); strings.HasPrefix(n, "io.github.") {
			names[n] = append(names[n], e.ID)
		}
	}
	for n, want := range names {
		var got []string
		for _, e := range x.Holders(n) {
			got = append(got, e.ID)
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("%s: holders of %s %v, want %v", at, n, got, want)
		}
	}
}
