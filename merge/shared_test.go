package merge

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/internal/shareddir"
	"github.com/mcpdir/mcpdir/search"
)

// sharedData is the project's shared data directory, or why the test
// cannot run.
func sharedData(t testing.TB) string {
	dir := os.Getenv("MCPDIR_SHARED_DATA")
	if dir == "" {
		dir = filepath.Join("..", "..", "shared", "data")
	}
	if f := shareddir.Missing(dir); f != "" {
		t.Skipf("%s not found in %s (set MCPDIR_SHARED_DATA): this measurement needs the shared data set", f, dir)
	}
	return dir
}

// directory loads the shared data's directory of records (shareddir.Load).
func directory(t testing.TB, dir string) (entries []*mcpdir.Entry, from map[string]int) {
	entries, from, err := shareddir.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return entries, from
}

// TestSharedData measures the rule on the shared data and holds it to
// what must be true there. Its figures: go test ./merge -run SharedData -v
func TestSharedData(t *testing.T) {
	dir := sharedData(t)
	entries, from := directory(t, dir)
	start := time.Now()
	g := newGrouper(entries, DefaultRules())
	g.run()
	gs := g.groups()
	conflicts := g.conflicts(gs)
	took := time.Since(start)
	t.Logf("records in: %d (%v)", len(entries), from)
	t.Logf("groups out: %d, in %v; %d records collapse into %d groups of two or more",
		len(gs), took.Round(time.Millisecond), len(entries)-len(gs), countIf(gs, func(g Group) bool { return len(g.Members) > 1 }))
	sizes := map[int]int{}
	kinds := map[string]int{}
	pairs := map[string]int{}
	twoNames := 0
	for _, gr := range gs {
		sizes[len(gr.Members)]++
		for _, l := range gr.Links {
			kind, _, _ := strings.Cut(l.Evidence, " ")
			kinds[kind]++
		}
		regs := map[string]bool{}
		var srcs []string
		for _, m := range gr.Members {
			if m.Source == mcpdir.SourceRegistry {
				regs[strings.ToLower(m.Name)] = true
			}
			srcs = append(srcs, cmpOr(m.Source, "starter"))
		}
		if len(regs) > 1 {
			twoNames++
			t.Errorf("group %s holds registry names %v", gr.ID, regs)
		}
		if len(gr.Members) > 1 {
			slices.Sort(srcs)
			pairs[strings.Join(slices.Compact(srcs), "+")]++
		}
	}
	t.Logf("group sizes: %v", sizes)
	t.Logf("links by evidence: %v", kinds)
	t.Logf("groups of two or more by sources: %v", pairs)
	t.Logf("held back: %d unions of two server names refused, %d ambiguous package keys, %d name or package keys an unverified record shares", g.stats.refusedName, g.stats.ambiguous, g.stats.unverified)
	t.Logf("groups with two or more registry names: %d", twoNames)
	byKind := map[string]int{}
	for _, c := range conflicts {
		byKind[c.Kind]++
	}
	t.Logf("conflicts listed for admins: %d %v", len(conflicts), byKind)

	largest := slices.Clone(gs)
	slices.SortStableFunc(largest, func(a, b Group) int { return len(b.Members) - len(a.Members) })
	for _, gr := range largest[:10] {
		var names []string
		for _, m := range gr.Members {
			names = append(names, fmt.Sprintf("%s [%s]", m.Name, cmpOr(m.Source, "starter")))
		}
		var why []string
		for _, l := range gr.Links {
			why = append(why, l.Evidence)
		}
		t.Logf("%d: %s\n\t\tby %s", len(gr.Members), strings.Join(names, ", "), strings.Join(why, "; "))
	}

	// The case: one entry for server-postgres, the starter's id.
	for _, gr := range gs {
		for _, m := range gr.Members {
			if m.Name == "@modelcontextprotocol/server-postgres" {
				if len(gr.Members) < 2 || gr.Members[0].Name != "io.github.modelcontextprotocol/server-postgres" {
					t.Errorf("server-postgres: %d members, canonical %q", len(gr.Members), gr.Members[0].Name)
				}
				merged := Merge(gr)
				t.Logf("server-postgres: %d records → id %s, aliases %+v, packages %+v, popularity %d", len(gr.Members), merged.ID, merged.Aliases, merged.Packages, merged.Popularity)
			}
		}
	}
}

func countIf(gs []Group, f func(Group) bool) int {
	n := 0
	for _, g := range gs {
		if f(g) {
			n++
		}
	}
	return n
}

func BenchmarkGroupsShared(b *testing.B) {
	entries, _ := directory(b, sharedData(b))
	b.Run(fmt.Sprintf("records=%d", len(entries)), func(b *testing.B) {
		for b.Loop() {
			Groups(entries, nil)
		}
	})
	b.Run(fmt.Sprintf("merge/records=%d", len(entries)), func(b *testing.B) {
		gs := Groups(entries, nil)
		for b.Loop() {
			for _, g := range gs {
				Merge(g)
			}
		}
	})
}

// BenchmarkIndexShared measures what merging costs the serving index, side
// by side with the plain index, over the shared directory: building it
// (as serve does at start), and one write that changes a record's evidence
// (a new record: the directory is grouped again) or not (a new brief: its
// group is merged again).
func BenchmarkIndexShared(b *testing.B) {
	entries, _ := directory(b, sharedData(b))
	b.Run("build/plain", func(b *testing.B) {
		for b.Loop() {
			search.New().Upsert(entries...)
		}
	})
	b.Run("build/merged", func(b *testing.B) {
		for b.Loop() {
			NewIndex(search.New(), DefaultRules()).Upsert(entries...)
		}
	})
	plain, merged := search.New(), NewIndex(search.New(), DefaultRules())
	plain.Upsert(entries...)
	merged.Upsert(entries...)
	fresh := func(i int) *mcpdir.Entry {
		e := *entries[0]
		e.ID, e.Name, e.WebsiteURL = "", fmt.Sprintf("new-record-%d", i), fmt.Sprintf("https://example.com/new-%d", i)
		e.ID = mcpdir.EntryID(e.NaturalKey())
		return &e
	}
	for _, x := range []struct {
		name string
		idx  mcpdir.SearchIndex
	}{{"plain", plain}, {"merged", merged}} {
		b.Run("write-new-record/"+x.name, func(b *testing.B) {
			i := 0
			for b.Loop() {
				i++
				x.idx.Upsert(fresh(i))
			}
		})
		b.Run("write-new-brief/"+x.name, func(b *testing.B) {
			i := 0
			for b.Loop() {
				i++
				e := *entries[1]
				e.Brief = fmt.Sprintf("A brief, version %d", i)
				x.idx.Upsert(&e)
			}
		})
	}
}
