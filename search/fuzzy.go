package search

import "sort"

// maxFuzzyLen bounds the words that typo matching looks at; longer ones are
// not words people mistype but identifiers they paste.
const maxFuzzyLen = 32

// maxFuzzyFound bounds the near words gathered for one query word.
const maxFuzzyFound = 256

// typoBudget is how many edits a word of n bytes may have: one for 4–7, two
// from 8 on, none below (too many short words are one edit apart).
func typoBudget(n int) int {
	switch {
	case n >= 8:
		return 2
	case n >= 4:
		return 1
	}
	return 0
}

// fuzzyMatch is a dictionary word near a query word: dist edits from it
// (whole), or from one of its prefixes.
type fuzzyMatch struct {
	id    uint32
	dist  int
	whole bool
}

// fuzzyWalk finds the dictionary words within an edit budget of a query
// word, walking the sorted word list as an implicit trie with one row of the
// Damerau-Levenshtein (optimal string alignment) table per trie level, and
// pruning a branch as soon as no cell of its row is within budget. A word
// whose prefix is within budget matches as a prefix ("playwrite" →
// "playwright"), like the exact prefix match.
type fuzzyWalk struct {
	q      string
	budget int
	words  []string
	ids    []uint32
	rows   [maxFuzzyLen + 3][maxFuzzyLen + 1]int8
	found  []fuzzyMatch
}

func (fw *fuzzyWalk) run(d *dictionary, terms []term, q string, budget int) []fuzzyMatch {
	fw.q, fw.budget, fw.words, fw.ids = q, budget, d.words, d.ids
	fw.found = fw.found[:0]
	for j := 0; j <= len(q); j++ {
		fw.rows[0][j] = int8(j)
	}
	// People rarely mistype a word's first letter, and requiring it cuts
	// the walk by the size of the alphabet (Lucene's prefix length of 1).
	lo := sort.SearchStrings(d.words, q[:1])
	hi := lo + childEnd(d.words[lo:], 0, q[0])
	if lo < hi && fw.step(0, q[0], d.words[lo]) {
		fw.walk(lo, hi, 1)
	}
	for _, id := range d.pending {
		fw.check(id, terms[id].text, -1)
	}
	return fw.found
}

func (fw *fuzzyWalk) walk(lo, hi, depth int) {
	n := len(fw.q)
	dist := int(fw.rows[depth][n])
	if depth >= n && dist <= fw.budget {
		// The query is within budget of this prefix, which is no shorter
		// than the query: every word below matches, as a whole word if it
		// is itself near enough.
		for i := lo; i < hi && len(fw.found) < maxFuzzyFound; i++ {
			fw.check(fw.ids[i], fw.words[i], dist)
		}
		return
	}
	i := lo
	for ; i < hi && len(fw.words[i]) == depth; i++ {
		if dist <= fw.budget {
			fw.found = append(fw.found, fuzzyMatch{fw.ids[i], dist, true})
		}
	}
	if depth == n+fw.budget {
		return
	}
	for i < hi && len(fw.found) < maxFuzzyFound {
		w := fw.words[i]
		c := w[depth]
		j := i + childEnd(fw.words[i:hi], depth, c)
		if fw.step(depth, c, w) {
			fw.walk(i, j, depth+1)
		}
		i = j
	}
}

// childEnd returns how many of the sorted words have byte c at depth, all
// of them being at least depth+1 long and the first having c there.
func childEnd(words []string, depth int, c byte) int {
	lo, hi := 0, len(words)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if w := words[m]; len(w) > depth && w[depth] <= c {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// step fills the row for the prefix w[:depth+1] and reports whether any of
// its cells is within budget.
func (fw *fuzzyWalk) step(depth int, c byte, w string) bool {
	q := fw.q
	prev, cur := &fw.rows[depth], &fw.rows[depth+1]
	cur[0] = int8(depth + 1)
	best := cur[0]
	for j := 1; j <= len(q); j++ {
		cost := int8(1)
		if q[j-1] == c {
			cost = 0
		}
		v := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		if depth > 0 && j > 1 && q[j-1] == w[depth-1] && q[j-2] == c {
			v = min(v, fw.rows[depth-1][j-2]+1)
		}
		cur[j] = v
		best = min(best, v)
	}
	return int(best) <= fw.budget
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
		fw.found = append(fw.found, fuzzyMatch{id, whole, true})
	case prefix <= fw.budget:
		fw.found = append(fw.found, fuzzyMatch{id, prefix, false})
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
