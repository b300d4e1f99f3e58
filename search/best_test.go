package search

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/packed"
)

// TestKeepBestKeepsWhatSelectingKeeps checks that keepBest keeps the hits
// an exact selection keeps, and the worst of them as the bar, when many
// hits share the k-th score (ties broken by their keys) and when none do.
func TestKeepBestKeepsWhatSelectingKeeps(t *testing.T) {
	x := &Index{docs: make([]doc, 180)}
	for i := range x.docs {
		e := mcpdir.Entry{ID: fmt.Sprint(i), Name: fmt.Sprint("server-", i)}
		x.packs = append(x.packs, packed.Pack(&e))
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for round := range 2000 {
		k := 1 + rng.IntN(90)
		levels := 1 + rng.IntN(2*k) // few levels: many ties
		if round%2 == 0 {
			levels = 1 << 20
		}
		hs := make([]hit, 2*k)
		for i := range hs {
			hs[i] = hit{doc: uint32(i), score: float32(rng.IntN(levels)), tie: rng.Uint64()}
		}
		want := slices.Clone(hs)
		x.selectBest(want, k)
		want = want[:k]
		s := &searcher{best: slices.Clone(hs)}
		s.keepBest(x, k)
		if len(s.best) != k {
			t.Fatalf("k %d: kept %d hits", k, len(s.best))
		}
		worst := want[0].score
		for _, h := range want {
			worst = min(worst, h.score)
		}
		if s.bar != worst {
			t.Fatalf("k %d: bar %v, want %v", k, s.bar, worst)
		}
		byDoc := func(a, b hit) int { return int(a.doc) - int(b.doc) }
		slices.SortFunc(want, byDoc)
		slices.SortFunc(s.best, byDoc)
		if !slices.Equal(s.best, want) {
			t.Fatalf("k %d, %d score levels: kept %v, want %v", k, levels, s.best, want)
		}
	}
}
