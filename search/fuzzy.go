package search

import (
	"github.com/mcpdir/mcpdir/search/lexicon"
)

// maxFuzzyLen bounds the words that typo matching looks at.
const maxFuzzyLen = lexicon.MaxTypoLen

// maxFuzzyFound bounds the near words gathered for one query word.
const maxFuzzyFound = 256

// fuzzyWalk finds the dictionary words within an edit budget of a query
// word, walking the sorted word list as an implicit trie with one row of the
// Damerau-Levenshtein (optimal string alignment) table per trie level, and
// pruning a branch as soon as no cell of its row is within budget. A word
// whose prefix is within budget matches as a prefix ("playwrite" →
// "playwright"), like the exact prefix match.
type fuzzyWalk struct {
	q      string
	budget int
	d      *dictionary
	rows   [maxFuzzyLen + 3][maxFuzzyLen + 1]int8
	found  []lexicon.Near
	// at[c] has bit j set where q[j-1] == c (j from 1): a cell's match
	// and a transposition are read from it, not from the query.
	at [256]uint64
	// Words found in no more than over entries are of no use to the
	// caller (prune): the walk leaves them out, and skips the branches
	// whose words all are (dictionary.anyOver).
	terms []term
	prune bool
	over  uint32
}

// run returns the words within budget edits of q, as whole words or by a
// prefix: the dictionary's that begin with q's first letter, and pending
// ones.
//
// Words found in no more than over entries are left out (over > 0): the
// returned words are then those of the full walk found in more, in the
// same order, up to maxFuzzyFound of them. (So where the full walk would
// stop at maxFuzzyFound words, some of them too rare, this one goes on to
// find as many that are not.)
func (fw *fuzzyWalk) run(d *dictionary, terms []term, q string, budget int, over uint32) []lexicon.Near {
	for i := 0; i < len(fw.q); i++ {
		fw.at[fw.q[i]] = 0
	}
	fw.q, fw.budget, fw.d, fw.terms = q, budget, d, terms
	fw.found = fw.found[:0]
	fw.over, fw.prune = over, over > 0
	for i := 0; i < len(q); i++ {
		fw.at[q[i]] |= 1 << (i + 1)
	}
	for j := 0; j <= len(q); j++ {
		fw.rows[0][j] = int8(j)
	}
	// People rarely mistype a word's first letter, and requiring it cuts
	// the walk by the size of the alphabet (Lucene's prefix length of 1).
	lo := d.search(q[:1])
	hi := lo + d.childEnd(lo, len(d.words), 0, q[0])
	if lo < hi && fw.step(0, q[0], 0) {
		fw.walk(lo, hi, 1, q[0])
	}
	for _, id := range d.pending {
		fw.check(id, terms[id].text, -1)
	}
	fw.terms = nil
	return fw.found
}

// rare reports whether the walk leaves out word id as too rare.
func (fw *fuzzyWalk) rare(id uint32) bool {
	return fw.prune && fw.terms[id].df <= fw.over
}

// walk visits the trie node of the words [lo, hi), which share a prefix of
// length depth ending in byte last.
func (fw *fuzzyWalk) walk(lo, hi, depth int, last byte) {
	d, n := fw.d, len(fw.q)
	dist := int(fw.rows[depth][n])
	if depth >= n && dist <= fw.budget {
		// The query is within budget of this prefix, which is no shorter
		// than the query: every word below matches, as a whole word if it
		// is itself near enough. Blocks of words all too rare are
		// skipped whole.
		for i := lo; i < hi && len(fw.found) < maxFuzzyFound; i++ {
			if fw.prune && i%dfBlock == 0 && i+dfBlock <= hi && d.blockMax[i/dfBlock] <= fw.over {
				i += dfBlock - 1
				continue
			}
			if !fw.rare(d.ids[i]) {
				fw.check(d.ids[i], d.words[i], dist)
			}
		}
		return
	}
	i := lo
	for ; i < hi && len(d.words[i]) == depth; i++ {
		if dist <= fw.budget && !fw.rare(d.ids[i]) {
			fw.found = append(fw.found, lexicon.Near{ID: d.ids[i], Dist: dist, Whole: true})
		}
	}
	if depth == n+fw.budget {
		return
	}
	for i < hi && len(fw.found) < maxFuzzyFound {
		c := d.byteAt(i, depth)
		j := i + d.childEnd(i, hi, depth, c)
		if (!fw.prune || d.anyOver(i, j, fw.over)) && fw.step(depth, c, last) {
			fw.walk(i, j, depth+1, c)
		}
		i = j
	}
}

