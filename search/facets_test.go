package search

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/starter"
)

func filterEntries() []*mcpdir.Entry {
	var es []*mcpdir.Entry
	for i := range 60 {
		e := entry(fmt.Sprintf("postgres-tool-%d", i), "A Postgres database server for agents", int64(i))
		switch i % 3 {
		case 0:
			e.Transports = []string{"stdio"}
			e.Packages = []mcpdir.Package{{RegistryType: "npm", Identifier: "pg"}}
			e.Tags = []string{"database", "sql"}
		case 1:
			e.Transports = []string{"streamable-http"}
			e.Packages = []mcpdir.Package{{RegistryType: "pypi", Identifier: "pg"}}
			e.Tags = []string{"Database"}
		case 2:
			e.Transports = []string{"stdio", "sse"}
			e.Tags = []string{"sql"}
		}
		e.IsOfficial = i%10 == 0
		es = append(es, e)
	}
	return append(es, entry("weather-now", "Weather forecasts", 5))
}

// Every hit satisfies the filter, the filter applies before the cut (the
// limit fills from filtered matches) and total counts filtered matches.
func TestFilters(t *testing.T) {
	x := New()
	x.Upsert(filterEntries()...)
	yes, no := true, false
	for _, c := range []struct {
		f     mcpdir.Filter
		total int
		ok    func(*mcpdir.Entry) bool
	}{
		{mcpdir.Filter{Transport: "stdio"}, 40, func(e *mcpdir.Entry) bool { return e.Transports[0] == "stdio" }},
		{mcpdir.Filter{Transport: "sse"}, 20, func(e *mcpdir.Entry) bool { return len(e.Transports) == 2 }},
		{mcpdir.Filter{Registry: "PyPI"}, 20, func(e *mcpdir.Entry) bool { return len(e.Packages) == 1 && e.Packages[0].RegistryType == "pypi" }},
		{mcpdir.Filter{Tags: []string{"database"}}, 40, func(e *mcpdir.Entry) bool { return len(e.Tags) > 0 && e.Tags[0] != "sql" }},
		{mcpdir.Filter{Tags: []string{"database", "sql"}}, 20, func(e *mcpdir.Entry) bool { return len(e.Tags) == 2 }},
		{mcpdir.Filter{Official: &yes}, 6, func(e *mcpdir.Entry) bool { return e.IsOfficial }},
		{mcpdir.Filter{Official: &no, Transport: "stdio", Registry: "npm"}, 18, func(e *mcpdir.Entry) bool { return !e.IsOfficial && e.Packages[0].RegistryType == "npm" }},
		{mcpdir.Filter{Tags: []string{"nosuchtag"}}, 0, nil},
		{mcpdir.Filter{Transport: "carrier-pigeon"}, 0, nil},
	} {
		res := x.Find(mcpdir.Query{Text: "postgres database", Limit: 5, Filter: c.f})
		if res.Total != c.total || len(res.Hits) != min(5, c.total) {
			t.Errorf("%+v: %d hits of %d, want %d", c.f, len(res.Hits), res.Total, c.total)
		}
		for _, h := range res.Hits {
			if !c.ok(h.Entry) {
				t.Errorf("%+v: %s does not satisfy the filter", c.f, h.Entry.Name)
			}
		}
	}
}

func TestFacets(t *testing.T) {
	x := New()
	x.Upsert(filterEntries()...)
	res := x.Find(mcpdir.Query{Text: "postgres", Limit: 3, Facets: true})
	f := res.Facets
	if res.Total != 60 || f == nil {
		t.Fatalf("total %d, facets %v", res.Total, f)
	}
	if f.Transports["stdio"] != 40 || f.Transports["streamable-http"] != 20 || f.Transports["sse"] != 20 {
		t.Errorf("transports %v", f.Transports)
	}
	if f.Registries["npm"] != 20 || f.Registries["pypi"] != 20 || len(f.Registries) != 2 {
		t.Errorf("registries %v", f.Registries)
	}
	if len(f.Tags) != 2 || f.Tags[0] != (mcpdir.TagCount{Tag: "database", Count: 40}) || f.Tags[1] != (mcpdir.TagCount{Tag: "sql", Count: 40}) {
		t.Errorf("tags %v", f.Tags)
	}
	// Filtered: the facets count the filtered matches.
	res = x.Find(mcpdir.Query{Text: "postgres", Limit: 3, Facets: true, Filter: mcpdir.Filter{Registry: "npm"}})
	if res.Total != 20 || res.Facets.Transports["stdio"] != 20 || res.Facets.Registries["pypi"] != 0 {
		t.Errorf("filtered facets %+v", res.Facets)
	}
	// A query about nothing counts nothing; reused scratch space holds no
	// counts from earlier searches.
	res = x.Find(mcpdir.Query{Text: "zxqv plorbnik", Facets: true})
	if len(res.Facets.Transports) != 0 || len(res.Facets.Tags) != 0 {
		t.Errorf("nonsense facets %+v", res.Facets)
	}
	res = x.Find(mcpdir.Query{Text: "weather", Facets: true})
	if res.Total != 1 || len(res.Facets.Transports) != 0 || len(res.Facets.Tags) != 0 {
		t.Errorf("weather facets %+v", res.Facets)
	}
}

