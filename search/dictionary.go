package search

import (
	"math"
	"slices"
	"sort"
)

// dictionary keeps the words of the index sorted, for prefix and typo
// lookups. New words wait in pending (searched linearly) and are merged in
// batches, so that a bulk load does not re-sort on every entry.
type dictionary struct {
	words   []string
	heads   []uint64 // head of each word, so that walks mostly skip the words
	ids     []uint32
	pending []uint32
	// pos is each merged word's place in words, by term id (noPos for a
	// pending one); dfs bounds each place's df, and blockMax the df of
	// the words of each block of dfBlock places (both rise with a word's
	// df, and are made exact again at a merge), so that a typo walk skips
	// the branches whose words are all too rare to be of use
	// (fuzzyWalk.run).
	pos      []uint32
	dfs      []uint32
	blockMax []uint32
}

// dfBlock is how many sorted words share a bound of their df.
const dfBlock = 32

const noPos = math.MaxUint32

// raised notes that term id's df rose to df.
func (d *dictionary) raised(id, df uint32) {
	if int(id) < len(d.pos) {
		if p := d.pos[id]; p != noPos && df > d.dfs[p] {
			d.dfs[p] = df
			d.blockMax[p/dfBlock] = max(d.blockMax[p/dfBlock], df)
		}
	}
}

// anyOver reports whether a word of the sorted words [lo, hi) may be in
// more than over entries: false means that none is.
func (d *dictionary) anyOver(lo, hi int, over uint32) bool {
	for lo < hi && lo%dfBlock != 0 {
		if d.dfs[lo] > over {
			return true
		}
		lo++
	}
	for ; lo+dfBlock <= hi; lo += dfBlock {
		if d.blockMax[lo/dfBlock] > over {
			return true
		}
	}
	for ; lo < hi; lo++ {
		if d.dfs[lo] > over {
			return true
		}
	}
	return false
}

// flush merges pending words in; while more are coming (lazy) it waits
// until they are numerous enough to be worth a merge.
func (d *dictionary) flush(terms []term, lazy bool) {
	if len(d.pending) == 0 || lazy && len(d.pending) < max(4096, len(d.words)/8) {
		return
	}
	sort.Slice(d.pending, func(i, j int) bool { return terms[d.pending[i]].text < terms[d.pending[j]].text })
	words := make([]string, 0, len(d.words)+len(d.pending))
	ids := make([]uint32, 0, cap(words))
	i, j := 0, 0
	for i < len(d.words) || j < len(d.pending) {
		if j == len(d.pending) || i < len(d.words) && d.words[i] < terms[d.pending[j]].text {
			words, ids = append(words, d.words[i]), append(ids, d.ids[i])
			i++
		} else {
			id := d.pending[j]
			words, ids = append(words, terms[id].text), append(ids, id)
			j++
		}
	}
	heads := make([]uint64, len(words))
	for i, w := range words {
		heads[i] = head(w)
	}
	d.words, d.heads, d.ids, d.pending = words, heads, ids, d.pending[:0]
	d.pos = slices.Grow(d.pos[:0], len(terms))[:len(terms)]
	for i := range d.pos {
		d.pos[i] = noPos
	}
	d.dfs = slices.Grow(d.dfs[:0], len(ids))[:len(ids)]
	d.blockMax = slices.Grow(d.blockMax[:0], (len(ids)+dfBlock-1)/dfBlock)[:(len(ids)+dfBlock-1)/dfBlock]
	clear(d.blockMax)
	for i, id := range ids {
		d.pos[id], d.dfs[i] = uint32(i), terms[id].df
		d.blockMax[i/dfBlock] = max(d.blockMax[i/dfBlock], terms[id].df)
	}
}

// byteAt is byte depth of word i, which has one; the first bytes come from
// heads, without reading the word.
func (d *dictionary) byteAt(i, depth int) byte {
	if depth < 8 {
		return byte(d.heads[i] >> (56 - 8*depth))
	}
	return d.words[i][depth]
}

// childEnd returns how many of the sorted words [lo, hi) have byte c at
// depth, all of them being at least depth+1 long and the first having c
// there.
func (d *dictionary) childEnd(lo, hi, depth int, c byte) int {
	start := lo
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if d.byteAt(m, depth) <= c {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo - start
}

// search returns the index of the first word no less than w, as
// sort.SearchStrings does, comparing the words' heads first: most steps
// of the search then read no word.
func (d *dictionary) search(w string) int {
	hw := head(w)
	lo, hi := 0, len(d.words)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if h := d.heads[m]; h < hw || h == hw && d.words[m] < w {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// head packs the first 8 bytes of a word into a number, the first byte
// highest.
func head(w string) uint64 {
	var h uint64
	for i := range 8 {
		h <<= 8
		if i < len(w) {
			h |= uint64(w[i])
		}
	}
	return h
}
