package search

import (
	"sort"
	"strings"

	"github.com/mcpdir/mcpdir/search/lexicon"
)

// vocabulary is the index's words as the query parser reads them
// (lexicon.Vocabulary), under the search's read lock; it finds typos with
// the search's own walk.
type vocabulary struct {
	x     *Index
	fuzzy *fuzzyWalk
}

// Term finds a word some live entry has. A word that only removed or
// replaced entries had stays in the dictionary until compaction, and is no
// word of the index: the query reads as it will once compaction drops it,
// and as on a replica that indexed the same entries afresh.
func (v *vocabulary) Term(w string) (uint32, bool) {
	id, ok := v.x.termIDs[w]
	return id, ok && v.x.terms[id].df > 0
}

func (v *vocabulary) Text(id uint32) string { return v.x.terms[id].text }

func (v *vocabulary) Stats(id uint32) (df, nameDF uint32) {
	t := &v.x.terms[id]
	return t.df, t.nameDF
}

func (v *vocabulary) SameStem(st string, n int, f func(id uint32)) {
	head, ok := v.x.stemHeads[st]
	if !ok {
		return
	}
	id := head
	for n > 0 {
		t := &v.x.terms[id]
		if t.df > 0 { // (no dead word takes a live one's place)
			f(id)
			n--
		}
		if id = t.sameStem; id == head {
			return
		}
	}
}

func (v *vocabulary) Prefixed(w string, f func(id uint32, text string)) {
	d := &v.x.dict
	for i := d.search(w); i < len(d.words) && strings.HasPrefix(d.words[i], w); i++ {
		f(d.ids[i], d.words[i])
	}
	for _, id := range d.pending {
		if t := v.x.terms[id].text; strings.HasPrefix(t, w) {
			f(id, t)
		}
	}
}

func (v *vocabulary) Next(w string) uint64 {
	d := &v.x.dict
	lo := d.search(w)
	hi := lo + sort.Search(len(d.words)-lo, func(i int) bool { return !strings.HasPrefix(d.words[lo+i], w) })
	if lo < hi && len(d.words[lo]) == len(w) {
		lo++ // w itself
	}
	var set uint64
	for lo < hi {
		c := d.words[lo][len(w)]
		set |= 1 << (c % 64)
		lo += d.childEnd(lo, hi, len(w), c)
	}
	for _, id := range d.pending {
		if t := v.x.terms[id].text; len(t) > len(w) && strings.HasPrefix(t, w) {
			set |= 1 << (t[len(w)] % 64)
		}
	}
	return set
}

func (v *vocabulary) Near(w string, budget int, over uint32) []lexicon.Near {
	return v.fuzzy.run(&v.x.dict, v.x.terms, w, budget, over)
}

// maxTogetherDF bounds the entries Together reads: a word of more entries
// than this is taken to be found with any other.
const maxTogetherDF = 2000

func (v *vocabulary) Together(a, b string) bool {
	x := v.x
	ring := func(st string, f func(id uint32)) { v.SameStem(st, lexicon.MaxStemRing, f) }
	df := func(st string) uint32 {
		n := uint32(0)
		ring(st, func(id uint32) { n += x.terms[id].df })
		return n
	}
	if df(a) > df(b) {
		a, b = b, a
	}
	if df(a) == 0 {
		return false
	}
	if df(a) > maxTogetherDF {
		return true
	}
	seen := map[uint32]bool{}
	ring(a, func(id uint32) {
		p := postings{b: x.terms[id].postings}
		for p.next() {
			if x.liveBits[p.doc/64]&(1<<(p.doc%64)) != 0 {
				seen[p.doc] = true
			}
		}
	})
	found := false
	ring(b, func(id uint32) {
		p := postings{b: x.terms[id].postings}
		for !found && p.next() {
			found = seen[p.doc]
		}
	})
	return found
}

func (v *vocabulary) Live() int { return v.x.live }

func (v *vocabulary) Generation() uint64 { return v.x.gen }

// parse turns the query into the searcher's clauses over the index's words;
// it reports false when there is nothing to search for.
func (s *searcher) parse(x *Index, q string) bool {
	s.vocab = vocabulary{x: x, fuzzy: &s.fuzzy}
	return s.parser.Parse(&s.vocab, &x.params.Lexicon, x.clauses, q)
}
