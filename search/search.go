package search

import (
	"math/bits"
	"sort"
	"strings"

	"github.com/mcpdir/mcpdir"
)

const defaultLimit = 50

// BM25F: each field's counts are length-normalised and weighted, summed,
// then saturated once per query word (k1).
const k1 = 2

var (
	fieldWeight = [numFields]float32{
		fieldName: 3, fieldTitle: 2.5, fieldTags: 2, fieldPackage: 1.5, fieldTool: 1.5,
		fieldBrief: 1, fieldDescription: 0.5,
	}
	// fieldB is how much a field's length normalises its counts; lists of
	// tags and tools are not prose and are barely normalised.
	fieldB = [numFields]float32{
		fieldName: 0.5, fieldTitle: 0.5, fieldTags: 0.3, fieldPackage: 0.5, fieldTool: 0.3,
		fieldBrief: 0.75, fieldDescription: 0.75,
	}
)

// An entry's coverage of a query is the share of the query's words it
// matches, each word weighing its IDF. An entry must cover minMatch to match
// at all. A query that no entry covers to minAnswer is not about anything in
// the directory ("height of mount everest" matches a few entries on one
// word each): it gets no results. Coordination then scales scores by the
// share of the query's weight (IDF and topicality) an entry matches.
const (
	minMatch  = 0.25
	minAnswer = 0.5
)

// collapseTop is how many leading hits are kept free of near-duplicates.
const collapseTop = 10

// collapseSlack is how many extra candidates are ranked beyond the limit,
// to fill the leading hits when near-duplicates are moved down.
const collapseSlack = 30

// Search returns the best limit hits for the free-text query (limit <= 0
// means 50) and the number of all entries that match it.
func (x *Index) Search(query string, limit int) mcpdir.SearchResult {
	if limit <= 0 {
		limit = defaultLimit
	}
	x.mu.RLock()
	defer x.mu.RUnlock()
	s := x.searcher()
	defer x.searchers.Put(s)
	if x.live == 0 || !s.parse(x, query) {
		return mcpdir.SearchResult{}
	}
	s.computeNorms(x)
	for i := range s.clauses {
		s.matchClause(x, i)
	}
	return s.rank(x, limit)
}

// searcher holds one search's scratch space, reused through a pool so that
// a search allocates little beyond its result.
//
// A search runs document at a time: each clause merges the postings of its
// words into one list of the entries it matches, in ordinal order; the
// clauses' lists are then merged into scored entries. Every step reads its
// input in order, which keeps millions of entries cheap.
type searcher struct {
	words       []qword
	content     []int
	pairs       []string
	clauses     []clause
	totalIDF    float32
	totalWeight float32
	cands       []cand
	fuzzy       fuzzyWalk
	matches     [][]match // per clause, the entries it matches
	order       []int     // clauses by number of matches
	acc, acc2   []scored
	cursors     []cursor
	merge       []mergeItem
	heap        []hit
	// norms[f][c] is field f's weight over its BM25 length normalisation
	// for length code c, computed for the index statistics in normsFor.
	norms    [numFields][256]float32
	normsFor [numFields + 1]int64
}

// match is an entry a clause matches, with the clause's weighted,
// length-normalised counts in it.
type match struct {
	doc uint32
	tf  float32
}

// scored is an entry's running totals while clauses are merged.
type scored struct {
	doc         uint32
	score       float32
	idf, weight float32 // summed IDF and weight of the clauses matched
}

// hit is a ranked candidate.
type hit struct {
	doc   uint32
	score float32
}

func (x *Index) searcher() *searcher {
	s, _ := x.searchers.Get().(*searcher)
	if s == nil {
		s = &searcher{}
	}
	return s
}

// computeNorms fills the norm table unless the index statistics are those
// it was last filled for.
func (s *searcher) computeNorms(x *Index) {
	key := [numFields + 1]int64{int64(x.live)}
	copy(key[1:], x.lenSum[:])
	if key == s.normsFor {
		return
	}
	s.normsFor = key
	for f := range numFields {
		avg := float32(1)
		if x.live > 0 && x.lenSum[f] > 0 {
			avg = float32(x.lenSum[f]) / float32(x.live)
		}
		for c := range 256 {
			l := float32(lenDecode(uint8(c)))
			s.norms[f][c] = fieldWeight[f] / (1 - fieldB[f] + fieldB[f]*l/avg)
		}
	}
}

