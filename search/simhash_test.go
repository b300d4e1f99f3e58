package search

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/mcpdir/mcpdir/search/lexicon"
)

// TestSimhashAsDefined holds simhash, which adds and takes away without
// branching, to its definition: a bit of the hash is set where more of the
// text's words (not parts, not stop words) have it set in their FNV-1a
// hash than not. Near-duplicates are told by these bits.
func TestSimhashAsDefined(t *testing.T) {
	want := func(text string) uint64 {
		var set [64]int
		n := 0
		lexicon.Tokenize(text, func(w string, part bool) {
			if part || lexicon.IsStop(w) {
				return
			}
			n++
			x := uint64(14695981039346656037)
			for i := 0; i < len(w); i++ {
				x = (x ^ uint64(w[i])) * 1099511628211
			}
			for i := range set {
				if x&(1<<i) != 0 {
					set[i]++
				}
			}
		})
		var s uint64
		for i, c := range set {
			if 2*c > n {
				s |= 1 << i
			}
		}
		return s
	}
	words := strings.Fields("lets an agent query postgres databases and files with sql the of PostgresMCP read write search web browser automation tools weather forecast")
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		var b strings.Builder
		for range rng.IntN(40) {
			b.WriteString(words[rng.IntN(len(words))])
			b.WriteByte(' ')
		}
		if got, w := simhash(b.String()), want(b.String()); got != w {
			t.Fatalf("simhash(%q) = %064b, want %064b", b.String(), got, w)
		}
	}
}
