package search

import (
	"reflect"
	"testing"

	"github.com/mcpdir/mcpdir"
)

// TestRepeatedQueriesAnswerAlike searches every judged query, keyword and
// sentence, once, then all again: the second answer, from the cached
// analysis of the words and a searcher reused from the pool, must be the
// first's. (A searcher once kept two clauses on one array of expansions,
// and a Chinese question's second answer was another's.)
func TestRepeatedQueriesAnswerAlike(t *testing.T) {
	x := loadIndex(t)
	qs := judgedQueries(t)
	first := make([][]string, len(qs))
	for i, q := range qs {
		first[i] = hitIDs(x.Search(q.Query, 50).Hits)
	}
	for i, q := range qs {
		if again := hitIDs(x.Search(q.Query, 50).Hits); !reflect.DeepEqual(again, first[i]) {
			t.Errorf("%q: searched again, %d hits %.3v, first %d hits %.3v", q.Query, len(again), again, len(first[i]), first[i])
		}
	}
}

func hitIDs(hits []mcpdir.Hit) []string {
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.Entry.ID
	}
	return ids
}
