package search

import (
	"strings"
	"testing"

	"github.com/mcpdir/mcpdir/search/lexicon"
)

// TestTogether checks Vocabulary.Together: whether a live entry has a word
// of each of two stems, through every word of each stem, and not through a
// removed entry.
func TestTogether(t *testing.T) {
	x := New()
	x.Upsert(entry("sheets", "Share spreadsheets with your team", 0),
		entry("aws-pricing", "Look up current AWS prices", 0),
		entry("market", "Shares and their price history", 0),
		entry("gone", "Sharing a price list", 0))
	x.Remove(entry("gone", "", 0).ID)
	x.mu.RLock()
	defer x.mu.RUnlock()
	v := vocabulary{x: x}
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"share", "price", true}, // "shares" and "price" of market
		{"price", "share", true}, // either order
		{"aws", "share", false},  // never in one entry
		{"spreadsheet", "aws", false},
		{"list", "price", false},    // only in the removed entry
		{"weather", "price", false}, // a stem no entry has
	} {
		if got := v.Together(lexicon.Stem(c.a), lexicon.Stem(c.b)); got != c.want {
			t.Errorf("Together(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

// TestNext checks Vocabulary.Next against every word of a dictionary of
// random words, for each of their prefixes and for words it lacks.
func TestNext(t *testing.T) {
	x := randomWordIndex(3)
	x.mu.RLock()
	defer x.mu.RUnlock()
	v := vocabulary{x: x}
	words := x.dict.words
	checked := 0
	for _, t0 := range append([]string{"d", "abd", "xxxxxxxx"}, words...) {
		for n := 1; n <= len(t0); n++ {
			w := t0[:n]
			var want uint64
			for _, t := range words {
				if len(t) > len(w) && strings.HasPrefix(t, w) {
					want |= 1 << (t[len(w)] % 64)
				}
			}
			if got := v.Next(w); got != want {
				t.Fatalf("Next(%q) = %b, want %b", w, got, want)
			}
			checked++
		}
	}
	if checked < 1000 {
		t.Fatalf("only %d words checked", checked)
	}
}
