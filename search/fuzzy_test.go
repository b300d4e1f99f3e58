package search

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/packed"
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
	checkFuzzyWalk(t, "abcdeo", 1, 4)
	// Two edits, as the parser allows from 8 bytes, over more letters so
	// that fewer walks reach maxFuzzyFound.
	checkFuzzyWalk(t, "abcdefghijklo", 2, 8)
}

func checkFuzzyWalk(t *testing.T, alphabet string, budget, minLen int) {
	rng := rand.New(rand.NewPCG(7, 7))
	checked := 0
	randWord := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return string(b)
	}
	qs := make([]string, 300)
	for i := range qs {
		qs[i] = randWord(minLen + rng.IntN(4))
	}
	x := New()
	var es []*mcpdir.Entry
	for i := range 3000 {
		es = append(es, &mcpdir.Entry{ID: fmt.Sprint(i), Name: randWord(3 + rng.IntN(8))})
	}
	// Words an edit or two from the queries: swapped, changed, dropped or
	// added letters past the first, and some of them twice.
	for i, q := range qs {
		w := []byte(q)
		for range 1 + i%2 {
			j := 1 + rng.IntN(len(w)-2)
			switch rng.IntN(4) {
			case 0:
				w[j], w[j+1] = w[j+1], w[j]
			case 1:
				w[j] = alphabet[rng.IntN(len(alphabet))]
			case 2:
				w = append(w[:j:j], w[j+1:]...)
			default:
				w = append(w[:j:j], append([]byte{alphabet[rng.IntN(len(alphabet))]}, w[j:]...)...)
			}
		}
		es = append(es, &mcpdir.Entry{ID: fmt.Sprint("v", i), Name: string(w)}, &mcpdir.Entry{ID: fmt.Sprint("p", i), Name: string(w) + "xyz"})
	}
	x.Upsert(es...)
	var fw fuzzyWalk
	for _, q := range qs {
		got := map[string]lexicon.Near{}
		found := fw.run(&x.dict, x.terms, q, budget, 0)
		if len(found) >= maxFuzzyFound {
			continue // capped: brute force finds more
		}
		checked++
		for _, m := range found {
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
	if checked < 100 {
		t.Errorf("budget %d: %d walks checked, want more", budget, checked)
	}
}

// TestFuzzyWalkPruned checks that a walk that leaves out words of no more
// than over entries returns, in order, the near words of more entries that
// a walk over every word finds (TestFuzzyWalk), up to maxFuzzyFound of
// them; over an index loaded at once, then changed entry by entry, so that
// the dictionary's bounds of its words' entries are checked as they move.
func TestFuzzyWalkPruned(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 6))
	const alphabet = "abcdeo"
	randWord := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return string(b)
	}
	vocab := make([]string, 6000)
	for i := range vocab {
		vocab[i] = randWord(3 + rng.IntN(7))
	}
	// A fifth of the words share one of two prefixes, so that a walk
	// takes long runs of words below a node whole (and skips the blocks
	// of them all too rare), and those prefixes are among the queries.
	for i := 0; i < len(vocab); i += 5 {
		vocab[i] = []string{"abca", "odeb"}[i%2] + randWord(1+rng.IntN(4))
	}
	queries := append([]string{"abca", "abcao", "odeb", "odea"}, vocab[1:300]...)
	entry := func(i int) *mcpdir.Entry {
		// Words of skewed frequency: a few in many entries, most in few.
		ws := make([]string, 5)
		for j := range ws {
			ws[j] = vocab[int(float64(len(vocab))*math.Pow(rng.Float64(), 3))]
		}
		return &mcpdir.Entry{ID: fmt.Sprint(i), Name: ws[0], Brief: strings.Join(ws[1:], " ")}
	}
	x := New()
	var es []*mcpdir.Entry
	for i := range 5000 {
		es = append(es, entry(i))
	}
	x.Upsert(es...)
	var pruned fuzzyWalk
	capped, skipped := 0, 0
	check := func(stage string) {
		pending := map[uint32]bool{}
		for _, id := range x.dict.pending {
			pending[id] = true
		}
		for _, q := range queries {
			for budget := 1; budget <= 2; budget++ {
				// Every near word, by brute force: the merged ones in
				// order, then the pending ones, as the walk finds them.
				var near []lexicon.Near
				for i, w := range x.dict.words {
					if w[0] != q[0] {
						continue // the walk keeps the first letter
					}
					if whole, prefix := editDistances(q, w); whole <= budget {
						near = append(near, lexicon.Near{ID: x.dict.ids[i], Dist: whole, Whole: true})
					} else if prefix <= budget {
						near = append(near, lexicon.Near{ID: x.dict.ids[i], Dist: prefix})
					}
				}
				for _, over := range []uint32{1, 2, 8, 16, 40, 200} {
					var want []lexicon.Near
					for _, m := range near {
						if x.terms[m.ID].df > over {
							want = append(want, m)
						}
					}
					if len(want) < len(near) {
						skipped++
					}
					var got, gotPending []lexicon.Near
					for _, m := range pruned.run(&x.dict, x.terms, q, budget, over) {
						switch {
						case pending[m.ID]:
							gotPending = append(gotPending, m)
						case x.terms[m.ID].df <= over:
							t.Fatalf("%s: %q, budget %d, over %d: the walk kept %q, of %d entries", stage, q, budget, over, x.terms[m.ID].text, x.terms[m.ID].df)
						default:
							got = append(got, m)
						}
					}
					if len(want) > maxFuzzyFound {
						capped++
						if len(got) < maxFuzzyFound {
							t.Fatalf("%s: %q, budget %d, over %d: %d words found, want at least %d", stage, q, budget, over, len(got), maxFuzzyFound)
						}
						want = want[:min(len(got), len(want))]
					}
					if !slices.Equal(got, want) {
						t.Fatalf("%s: %q, budget %d, over %d: pruned walk found %v, want %v", stage, q, budget, over, got, want)
					}
					for _, m := range gotPending {
						if whole, prefix := editDistances(q, x.terms[m.ID].text); min(whole, prefix) > budget {
							t.Fatalf("%s: %q, budget %d: pending %q is too far", stage, q, budget, x.terms[m.ID].text)
						}
					}
				}
			}
		}
	}
	check("loaded")
	for i := range 600 {
		x.Upsert(entry(5000 + i))
		if i%3 == 0 {
			x.Remove(fmt.Sprint(rng.IntN(5000)))
		}
	}
	check("changed")
	if capped == 0 || skipped == 0 {
		t.Errorf("%d capped walks, %d pruned ones: want some of each", capped, skipped)
	}
}

