package search

import (
	"math"
	"math/bits"
	"strings"

	"github.com/mcpdir/mcpdir/search/lexicon"
)

// The best hits of a search: selected from the candidates that scored
// above the bar, ordered, and near-duplicates (a server's forks and
// republished copies) moved out of the leading ones.

// collapseTop is how many leading hits are kept free of near-duplicates.
const collapseTop = 10

// collapseSlack is how many extra candidates are ranked beyond the limit,
// to fill the leading hits when near-duplicates are moved down.
const collapseSlack = 30

// hit is a ranked candidate.
type hit struct {
	doc   uint32
	score float32
	tie   uint64  // tieKey of the doc
	idf   float32 // the share of the query's IDF it covers, unnormalised
	sure  bool    // some clause matched it by an expansion that is not weak
}

// rankFacts is what a search reads of every entry that matches: its facet
// values (for filters and counts) and, for an entry that may be among the
// best, its prior, language and tie key. Kept together, a match costs one
// cache miss, not one an array: at 24 bytes, three in four lie in one
// cache line.
type rankFacts struct {
	tie    uint64 // tieKey
	prior  float32
	facets facetIDs
	lang   lexicon.Lang
}

// tieKey orders entries of equal scores as betterTie does, as far as 64
// bits tell: the popularity (up to 2^32-1) over the name's first 4 bytes.
// Where two keys are equal, betterTie decides: ties are common, and a key
// in the hit spares selecting and sorting reading two entries a compare.
// A popularity the key cannot hold is kept as its bound over zeros.
func tieKey(popularity int64, name string) uint64 {
	if popularity < 0 || popularity >= math.MaxUint32 {
		return uint64(min(max(popularity, 0), math.MaxUint32)) << 32
	}
	return uint64(popularity)<<32 | uint64(^uint32(head(name)>>32))
}

// leading returns the first limit of the best k hits of hs, best first,
// near-duplicates moved down (reordering hs). better is a total order, so
// the order is the one any sort gives. The best limit are selected and
// sorted first: collapse rarely reaches past them, and the slack is
// selected and sorted only when it does.
func (x *Index) leading(hs []hit, k, limit int) []hit {
	head := min(limit, len(hs))
	if len(hs) > head {
		x.selectBest(hs, head)
	}
	x.sortHits(hs[:head])
	if x.noCollapse {
		return hs[:head]
	}
	if kept, i := x.collapse(hs, 0, 0, head); kept < collapseTop && i == head && len(hs) > head {
		if len(hs) > k {
			x.selectBest(hs[head:], k-head)
			hs = hs[:k]
		}
		x.sortHits(hs[head:])
		x.collapse(hs, kept, i, len(hs))
	}
	return hs[:head]
}

// worst is the lowest score of the hits kept.
func (s *searcher) worst() float32 {
	w := s.best[0].score
	for _, h := range s.best[1:] {
		w = min(w, h.score)
	}
	return w
}

// better orders hits: by score, then popularity, name and id, so that the
// order is the same on every run.
func (x *Index) better(a, b hit) bool {
	return a.score > b.score || a.score == b.score && x.betterTie(a, b)
}

// betterTie orders hits of equal scores, by their tie keys and then the
// entries; kept apart from better so that better, called at every step of
// selecting and sorting, is inlined.
//
//go:noinline
func (x *Index) betterTie(a, b hit) bool {
	if a.tie != b.tie {
		return a.tie > b.tie
	}
	pa, pb := &x.packs[a.doc], &x.packs[b.doc]
	if uint32(a.tie) != 0 {
		// Equal keys of the same popularity and names beginning alike:
		// the names' next bytes, then the names decide.
		if na, nb := x.docs[a.doc].nameNext, x.docs[b.doc].nameNext; na != nb {
			return na < nb
		}
	} else {
		// Bounds (a popularity the key cannot hold: its name bits are
		// zero, as only a name beginning with four 0xFF bytes else has):
		// the popularity the packs hold, then the names decide.
		if ra, rb := pa.Popularity(), pb.Popularity(); ra != rb {
			return ra > rb
		}
	}
	if na, nb := pa.Name(), pb.Name(); na != nb {
		return na < nb
	}
	return pa.ID() < pb.ID()
}

// keepBest keeps the best k of the searcher's hits, those selectBest
// would keep, and makes the worst of them the bar. The k-th score is
// selected among the scores alone, four bytes a hit and compared without
// a tie to break; the hits of that score are few, and only they are
// ordered by their ties.
func (s *searcher) keepBest(x *Index, k int) {
	s.scores = s.scores[:0]
	for _, h := range s.best {
		s.scores = append(s.scores, h.score)
	}
	kth := kthLargest(s.scores, k)
	n := 0
	s.ties = s.ties[:0]
	for _, h := range s.best {
		if h.score > kth {
			s.best[n] = h
			n++
		} else if h.score == kth {
			s.ties = append(s.ties, h)
		}
	}
	// Fewer than k score above the k-th score, and at least k as much.
	fit := k - n
	if len(s.ties) > fit {
		x.selectBest(s.ties, fit)
	}
	n += copy(s.best[n:], s.ties[:fit])
	s.best, s.bar = s.best[:n], kth
}

