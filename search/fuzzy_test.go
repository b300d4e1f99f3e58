package search

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/search/lexicon"
)

func TestEditDistances(t *testing.T) {
	tests := []struct {
		q, w          string
		whole, prefix int
	}{
		{"gihtub", "github", 1, 1},         // transposition
		{"postgress", "postgres", 1, 9},    // deletion; no prefix as long as the query
		{"postgress", "postgresql", 2, 1},  // substitution, then insertion
		{"confluance", "confluence", 1, 1}, // substitution
		{"playwrite", "playwright", 3, 2},  // near a prefix only
		{"spotfy", "spotify", 1, 1},        // insertion
	}
	for _, tt := range tests {
		whole, prefix := editDistances(tt.q, tt.w)
		if whole != tt.whole || prefix != tt.prefix {
			t.Errorf("editDistances(%q, %q) = %d, %d; want %d, %d", tt.q, tt.w, whole, prefix, tt.whole, tt.prefix)
		}
	}
}

// TestFuzzyWalk checks the banded trie walk against brute force.
func TestFuzzyWalk(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	alphabet := "abcdeo"
	randWord := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return string(b)
	}
	x := New()
	var es []*mcpdir.Entry
	for i := range 3000 {
		es = append(es, &mcpdir.Entry{ID: fmt.Sprint(i), Name: randWord(3 + rng.IntN(8))})
	}
	x.Upsert(es...)
	var fw fuzzyWalk
	for range 200 {
		q := randWord(4 + rng.IntN(7))
		budget := 1 // as the parser allows words of 4 to 7 bytes
		got := map[string]lexicon.Near{}
		for _, m := range fw.run(&x.dict, x.terms, q, budget) {
			got[x.terms[m.ID].text] = m
		}
		for _, w := range x.dict.words {
			if w[0] != q[0] {
				continue // the walk keeps the first letter
			}
			whole, prefix := editDistances(q, w)
			m, ok := got[w]
			switch {
			case whole <= budget:
				if !ok || !m.Whole || m.Dist != whole {
					t.Errorf("%q ~ %q: distance %d, walk found %+v, %v", q, w, whole, m, ok)
				}
			case prefix <= budget:
				if !ok || m.Whole || m.Dist != prefix {
					t.Errorf("%q ~ %q as prefix: distance %d, walk found %+v, %v", q, w, prefix, m, ok)
				}
			case ok:
				t.Errorf("%q ~ %q: too far (%d, %d), walk found %+v", q, w, whole, prefix, m)
			}
		}
	}
}
