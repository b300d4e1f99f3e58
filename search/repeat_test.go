package search

import (
	"fmt"
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

// TestParseIndependentOfEarlierQueries parses queries in turn with one
// searcher, as the pool hands one out, and each must read as it does to a
// fresh searcher. A foreign query whose compound is cut in two
// ("extraire" → extr, aire) once left two places of the searcher's word
// list sharing the arrays of their concepts, so that a later query's
// adjacent words ("containment namespacing") each named the other's
// concepts: the answer depended on which searcher a query was given, and
// changed under concurrent searches.
func TestParseIndependentOfEarlierQueries(t *testing.T) {
	x := indexOf([]*mcpdir.Entry{
		entry("extr-mcp", "Extr reads aire quality sensors", 0),
		entry("kube-mcp", "Manage Kubernetes pods, namespaces and containers", 0),
		entry("text-mcp", "Extract text and tables from PDF files", 0),
		entry("images-mcp", "Generate images", 0),
		entry("bright-mcp", "Bright data for containment", 0),
	})
	reused := &searcher{}
	for _, q := range []string{
		"nagios vrm sonos geeknews",
		"extraire le texte et les tableaux d'un fichier PDF",
		"imagens ntsa",
		"openscreen dokumente disclosed",
		"bright functiontool containment namespacing",
	} {
		fresh := &searcher{}
		fresh.parse(x, q)
		reused.parse(x, q)
		// (as printed: a clause's empty expansions may be nil or not)
		if got, want := fmt.Sprintf("%+v", reused.parser.Clauses), fmt.Sprintf("%+v", fresh.parser.Clauses); got != want {
			t.Errorf("%q after earlier queries: clauses\n%s\nto a fresh searcher\n%s", q, got, want)
		}
	}
}