// kthLargest returns the k-th largest of fs (1 ≤ k ≤ len(fs)), reordering
// fs: quickselect, the split made without a branch on which way a score
// goes.
func kthLargest(fs []float32, k int) float32 {
	lo, hi, want := 0, len(fs)-1, k-1
	for lo < hi {
		mid := lo + (hi-lo)/2
		if fs[mid] > fs[lo] {
			fs[mid], fs[lo] = fs[lo], fs[mid]
		}
		if fs[hi] > fs[lo] {
			fs[hi], fs[lo] = fs[lo], fs[hi]
		}
		if fs[hi] > fs[mid] {
			fs[hi], fs[mid] = fs[mid], fs[hi]
		}
		fs[mid], fs[hi] = fs[hi], fs[mid]
		pivot, i := fs[hi], lo
		for j := lo; j < hi; j++ {
			f := fs[j]
			fs[j] = fs[i]
			fs[i] = f
			i += b2i(f > pivot)
		}
		fs[i], fs[hi] = fs[hi], fs[i]
		switch {
		case i == want:
			return fs[i]
		case i < want:
			lo = i + 1
		default:
			hi = i - 1
		}
	}
	return fs[want]
}

// selectBest reorders hs so that its first k are the k best, in no order
// (quickselect; better is a strict total order, as no hit is there twice).
// Keeping twice k hits and selecting from them now and then costs less
// than a heap of k, which orders its hits at every offer.
func (x *Index) selectBest(hs []hit, k int) {
	lo, hi := 0, len(hs)-1
	for lo < hi {
		i := x.partition(hs, lo, hi)
		switch {
		case i == k || i == k-1:
			return
		case i < k:
			lo = i + 1
		default:
			hi = i - 1
		}
	}
}

// partition splits hs[lo:hi+1] around the median of its first, middle and
// last hits, and returns where that pivot ends: the hits before it are
// better, those after it worse.
func (x *Index) partition(hs []hit, lo, hi int) int {
	mid := lo + (hi-lo)/2
	if x.better(hs[mid], hs[lo]) {
		hs[mid], hs[lo] = hs[lo], hs[mid]
	}
	if x.better(hs[hi], hs[lo]) {
		hs[hi], hs[lo] = hs[lo], hs[hi]
	}
	if x.better(hs[hi], hs[mid]) {
		hs[hi], hs[mid] = hs[mid], hs[hi]
	}
	hs[mid], hs[hi] = hs[hi], hs[mid]
	// Every hit is swapped and the boundary moves by the comparison: which
	// way a hit goes is random, and a mispredicted branch costs more than
	// the swap (ties are rare, so their branch is not).
	pivot, i := hs[hi], lo
	for j := lo; j < hi; j++ {
		h := hs[j]
		up := h.score > pivot.score
		if h.score == pivot.score {
			up = x.betterTie(h, pivot)
		}
		hs[j] = hs[i]
		hs[i] = h
		i += b2i(up)
	}
	hs[i], hs[hi] = hs[hi], hs[i]
	return i
}

// b2i is 1 for true and 0 for false, without a branch.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// sortHits sorts hs best first: quicksort down to short runs, which
// insertion sorts.
func (x *Index) sortHits(hs []hit) {
	for len(hs) > 12 {
		i := x.partition(hs, 0, len(hs)-1)
		if i < len(hs)-1-i { // recurse into the shorter side
			x.sortHits(hs[:i])
			hs = hs[i+1:]
		} else {
			x.sortHits(hs[i+1:])
			hs = hs[:i]
		}
	}
	for i := 1; i < len(hs); i++ {
		for j := i; j > 0 && x.better(hs[j], hs[j-1]); j-- {
			hs[j], hs[j-1] = hs[j-1], hs[j]
		}
	}
}

// collapse moves near-duplicates out of the leading hits: of entries with
// related names and near-identical briefs (a server and its forks and
// republished copies) only the best stays there; the others follow, in
// order. hs[:end] is sorted best first and is reordered in place; the
// scan goes on from i with kept hits kept, and stops at end or when the
// leading hits are full, which it returns as kept and i, for a later call
// to go on past end.
func (x *Index) collapse(hs []hit, kept, i, end int) (int, int) {
	for ; i < end && kept < collapseTop; i++ {
		dup := false
		for _, k := range hs[:kept] {
			if dup = x.nearDuplicates(hs[i].doc, k.doc); dup {
				break
			}
		}
		if !dup {
			h := hs[i]
			copy(hs[kept+1:i+1], hs[kept:i])
			hs[kept] = h
			kept++
		}
	}
	return kept, i
}

// SetCollapse turns the moving down of near-duplicates on (the default) or
// off: off for an index whose documents are alternatives to choose from
// whatever their likeness, as two servers' tools that say "Take a
// screenshot" are.
func (x *Index) SetCollapse(on bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.noCollapse = !on
	x.gen++ // what was kept of earlier searches is dropped
}

// SetBorrowed tells the index that its entries' tags and descriptions are
// words borrowed from another entry, as a tool's are from its server's:
// FindMatches then tells which hits matched the query in their own name,
// title or brief.
func (x *Index) SetBorrowed(on bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.ownFields = 0
	if on {
		x.ownFields = 1<<fieldName | 1<<fieldTitle | 1<<fieldBrief
	}
	x.gen++
}

// maxSigDistance is how many of 64 simhash bits near-identical briefs may
// differ in.
const maxSigDistance = 6

func (x *Index) nearDuplicates(a, b uint32) bool {
	da, db := &x.docs[a], &x.docs[b]
	if bits.OnesCount64(da.sig^db.sig) > maxSigDistance {
		return false
	}
	return relatedNames(x.packs[a].Name()[da.stemOff:], x.packs[b].Name()[db.stemOff:])
}

// relatedNames reports whether the words of one name stem are all words of
// the other ("mcp-server-git", "kzms-mcp-server-git").
func relatedNames(a, b string) bool {
	wa, wb := nameWords(a), nameWords(b)
	if len(wa) > len(wb) {
		wa, wb = wb, wa
	}
	for _, w := range wa {
		found := false
		for _, v := range wb {
			if found = strings.EqualFold(w, v); found {
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

func nameWords(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == '-' || r == '_' || r == '.' || r == '/' })
}
