package search

import (
	"reflect"
	"slices"
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

// TestWordAnalysisIndependentOfEarlierQueries asks two queries that share
// a word in both orders, each on an index that has answered the other
// first: every answer must be the one a fresh index gives. A word meant in
// a concept's sense ("book" of "book a hotel", "book a room") is analysed
// by the other words of its query (is "hotel" or "room" a word some entry
// has?), and the cache of word analyses once served the first query's
// analysis to the second.
func TestWordAnalysisIndependentOfEarlierQueries(t *testing.T) {
	entries := func() []*mcpdir.Entry {
		return []*mcpdir.Entry{
			entry("bookstack-mcp", "Read and write book pages in a BookStack wiki", 10),
			entry("chat-rooms-mcp", "Join a chat room and post messages", 10),
			entry("notes-mcp", "Take notes in markdown", 0),
			entry("cloud-pricing-mcp", "Look up cloud prices and estimate costs", 0),
		}
	}
	for _, pair := range [][2]string{
		{"book a hotel", "book a room"},
		{"book a flight", "book a table"},
		{"stock prices", "cloud prices"},
		{"stock prices", "prices"},
	} {
		fresh := make(map[string][]string)
		for _, q := range pair {
			fresh[q] = names(indexOf(entries()).Search(q, 10))
		}
		for _, order := range [][2]string{pair, {pair[1], pair[0]}} {
			x := indexOf(entries())
			for _, q := range order {
				if got := names(x.Search(q, 10)); !slices.Equal(got, fresh[q]) {
					t.Errorf("%q after %q: %v, a fresh index %v", q, order[0], got, fresh[q])
				}
			}
		}
	}
}