// TestDictionaryBoundsRise checks that the bound of a block of the
// dictionary's words rises with their entries as they are added, before
// the next merge of new words makes the bounds exact again: between the
// chunks of a large upsert, searches run on them.
func TestDictionaryBoundsRise(t *testing.T) {
	x := New()
	x.Upsert(&mcpdir.Entry{ID: "1", Name: "alpha", Brief: "bravo charlie"}, &mcpdir.Entry{ID: "2", Name: "delta"})
	var a analyzer
	for i := range 50 {
		var out analyzed
		e := &mcpdir.Entry{ID: fmt.Sprint("n", i), Name: "bravo", Brief: "new" + fmt.Sprint(i)}
		a.analyze(&out, e, packed.Pack(e))
		x.add(&out) // as an upsert's chunk does, before its words are merged
	}
	if len(x.dict.pending) == 0 {
		t.Fatal("no word waits to be merged: the test adds none")
	}
	for i, id := range x.dict.ids {
		if df := x.terms[id].df; x.dict.dfs[i] < df || x.dict.blockMax[i/dfBlock] < df {
			t.Errorf("%q in %d entries, its bound %d, its block's %d", x.dict.words[i], df, x.dict.dfs[i], x.dict.blockMax[i/dfBlock])
		}
	}
	id := x.termIDs["bravo"]
	if p := x.dict.pos[id]; !x.dict.anyOver(int(p), int(p)+1, 40) {
		t.Errorf("bravo, in %d entries, not found over 40", x.terms[id].df)
	}
}

// The dictionary's search by heads finds where sort.SearchStrings does.
func TestDictionarySearch(t *testing.T) {
	x := New()
	for i, n := range []string{"postgres", "postgresql", "post", "postgres-mcp", "a", "ab", "abcdefgh", "abcdefghi", "abcdefgg", "zz", "\xffx", "über"} {
		x.Upsert(&mcpdir.Entry{ID: fmt.Sprint(i), Name: n})
	}
	for _, w := range append(slices.Clone(x.dict.words), "", "a", "abcdefgh", "abcdefgha", "abcdefg", "po", "postgres", "postgresqm", "zzz", "\xff", "ü", "~") {
		for _, p := range []string{w, w[:min(1, len(w))], w[:min(8, len(w))], w + "a"} {
			if want, got := sort.SearchStrings(x.dict.words, p), x.dict.search(p); got != want {
				t.Errorf("search(%q) = %d, want %d", p, got, want)
			}
		}
	}
}

// childEnd counts what a scan counts: for every
// run of words sharing a prefix, and for a letter no word begins with.
func TestChildEnd(t *testing.T) {
	x := randomWordIndex(5)
	d := &x.dict
	if got := d.childEnd(d.search("d"), len(d.words), 0, 'd'); got != 0 {
		t.Errorf("childEnd for a missing first letter = %d, want 0", got)
	}
	checked := 0
	for depth := range 5 {
		// Each prefix of depth bytes is a node; its children are counted.
		for lo := 0; lo < len(d.words); {
			hi := lo + 1
			if len(d.words[lo]) < depth {
				lo = hi
				continue
			}
			for hi < len(d.words) && len(d.words[hi]) >= depth && d.words[hi][:depth] == d.words[lo][:depth] {
				hi++
			}
			i := lo
			for i < hi && len(d.words[i]) == depth {
				i++
			}
			for i < hi {
				c, want := d.words[i][depth], 0
				for want < hi-i && d.words[i+want][depth] == c {
					want++
				}
				if got := d.childEnd(i, hi, depth, c); got != want {
					t.Fatalf("childEnd(%d, %d, %d, %q) = %d, want %d", i, hi, depth, c, got, want)
				}
				checked++
				i += want
			}
			lo = hi
		}
	}
	if checked < 500 {
		t.Errorf("%d children checked, want more", checked)
	}
}

// randomWordIndex indexes 2,000 entries named by random words of one to six
// of the letters a, b, c and x: dense runs of shared prefixes, for checking
// walks of the dictionary against brute force.
func randomWordIndex(seed uint64) *Index {
	x := New()
	rng := rand.New(rand.NewPCG(seed, seed))
	for i := range 2000 {
		b := make([]byte, 1+rng.IntN(6))
		for j := range b {
			b[j] = "abcx"[rng.IntN(4)]
		}
		x.Upsert(&mcpdir.Entry{ID: fmt.Sprint(i), Name: string(b)})
	}
	return x
}