// cursor reads one word's postings, skipping removed entries.
type cursor struct {
	b      []byte
	i      int
	doc    uint32
	tf     float32 // weighted, length-normalised counts at doc
	weight float32
}

func (c *cursor) next(s *searcher, live []uint64) bool {
	b := c.b
	for c.i < len(b) {
		i := c.i
		v := uint32(b[i])
		i++
		if v >= 0x80 {
			v &= 0x7f
			for shift := 7; ; shift += 7 {
				x := b[i]
				i++
				v |= uint32(x&0x7f) << shift
				if x < 0x80 {
					break
				}
			}
		}
		c.doc += v
		mask := b[i]
		i++
		var tf float32
		if mask&0x80 == 0 {
			for m := mask; m != 0; m &= m - 1 {
				tf += s.norms[bits.TrailingZeros8(m)][b[i]]
				i++
			}
		} else {
			for m := mask & 0x7f; m != 0; m &= m - 1 {
				tf += float32(b[i]) * s.norms[bits.TrailingZeros8(m)][b[i+1]]
				i += 2
			}
		}
		c.i = i
		if live[c.doc/64]&(1<<(c.doc%64)) != 0 {
			c.tf = c.weight * tf
			return true
		}
	}
	return false
}

// mergeItem is a cursor (by index) in a merge heap, keyed by its ordinal.
type mergeItem struct {
	doc uint32
	i   int32
}

// mergeDown restores the min-heap order of h from i down.
func mergeDown(h []mergeItem, i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		if r := l + 1; r < len(h) && h[r].doc < h[l].doc {
			l = r
		}
		if h[i].doc <= h[l].doc {
			return
		}
		h[i], h[l] = h[l], h[i]
		i = l
	}
}

func mergeInit(h []mergeItem) {
	for i := len(h)/2 - 1; i >= 0; i-- {
		mergeDown(h, i)
	}
}

// matchClause merges the postings of clause i's words into its list of
// matches, summing the counts of the words an entry has. The longest list
// (usually the word itself) is streamed, and the others — prefixes, stems,
// typos, mostly short — are merged through a heap and joined to it.
func (s *searcher) matchClause(x *Index, ci int) {
	c := &s.clauses[ci]
	for len(s.matches) <= ci {
		s.matches = append(s.matches, nil)
	}
	out := s.matches[ci][:0]
	cs := s.cursors[:0]
	h := s.merge[:0]
	big := -1
	for _, e := range c.exps {
		cur := cursor{b: x.terms[e.term].postings, weight: e.weight}
		if !cur.next(s, x.liveBits) {
			continue
		}
		if big < 0 || len(cur.b) > len(cs[big].b) {
			big = len(cs)
		}
		cs = append(cs, cur)
	}
	for i := range cs {
		if i != big {
			h = append(h, mergeItem{cs[i].doc, int32(i)})
		}
	}
	mergeInit(h)
	var b *cursor
	more := big >= 0
	if more {
		b = &cs[big]
	}
	for more || len(h) > 0 {
		var d uint32
		switch {
		case !more:
			d = h[0].doc
		case len(h) == 0:
			d = b.doc
		default:
			d = min(b.doc, h[0].doc)
		}
		tf := float32(0)
		if more && b.doc == d {
			tf = b.tf
			more = b.next(s, x.liveBits)
		}
		for len(h) > 0 && h[0].doc == d {
			cur := &cs[h[0].i]
			tf += cur.tf
			if cur.next(s, x.liveBits) {
				h[0].doc = cur.doc
			} else {
				h[0] = h[len(h)-1]
				h = h[:len(h)-1]
			}
			mergeDown(h, 0)
		}
		out = append(out, match{d, tf})
	}
	s.matches[ci], s.cursors, s.merge = out, cs, h
}