// BenchmarkFilteredSearch compares, in one run over the corpus and the dev
// queries, a plain search with filtered ones and one with facets. The
// corpus's packages name their registry (npm, pypi, …) and transport.
func BenchmarkFilteredSearch(b *testing.B) {
	entries, _ := loadCorpus(b)
	x := New()
	x.Upsert(entries...)
	queries := benchQueries(b)
	stdio := true
	for _, c := range []struct {
		name string
		q    mcpdir.Query
	}{
		{"plain", mcpdir.Query{}},
		{"registry=npm", mcpdir.Query{Filter: mcpdir.Filter{Registry: "npm"}}},
		{"registry=pypi,official=false", mcpdir.Query{Filter: mcpdir.Filter{Registry: "pypi", Official: new(bool)}}},
		{"transport=stdio", mcpdir.Query{Filter: mcpdir.Filter{Transport: "stdio"}}},
		{"facets", mcpdir.Query{Facets: stdio}},
	} {
		b.Run(c.name, func(b *testing.B) {
			i := 0
			for b.Loop() {
				q := c.q
				q.Text, q.Limit = queries[i%len(queries)].Query, 50
				x.Find(q)
				i++
			}
		})
	}
}

// Facets count what a search answers: when the tail stops at the floor,
// the entries past it count no more than they show (the starter
// directory's "postgres" answers about a dozen of its 40-odd matches).
func TestFacetsCountWhatTheFloorKeeps(t *testing.T) {
	entries, err := starter.Entries()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		e.ID = mcpdir.EntryID(e.NaturalKey())
	}
	x := New()
	x.Upsert(entries...)
	res := x.Find(mcpdir.Query{Text: "postgres", Limit: 50, Facets: true})
	if res.Total == 0 || res.Facets == nil {
		t.Fatalf("postgres: %d results", res.Total)
	}
	for _, counts := range []map[string]int{res.Facets.Transports, res.Facets.Registries} {
		for v, n := range counts {
			if n > res.Total {
				t.Errorf("facet %s counts %d of %d results", v, n, res.Total)
			}
		}
	}
}

// Entries share interned sets of facet values (issue 36), and a filter or
// a facet count reads each entry's own: the same answers whether the
// entries were indexed at once or one by one, replaced or not.
func TestFacetSetsShared(t *testing.T) {
	es := filterEntries()
	bulk, one := New(), New()
	bulk.Upsert(es...)
	for _, e := range es {
		one.Upsert(e)
	}
	// A replaced entry with other tags takes another set; its old one stays.
	moved := *es[0]
	moved.Tags = []string{"analytics"}
	bulk.Upsert(&moved)
	one.Upsert(&moved)
	if n := len(bulk.facetSets); n > 6 {
		t.Errorf("%d facet sets for 4 distinct ones, want them shared", n)
	}
	for _, q := range []mcpdir.Query{
		{Text: "postgres", Facets: true},
		{Text: "postgres", Filter: mcpdir.Filter{Tags: []string{"sql"}}, Facets: true},
		{Text: "postgres", Filter: mcpdir.Filter{Registry: "npm", Tags: []string{"database"}}, Facets: true},
		{Text: "postgres", Filter: mcpdir.Filter{Tags: []string{"analytics"}}, Facets: true},
	} {
		a, b := bulk.Find(q), one.Find(q)
		if fmt.Sprint(ids(a.Hits), a.Total, *a.Facets) != fmt.Sprint(ids(b.Hits), b.Total, *b.Facets) {
			t.Errorf("%+v: bulk %v %d %+v, one by one %v %d %+v", q, ids(a.Hits), a.Total, *a.Facets, ids(b.Hits), b.Total, *b.Facets)
		}
		for _, h := range a.Hits {
			for _, tag := range q.Filter.Tags {
				if !hasTag(h.Entry, tag) {
					t.Errorf("%+v: %s has no tag %s", q, h.Entry.Name, tag)
				}
			}
		}
	}
}

func hasTag(e *mcpdir.Entry, tag string) bool {
	for _, t := range e.Tags {
		if strings.EqualFold(t, tag) {
			return true
		}
	}
	return false
}

func ids(hs []mcpdir.Hit) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = h.Entry.Name
	}
	return out
}
