package search

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/search/internal/releval"
)

// TestRankFastPathsChangeNothing checks that the ways ranking is made fast
// that a plain ranking does without (prunePrior) answer every judged
// query of every set exactly as the plain ranking does: the same hits in
// the same order with the same scores, the same total and facets, with and
// without a filter, at 1x and over an index of several copies of the
// corpus (which spans several scoring windows, as 1x does not).
func TestRankFastPathsChangeNothing(t *testing.T) {
	qs := allJudgedQueries(t)
	t.Run("1x", func(t *testing.T) { sameAsPlainRank(t, loadIndex(t), qs) })
	t.Run("4x", func(t *testing.T) {
		if testing.Short() {
			t.Skip("builds an index of 4 copies of the corpus")
		}
		entries, _ := loadCorpus(t)
		x := New()
		x.SetResultCache(0)
		x.Upsert(scaledEntries(entries, 4)...)
		if x.Len() <= 2*window {
			t.Fatalf("%d entries: want more than two windows", x.Len())
		}
		sameAsPlainRank(t, x, qs)
	})
}

func sameAsPlainRank(t *testing.T, x *Index, qs []releval.Query) {
	t.Helper()
	x.SetResultCache(0)
	filters := []mcpdir.Filter{{}, {Registry: "npm"}}
	answered := 0
	for _, q := range qs {
		for _, f := range filters {
			got := findBothWays(t, x, mcpdir.Query{Text: q.Query, Limit: 50, Filter: f, Facets: true}, &prunePrior,
				func(got, want []mcpdir.Hit, i int) bool {
					return got[i].Entry.ID == want[i].Entry.ID && got[i].Score == want[i].Score
				})
			if len(got.Hits) > 0 {
				answered++
			}
		}
	}
	// The test means something only if most queries are answered.
	if answered < len(qs) {
		t.Fatalf("only %d of %d searches answered", answered, 2*len(qs))
	}
	t.Logf("%d queries, %d of %d searches answered", len(qs), answered, 2*len(qs))
}

// allJudgedQueries are the queries of every judged set, each once, and
// every fourth of the sampled asks (sampledShare): all 4,480 of them, four
// searches each at two sizes, would take minutes under the race detector
// and add no shape the others lack.
func allJudgedQueries(tb testing.TB) []releval.Query {
	paths, err := filepath.Glob(filepath.Join("testdata", "*.jsonl"))
	if err != nil {
		tb.Fatal(err)
	}
	paths = append(paths, filepath.Join(sharedData(tb), "relevance", "dev.jsonl"))
	seen := map[string]bool{}
	var qs []releval.Query
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			tb.Fatal(err)
		}
		sampled := filepath.Base(p) == "sampled-asks.jsonl"
		for i, q := range readQueries(tb, p) {
			if sampled && i%sampledShare != 0 {
				continue
			}
			if q.Query != "" && !seen[q.Query] {
				seen[q.Query] = true
				qs = append(qs, q)
			}
		}
	}
	if len(qs) < 500 {
		tb.Fatalf("%d judged queries: want the sets", len(qs))
	}
	return qs
}

// sampledShare: one sampled ask in sampledShare is searched both ways.
const sampledShare = 4