// rank merges the clauses' matches into scored entries, keeps those that
// cover enough of the query, and returns the top limit, ranked with
// coordination and the prior, near-duplicates moved down. The lists are
// merged two at a time, shortest first, each merge a linear pass.
func (s *searcher) rank(x *Index, limit int) mcpdir.SearchResult {
	order := s.order[:0]
	for ci := range s.clauses {
		order = append(order, ci)
	}
	sort.Slice(order, func(i, j int) bool { return len(s.matches[order[i]]) < len(s.matches[order[j]]) })
	a, b := s.acc[:0], s.acc2[:0]
	for _, ci := range order {
		c := &s.clauses[ci]
		weight := c.weight // a bonus clause adds to scores, not to coverage
		if c.bonus {
			weight = 0
		}
		ms := s.matches[ci]
		b = b[:0]
		i := 0
		for _, m := range ms {
			for i < len(a) && a[i].doc < m.doc {
				b = append(b, a[i])
				i++
			}
			e := scored{doc: m.doc}
			if i < len(a) && a[i].doc == m.doc {
				e = a[i]
				i++
			}
			e.score += c.weight * m.tf * (k1 + 1) / (m.tf + k1)
			e.idf += c.idf
			e.weight += weight
			b = append(b, e)
		}
		b = append(b, a[i:]...)
		a, b = b, a
	}
	s.order, s.acc, s.acc2 = order, a, b

	need := minMatch * s.totalIDF * (1 - 1e-6)
	k := limit + collapseSlack
	s.heap = s.heap[:0]
	best := float32(0)
	total := 0
	for _, e := range a {
		best = max(best, e.idf)
		if e.idf < need {
			continue
		}
		total++
		score := e.score * e.weight / s.totalWeight
		if len(s.heap) == k && score*x.maxPrior < s.heap[0].score {
			continue // cannot make the top k, whatever its prior
		}
		s.push(x, hit{e.doc, score * x.docs[e.doc].prior}, k)
	}
	if best < minAnswer*s.totalIDF*(1-1e-6) {
		return mcpdir.SearchResult{}
	}
	// Pop the heap worst first into the tail, leaving it sorted best first.
	for n := len(s.heap) - 1; n > 0; n-- {
		s.heap[0], s.heap[n] = s.heap[n], s.heap[0]
		s.downTo(x, 0, n)
	}
	ranked := x.collapse(s.heap)
	if len(ranked) > limit {
		ranked = ranked[:limit]
	}
	hits := make([]mcpdir.Hit, len(ranked))
	for i, h := range ranked {
		sc := float64(h.score)
		if i > 0 {
			sc = min(sc, hits[i-1].Score)
		}
		hits[i] = mcpdir.Hit{Entry: x.docs[h.doc].entry, Score: sc}
	}
	return mcpdir.SearchResult{Hits: hits, Total: total}
}

// push offers a hit to the top-k heap, which keeps the worst at the top.
func (s *searcher) push(x *Index, h hit, k int) {
	if len(s.heap) < k {
		s.heap = append(s.heap, h)
		s.up(x, len(s.heap)-1)
	} else if x.better(h, s.heap[0]) {
		s.heap[0] = h
		s.downTo(x, 0, len(s.heap))
	}
}

// better orders hits: by score, then popularity, name and id, so that the
// order is the same on every run.
func (x *Index) better(a, b hit) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	ea, eb := x.docs[a.doc].entry, x.docs[b.doc].entry
	if ea.Popularity != eb.Popularity {
		return ea.Popularity > eb.Popularity
	}
	if ea.Name != eb.Name {
		return ea.Name < eb.Name
	}
	return ea.ID < eb.ID
}

// The heap keeps the worst hit at the top.
func (s *searcher) up(x *Index, i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !x.better(s.heap[p], s.heap[i]) {
			return
		}
		s.heap[p], s.heap[i] = s.heap[i], s.heap[p]
		i = p
	}
}

func (s *searcher) downTo(x *Index, i, n int) {
	for {
		w := i
		if l := 2*i + 1; l < n && x.better(s.heap[w], s.heap[l]) {
			w = l
		}
		if r := 2*i + 2; r < n && x.better(s.heap[w], s.heap[r]) {
			w = r
		}
		if w == i {
			return
		}
		s.heap[i], s.heap[w] = s.heap[w], s.heap[i]
		i = w
	}
}

// collapse moves near-duplicates out of the leading hits: of entries with
// related names and near-identical briefs (a server and its forks and
// republished copies) only the best stays there; the others follow, in
// order. hs is sorted best first and is reordered in place.
func (x *Index) collapse(hs []hit) []hit {
	kept := 0
	for i := 0; i < len(hs) && kept < collapseTop; i++ {
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
	return hs
}

// maxSigDistance is how many of 64 simhash bits near-identical briefs may
// differ in.
const maxSigDistance = 6

func (x *Index) nearDuplicates(a, b uint32) bool {
	da, db := &x.docs[a], &x.docs[b]
	if bits.OnesCount64(da.sig^db.sig) > maxSigDistance {
		return false
	}
	return relatedNames(da.entry.Name[da.stemOff:], db.entry.Name[db.stemOff:])
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