// step fills the row for the prefix of length depth+1 ending in byte c
// after byte last, and reports whether any of its cells is within budget. Only the cells within budget of the diagonal
// can be, so only that band is computed; the cells bordering it, and the
// last one (which walk reads), are set above budget.
func (fw *fuzzyWalk) step(depth int, c, last byte) bool {
	q, r := fw.q, depth+1
	prev, cur := &fw.rows[depth], &fw.rows[r]
	over := int8(fw.budget + 1)
	lo, hi := max(1, r-fw.budget), min(len(q), r+fw.budget)
	best := over
	if lo == 1 {
		cur[0] = int8(r)
		best = min(best, cur[0])
	} else {
		cur[lo-1] = over
	}
	// Cells where q[j-1] == c cost nothing on the diagonal; where
	// q[j-1] == last and q[j-2] == c, a transposition may be cheaper.
	match := fw.at[c]
	var swap uint64
	if depth > 0 {
		swap = fw.at[last] & (match << 1)
	}
	for j := lo; j <= hi; j++ {
		v := min(prev[j], cur[j-1]) + 1
		v = min(v, prev[j-1]+1-int8(match>>j&1))
		if swap>>j&1 != 0 {
			v = min(v, fw.rows[depth-1][j-2]+1)
		}
		cur[j] = v
		best = min(best, v)
	}
	if hi < len(q) {
		cur[hi+1] = over
		cur[len(q)] = over
	}
	return best < over
}

// check adds word w if it is near the query: as a whole word, or else as a
// word starting with a prefix prefixDist edits away (-1: not known yet).
func (fw *fuzzyWalk) check(id uint32, w string, prefixDist int) {
	whole, prefix := editDistances(fw.q, w)
	if prefixDist >= 0 {
		prefix = min(prefix, prefixDist)
	}
	switch {
	case whole <= fw.budget:
		fw.found = append(fw.found, lexicon.Near{ID: id, Dist: whole, Whole: true})
	case prefix <= fw.budget:
		fw.found = append(fw.found, lexicon.Near{ID: id, Dist: prefix})
	}
}

// editDistances returns the optimal-string-alignment distance between q and
// w, and between q and the nearest prefix of w no shorter than q.
func editDistances(q, w string) (whole, prefix int) {
	if len(q) > maxFuzzyLen || len(w) > 2*maxFuzzyLen {
		return len(q) + len(w), len(q) + len(w)
	}
	// d[i][j] is the distance between q[:j] and w[:i]; three rows suffice.
	var rows [3][maxFuzzyLen + 1]int
	for j := 0; j <= len(q); j++ {
		rows[0][j] = j
	}
	prefix = len(q)
	for i := 1; i <= len(w); i++ {
		cur, prev, prev2 := &rows[i%3], &rows[(i-1)%3], &rows[(i+1)%3]
		cur[0] = i
		for j := 1; j <= len(q); j++ {
			cost := 1
			if q[j-1] == w[i-1] {
				cost = 0
			}
			v := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && q[j-1] == w[i-2] && q[j-2] == w[i-1] {
				v = min(v, prev2[j-2]+1)
			}
			cur[j] = v
		}
		if i >= len(q) {
			prefix = min(prefix, cur[len(q)])
		}
	}
	return rows[len(w)%3][len(q)], prefix
}
