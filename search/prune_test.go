package search

import (
	"math"
	"reflect"
	"testing"

	"github.com/mcpdir/mcpdir"
)

// TestOptionalClausesChangeNothing checks that adding optional clauses
// only to the required clauses' candidates (requireClauses) answers every
// judged query, keyword and sentence, exactly as reading every posting in
// full does: the same hits in the same order, the same total and facets.
func TestOptionalClausesChangeNothing(t *testing.T) {
	x := loadIndex(t)
	qs := judgedQueries(t)
	filters := []mcpdir.Filter{{}, {Registry: "npm"}}
	pruned := 0
	for _, q := range qs {
		for _, f := range filters {
			findBothWays(t, x, mcpdir.Query{Text: q.Query, Limit: 50, Filter: f, Facets: true}, &pruneOptional,
				func(got, want []mcpdir.Hit, i int) bool {
					g, w := got[i], want[i]
					return math.Abs(g.Score-w.Score) <= 1e-5*w.Score && (g.Entry.ID == w.Entry.ID || swappedTie(got, want, i))
				})
		}
		if x.optionalClauses(q.Query) > 0 {
			pruned++
		}
	}
	// The test means something only if some queries have optional clauses.
	if pruned < len(qs)/10 {
		t.Fatalf("only %d of %d queries have optional clauses", pruned, len(qs))
	}
	t.Logf("%d of %d queries have optional clauses", pruned, len(qs))
}

// findBothWays answers query with a fast path (*fast) on, then off, and
// fails t where the two answers differ: in their totals or facets, or in a
// hit that same does not take for the same. It returns the fast answer.
func findBothWays(t *testing.T, x *Index, query mcpdir.Query, fast *bool, same func(got, want []mcpdir.Hit, i int) bool) mcpdir.SearchResult {
	t.Helper()
	defer func() { *fast = true }()
	*fast = true
	got := x.Find(query)
	*fast = false
	want := x.Find(query)
	if len(got.Hits) != len(want.Hits) || got.Total != want.Total {
		t.Fatalf("%q %v: %d hits of %d, want %d of %d", query.Text, query.Filter, len(got.Hits), got.Total, len(want.Hits), want.Total)
	}
	for i := range got.Hits {
		if !same(got.Hits, want.Hits, i) {
			g, w := got.Hits[i], want.Hits[i]
			t.Fatalf("%q %v: hit %d is %s (%v), want %s (%v)", query.Text, query.Filter, i, g.Entry.Name, g.Score, w.Entry.Name, w.Score)
		}
	}
	if !reflect.DeepEqual(got.Facets, want.Facets) {
		t.Fatalf("%q %v: facets %+v, want %+v", query.Text, query.Filter, got.Facets, want.Facets)
	}
	return got
}

// swappedTie reports whether hit i of got and want differ only because two
// scores equal but for the order their parts were summed in came out the
// other way round: want's hit i is got's neighbour of a near-equal score.
func swappedTie(got, want []mcpdir.Hit, i int) bool {
	for _, j := range []int{i - 1, i + 1} {
		if j >= 0 && j < len(got) && got[j].Entry.ID == want[i].Entry.ID &&
			math.Abs(got[j].Score-want[i].Score) <= 1e-5*want[i].Score {
			return true
		}
	}
	return false
}

// optionalClauses counts the clauses of query that requireClauses makes
// optional.
func (x *Index) optionalClauses(query string) int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	s := x.searcher()
	defer x.searchers.Put(s)
	if !s.parse(x, query) {
		return 0
	}
	n := 0
	for _, opt := range s.requireClauses(s.need()) {
		if opt {
			n++
		}
	}
	return n
}
