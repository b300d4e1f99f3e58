package search

import (
	"cmp"
	"math"
	"math/bits"
	"slices"
	"sync/atomic"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/search/lexicon"
)

const defaultLimit = 50

// Search returns the best limit hits for the free-text query (limit <= 0
// means 50) and the number of all entries that match it.
func (x *Index) Search(query string, limit int) mcpdir.SearchResult {
	return x.Find(mcpdir.Query{Text: query, Limit: limit})
}

// Find runs a query: its filter applies before the best hits are cut, and
// its facets count every match.
func (x *Index) Find(q mcpdir.Query) mcpdir.SearchResult {
	limit := q.Limit
	if limit <= 0 {
		limit = defaultLimit
	}
	x.mu.RLock()
	defer x.mu.RUnlock()
	if !x.results.On() { // no result is kept: a key would be made for nothing
		return x.find(q, limit, nil)
	}
	var keyBuf [128]byte
	key := mcpdir.Query{Text: q.Text, Limit: limit, Filter: q.Filter}.AppendKey(keyBuf[:0])
	if q.Facets {
		key = append(key, 'f') // a result kept without facets does not answer
	}
	if res, ok := x.results.Get(x.gen, key); ok {
		if !q.Facets {
			res.Facets = nil
		}
		return res
	}
	res := x.find(q, limit, nil)
	x.results.Put(x.gen, string(key), res)
	if q.Facets { // it answers the same search without facets too
		x.results.Put(x.gen, string(key[:len(key)-1]), res)
	}
	return res
}

// Evidence returns what decides whether the directory is about a query
// (lexicon.Parser.Evidence), whether any entry matches it, and whether it
// is decided without the model (lexicon.Parser.Named): for fitting the
// decision's weights.
func (x *Index) Evidence(query string) (f [lexicon.AboutFeatures]float32, matched, named bool) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	s := x.searcher()
	defer x.searchers.Put(s)
	s.filter, s.withFacets = filter{}, false
	if x.live == 0 || !s.parse(x, query) {
		return f, false, false
	}
	s.computeNorms(x)
	s.rank(x, 1)
	return s.parser.Evidence(s.coverage), s.matched > 0, s.parser.Named(s.coverage)
}

// Match is how a hit of FindMatches matched the query.
type Match struct {
	// Cover is the share of the query it matched, by the words' weight in
	// the query's coverage (a weak match counts in part), and OwnCover
	// the share it matched in its own words: its name, title or brief has
	// them (their forms or synonyms, in any sense), not only the words it
	// borrows, neighbours of its words or a concept (Index.SetBorrowed).
	Cover, OwnCover float32
}

// FindMatches is Find, not kept, for an index of entries that borrow
// words (SetBorrowed): matches[i] tells how Hits[i] matched. (Of an index
// that has no borrowed words, matches is nil.) The caller has decided
// that the directory is about the query (the tools' servers answer it):
// the answer decision is not made again on the borrowers' words, in
// which "who is on call" is a question about the world.
func (x *Index) FindMatches(q mcpdir.Query) (res mcpdir.SearchResult, matches []Match) {
	limit := q.Limit
	if limit <= 0 {
		limit = defaultLimit
	}
	x.mu.RLock()
	defer x.mu.RUnlock()
	res = x.find(q, limit, &matches)
	return res, matches
}

// find is Find, searched; where matches is not nil, it sets it to how the
// hits matched (FindMatches).
func (x *Index) find(q mcpdir.Query, limit int, matches *[]Match) mcpdir.SearchResult {
	s := x.searcher()
	defer x.searchers.Put(s)
	s.filter = x.compile(q.Filter)
	s.withFacets = q.Facets
	if s.withFacets {
		s.facets.reset(len(x.facetSets))
	}
	var res mcpdir.SearchResult
	text := q.Text
	if name := addressName(text); name != "" {
		text = name
	}
	s.exact = queryExactKey(text)
	s.decided = matches != nil
	if x.live > 0 && !s.filter.none && s.parse(x, text) {
		s.computeNorms(x)
		res = s.rank(x, limit)
		if matches != nil && len(s.hitMatches) == len(res.Hits) {
			*matches = slices.Clone(s.hitMatches)
		}
	}
	if q.Facets {
		if res.Total == 0 {
			s.facets.reset(len(x.facetSets)) // a query about nothing counts nothing
		}
		res.Facets = s.facets.result(x)
	}
	return res
}

// searcher holds one search's scratch space, reused through a pool so that
// a search allocates little beyond its result.
//
// A search scores ordinals a window at a time. In a window, each clause
// adds the postings of its words into a dense array of counts, then adds
// its saturated score into dense arrays of totals; the window's touched
// entries are then ranked. The arrays are window-sized whatever the size
// of the index, so they stay in cache, and every postings list is read
// once, in order, across the windows.
type searcher struct {
	idle    atomic.Bool // no search has it (searcherPool)
	parser  lexicon.Parser
	vocab   vocabulary
	fuzzy   fuzzyWalk
	cursors []cursor
	// per window: the current clause's counts, and the running totals of
	// entries. The counts are apart: a posting adds to them alone, and a
	// clause of a rare word touches entries far apart, a cache line each,
	// so that four bytes an entry keep four times as many in cache.
	tf  [window]float32
	acc [window]accum
	// inClause[:nIn] are the window offsets the current clause touched,
	// touched[:nTouched] those any clause touched. An offset is stored
	// past the end whether it is new or not, and the end moves only if it
	// is: whether it is is random, and a mispredicted branch costs more
	// than the store. So the arrays hold one more than a window.
	inClause [window + 1]uint16
	touched  [window + 1]uint16
	nIn      int
	nTouched int
	// candidate marks the window offsets a required clause touched: the
	// only ones the optional clauses add to (see requireClauses).
	candidate [window / 64]uint64
	// strong marks the window offsets the current clause touched by an
	// expansion that is not weak (lexicon.Expansion.Weak).
	strong [window / 64]uint64
	// sure marks the window offsets some clause touched by an expansion
	// that is not weak: an entry not among them matches the query only
	// through neighbours of its words or its words in another sense.
	sure [window / 64]uint64
	// said marks, in a keyword query, the window offsets the current
	// sensed clause touched by what its word says (lexicon.Expansion.Said):
	// an entry that has, as written, two words that name a concept no
	// entry is of is sure of them ("roll a die" of a dice roller).
	said [window / 64]uint64
	// While the index has own words (Index.SetBorrowed), ownWords marks
	// the window offsets the current clause matched in them, ownIDF holds
	// the IDF of the clauses an entry matched in them, and ownOf that of
	// the entries ranked, by ordinal (allocated on first use).
	ownWords      [window / 64]uint64
	ownIDF, ownOf []float32
	ownOn         bool
	// hitMatches tells how the hits rank returned last matched, while the
	// index has own words.
	hitMatches []Match
	// reversed and forward mark, while the query has a direction pair
	// (lexicon.Clause.Reverse), the window offsets that have a pair the
	// other way round, and the pair itself.
	reversed, forward [window / 64]uint64
	pairsOn           bool
	byIDF             []int
	optional          []bool
	// sense holds, while the query has sensed words (lexicon.Clause.Sensed),
	// what each entry of the window lost to those it matched in another
	// sense, and the concepts of the specific words it matched: an entry
	// that has a specific word the query names the concept with uses the
	// sensed word in the query's sense, and gets back what it lost ("key"
	// of "no API key" in "search without an API key"). Allocated on first
	// use.
	sense   []senseAcc
	senseOn bool
	// plain holds apart, by window offset, the concepts of the specific
	// words each entry matched: most touched entries lost nothing, and
	// reading two bytes of theirs costs less than a senseAcc. lost marks
	// the offsets whose senseAcc was written.
	plain []uint16
	lost  [window / 64]uint64
	// best holds the hits that may be among the best k: at most twice k,
	// then the best k are selected and the worst of them is the bar (and
	// before, the worst of the first k).
	best []hit
	bar  float32
	// scores and ties are keepBest's scratch.
	scores []float32
	ties   []hit
	// coverage is the share of the query's IDF the best-covering entry
	// that matches covers; matched counts the entries that match.
	coverage float32
	matched  int
	// decided: the caller decided that the directory is about the query
	// (FindMatches).
	decided bool
	// norms[0][f][c] is field f's weight over its BM25 length
	// normalisation for length code c, computed for the index statistics
	// in normsFor; norms[1] the same with names and titles damped, for
	// the chatty words of a long query (lexicon.Clause.Damped).
	norms    [2]normTable
	normsFor [numFields + 2]int64
	// exact is the query's exactKey: the entries named as it is typed rank
	// first.
	exact uint32
	// The query's filter, and its facet counts when asked.
	filter     filter
	withFacets bool
	facets     facetCounts
}

// accum is what a search adds up for one entry of a window, kept together
// so that adding a clause to an entry touches one cache line.
type accum struct {
	score  float32
	idf    float32 // summed IDF of the clauses matched
	weight float32 // summed weight of the clauses matched
}

// senseAcc is what one entry of a window lost to sensed clauses it
// matched by weak expansions only (score, IDF, weight, and the concepts
// of those clauses), the concepts two or more of those clauses name
// (twice); the concepts of the specific words it matched
// (lexicon.Clause.Senses of clauses not sensed) are kept apart, in
// searcher.plain. An entry that has a
// specific word of a concept, or, in a keyword query, two of the query's
// words that name a concept no entry is of ("roll a die" of a dice roller),
// uses them in the query's sense and gets back what it lost. (Where some
// entries are of the concept, they are the ones in its sense: Discord's
// "text channels" and "messages" are not Twilio's text messages. In a
// sentence the second rule did not pay, measured.)
type senseAcc struct {
	score, idf, weight float32
	lost, twice        uint16
	said               uint16 // the concepts of the sensed clauses it has as said
}

// window is how many ordinals a search scores at a time: 8,192, whose
// arrays (about 130 KB) stay in a core's cache beside what the server
// serving a request holds there. Over REST, beside 32,768, a sentence
// costs 8% less CPU; 4,096 saved 2-3% more but cost a 100x search 11%
// (8,192: 3%); docs/BENCHMARKS.md.
const window = 1 << 13

// cursor reads one word's postings across windows.
type cursor struct {
	b      []byte
	i      int        // offset of the next posting to decode
	norms  *normTable // the searcher's, with names damped or not
	doc    uint32     // the last ordinal decoded
	tf     float32    // its weighted counts, while pending
	weight float32
	clause int32
	// optional: the cursor's clause cannot make an entry match on its own,
	// so it adds only to the candidates of the required clauses.
	optional bool
	weak     bool
	said     bool // what a sensed word says, in a keyword query (searcher.said)
	pending  bool // doc is live and not yet added
	// own are the fields whose match is of the entry's own words
	// (Index.SetBorrowed), none for an expansion the word does not say
	// (lexicon.Expansion.Said); pendingOwn tells whether the pending
	// posting had one. (The cursor fills one cache line.)
	own        uint8
	pendingOwn bool
}

func (x *Index) searcher() *searcher { return x.searchers.Get() }

// computeNorms fills the norm table unless the index statistics are those
// it was last filled for.
func (s *searcher) computeNorms(x *Index) {
	key := [numFields + 2]int64{int64(x.live), x.paramsGen}
	copy(key[2:], x.lenSum[:])
	if key == s.normsFor {
		return
	}
	s.normsFor = key
	p := &x.params
	for f := range numFields {
		avg := float32(1)
		if x.live > 0 && x.lenSum[f] > 0 {
			avg = float32(x.lenSum[f]) / float32(x.live)
		}
		damp := float32(1)
		if f == fieldName || f == fieldTitle {
			damp = p.NameDamp
		}
		for c := range 256 {
			l := float32(lenDecode(uint8(c)))
			s.norms[0][f][c] = p.Fields[f] / (1 - p.FieldB[f] + p.FieldB[f]*l/avg)
			s.norms[1][f][c] = damp * s.norms[0][f][c]
		}
	}
}

// normTable holds each field's weight over its length normalisation, by
// field and length code.
type normTable [numFields][256]float32

// fill adds the cursor's postings before ordinal end to the clause counts
// of the window starting at base, and leaves the first live one at or
// after end pending.
func (s *searcher) fill(c *cursor, base, end uint32, live []uint64) {
	if c.pending {
		if c.doc >= end {
			return
		}
		if off := c.doc - base; !c.optional || s.isCandidate(off) {
			s.add(off, c.tf)
			if !c.weak {
				s.strong[off/64] |= 1 << (off % 64)
			}
			if c.said {
				s.said[off/64] |= 1 << (off % 64)
			}
			if c.pendingOwn {
				s.ownWords[off/64] |= 1 << (off % 64)
			}
		}
		c.pending = false
	}
	b, i, d, norms := c.b, c.i, c.doc, c.norms
	for i < len(b) {
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
		d += v
		mask := b[i]
		i++
		if c.optional && d < end && !s.isCandidate(d-base) {
			// Nothing of it is read: most of an optional clause's postings
			// are of entries no required clause touched.
			n := bits.OnesCount8(mask & 0x7f)
			if mask&0x80 != 0 {
				n *= 2
			}
			i += n
			continue
		}
		var tf float32
		if mask&0x80 == 0 {
			for m := mask; m != 0; m &= m - 1 {
				tf += norms[bits.TrailingZeros8(m)][b[i]]
				i++
			}
		} else {
			for m := mask & 0x7f; m != 0; m &= m - 1 {
				tf += float32(b[i]) * norms[bits.TrailingZeros8(m)][b[i+1]]
				i += 2
			}
		}
		if live[d/64]&(1<<(d%64)) == 0 {
			continue
		}
		if d >= end {
			c.i, c.doc, c.tf, c.pending, c.pendingOwn = i, d, c.weight*tf, true, mask&c.own != 0
			return
		}
		s.add(d-base, c.weight*tf)
		if !c.weak {
			s.strong[(d-base)/64] |= 1 << ((d - base) % 64)
		}
		if c.said {
			s.said[(d-base)/64] |= 1 << ((d - base) % 64)
		}
		if mask&c.own != 0 {
			s.ownWords[(d-base)/64] |= 1 << ((d - base) % 64)
		}
	}
	c.i, c.doc = i, d
}

func (s *searcher) isCandidate(off uint32) bool {
	return s.candidate[off/64]&(1<<(off%64)) != 0
}

// add adds counts to the current clause at a window offset.
func (s *searcher) add(off uint32, tf float32) {
	s.inClause[s.nIn] = uint16(off)
	s.nIn += isZero(s.tf[off])
	s.tf[off] += tf
}

// rank scores the entries matching the clauses window by window, keeps
// those that cover enough of the query, and returns the top limit, ranked
// with coordination and the prior, near-duplicates moved down.
func (s *searcher) rank(x *Index, limit int) mcpdir.SearchResult {
	need := s.need()
	s.cursors, s.hitMatches = s.cursors[:0], s.hitMatches[:0]
	optional := s.requireClauses(need)
	for _, opt := range [2]bool{false, true} {
		for ci := range s.parser.Clauses {
			if optional[ci] != opt {
				continue
			}
			c := &s.parser.Clauses[ci]
			norms := &s.norms[0]
			if c.Damped {
				norms = &s.norms[1]
			}
			for _, e := range c.Exps {
				own := x.ownFields
				if !e.Said || c.Bonus {
					own = 0
				}
				said := e.Said && c.Sensed && !s.parser.Sentence
				s.cursors = append(s.cursors, cursor{b: x.terms[e.Term].postings, weight: e.Weight, clause: int32(ci), optional: opt && pruneOptional, weak: e.Weak, said: said, own: own, norms: norms})
			}
		}
	}
	// The pairs the other way round come last, after every clause that
	// makes an entry a candidate, as a clause of their own: they only mark
	// the candidates that have them (endReverse).
	s.pairsOn = false
	for ci := range s.parser.Clauses {
		for _, t := range s.parser.Clauses[ci].Reverse {
			s.cursors = append(s.cursors, cursor{b: x.terms[t].postings, weight: 1, clause: reverseClause, optional: true, weak: true, norms: &s.norms[0]})
			s.pairsOn = true
		}
	}
	for i := range s.cursors {
		s.fill(&s.cursors[i], 0, 0, x.liveBits) // decode the first posting
	}
	s.ownOn = x.ownFields != 0
	if s.ownOn {
		if s.ownIDF == nil {
			s.ownIDF = make([]float32, window)
		}
		if len(s.ownOf) < len(x.docs) {
			s.ownOf = make([]float32, len(x.docs)+len(x.docs)/4)
		}
	}
	s.senseOn = false
	for i := range s.parser.Clauses {
		s.senseOn = s.senseOn || s.parser.Clauses[i].Sensed && s.parser.Clauses[i].Senses != 0
	}
	if s.senseOn && s.sense == nil {
		s.sense, s.plain = make([]senseAcc, window), make([]uint16, window)
	}
	// An entry in the query's language is the better answer of equals: a
	// Chinese question is best answered by Chinese servers. For a query in
	// English (Lang 0, or a language the lexicon cannot tell) an entry in
	// English wins ties only: Blender FX's Korean brief is no better a
	// currency converter than the English ones its concept ties it with,
	// and a larger factor cost every blind set (docs/BENCHMARKS.md).
	lang, sameLang := s.parser.Lang, x.params.SameLanguage
	if lang == 0 {
		sameLang = englishTie
	}
	// An entry's score is at most (sc*maxPrior)*langUp, rounded as its
	// score is: one below the bar is left without reading its prior, which
	// at scale is most of the entries a common word touches, and the
	// priors a cache miss each (a third of ranking's time at 100x).
	langUp, maxPrior := max(sameLang, 1), x.maxPrior
	if !prunePrior {
		maxPrior = float32(math.Inf(1)) // no bound is below the bar
	}
	// The candidates kept are as many for any limit up to the default, so
	// that which entries answer (floor), and so total and facets, are the
	// same for a page of 10 as for one of 50.
	k := max(limit, defaultLimit) + collapseSlack
	s.best, s.bar = s.best[:0], 0
	best := float32(0)
	total, sure := 0, false
	for {
		// Start at the window of the first pending posting: windows with
		// none are skipped.
		first := uint32(math.MaxUint32)
		for i := range s.cursors {
			if c := &s.cursors[i]; c.pending {
				first = min(first, c.doc)
			}
		}
		if first == math.MaxUint32 {
			break
		}
		base := first &^ (window - 1)
		end := base + window
		for i := 0; i < len(s.cursors); {
			ci := s.cursors[i].clause
			for ; i < len(s.cursors) && s.cursors[i].clause == ci; i++ {
				s.fill(&s.cursors[i], base, end, x.liveBits)
			}
			if ci == reverseClause {
				s.endReverse()
			} else {
				s.endClause(&s.parser.Clauses[ci], &x.params)
			}
		}
		for _, off := range s.touched[:s.nTouched] {
			a := &s.acc[off]
			sc, idf, weight := a.score, a.idf, a.weight
			a.score, a.idf, a.weight = 0, 0, 0
			s.candidate[off/64] = 0
			isSure := s.sure[off/64]&(1<<(off%64)) != 0
			s.sure[off/64] &^= 1 << (off % 64)
			if s.ownOn { // (an entry ranked was touched: no other's is read)
				s.ownOf[base+uint32(off)], s.ownIDF[off] = s.ownIDF[off], 0
			}
			if s.senseOn {
				plain := s.plain[off]
				s.plain[off] = 0
				if bit := uint64(1) << (off % 64); s.lost[off/64]&bit != 0 {
					if sa := &s.sense[off]; sa.lost&plain|sa.twice != 0 {
						sc, idf, weight = sc+sa.score, idf+sa.idf, weight+sa.weight
					}
					s.sense[off] = senseAcc{}
					s.lost[off/64] &^= bit
				}
			}
			if s.pairsOn {
				bit := uint64(1) << (off % 64)
				if s.reversed[off/64]&^s.forward[off/64]&bit != 0 {
					sc *= x.params.Reverse
				}
				s.reversed[off/64] &^= bit
				s.forward[off/64] &^= bit
			}
			if idf < need {
				continue
			}
			best = max(best, idf)
			d := base + uint32(off)
			if s.exact != 0 && x.exact[d] == s.exact {
				sc *= x.params.ExactName
			}
			if s.filter.active && !s.filter.match(&x.ranks[d].facets, x.facetValues(x.ranks[d].facets.set)) {
				continue
			}
			total++
			sure = sure || isSure
			if s.withFacets {
				s.facets.count(&x.ranks[d].facets)
			}
			sc *= weight / s.parser.TotalWeight
			if sc*maxPrior*langUp < s.bar {
				continue // k hits are better whatever its prior
			}
			rf := &x.ranks[d]
			sc *= rf.prior
			if rf.lang == lang {
				sc *= sameLang
			}
			if sc < s.bar {
				continue // k hits are better
			}
			s.best = append(s.best, hit{d, sc, rf.tie, idf, isSure})
			switch len(s.best) {
			case k: // the first k: k hits are at least as good as their worst
				s.bar = s.worst()
			case 2 * k:
				s.keepBest(x, k)
			}
		}
		s.nTouched = 0
	}
	// Whatever matches, a query the directory is not about gets nothing
	// ("height of mount everest" matches a few entries on a word each).
	// Nor do keywords that no entry has in the query's sense, only their
	// neighbours or other senses: keywords are the entries' own words, and
	// in a directory with no video editor "edit a video" is not answered
	// by the servers that edit slides with images.
	s.coverage, s.matched = best/max(s.parser.TotalIDF, 1e-9), total
	if total == 0 || !sure && !s.parser.Sentence || !s.decided && !s.parser.About(s.coverage) {
		return mcpdir.SearchResult{}
	}
	// The tail stops before the leading hits are chosen, so that a hit
	// past the floor takes no answering one's place, and what a search
	// answers is the same whatever its limit.
	answering, all := x.floor(s.best, best, s.bar, s.exact)
	if all && len(answering) < total {
		total = len(answering)
		if s.withFacets { // the facets count what the search answers
			s.facets.reset(len(x.facetSets))
			for _, h := range answering {
				s.facets.count(&x.ranks[h.doc].facets)
			}
		}
	}
	ranked := x.leading(answering, k, limit)
	hits := make([]mcpdir.Hit, len(ranked))
	for i, h := range ranked {
		sc := float64(h.score)
		if i > 0 {
			sc = min(sc, hits[i-1].Score)
		}
		hits[i] = mcpdir.Hit{Entry: x.entryAt(h.doc), Score: sc}
		if s.ownOn {
			total := max(s.parser.TotalIDF, 1e-9)
			s.hitMatches = append(s.hitMatches, Match{Cover: h.idf / total, OwnCover: s.ownOf[h.doc] / total})
		}
	}
	return mcpdir.SearchResult{Hits: hits, Total: total}
}

// floor keeps, of the candidate hits hs, those that answer the query:
// past them the tail stops, so that a small directory shows its two good
// servers rather than two and eight that share a word with the query. A
// hit answers when it covers at least Params.FloorCover of what the best
// covering match covers (cover) and scores at least Params.FloorScore of
// the best hit's score (both fitted on the tune half); the best hit
// answers, the decision to answer being the query's, made before. Where
// the best hit matches a word of the query itself (its forms, a synonym
// or its concept: hit.sure), a hit that matches only through neighbours of its words or
// its words in another sense does not answer: "what time is it in tokyo"
// is not answered by the servers that keep times of other kinds. It
// filters hs in place. The matches not among hs scored at most bar: all
// reports whether none of them can answer, so that kept holds every match
// that does.
func (x *Index) floor(hs []hit, cover, bar float32, exact uint32) (kept []hit, all bool) {
	p := &x.params
	if len(hs) == 0 || p.FloorCover <= 0 && p.FloorScore <= 0 {
		return hs, false
	}
	top := 0
	for i := range hs {
		if x.better(hs[i], hs[top]) {
			top = i
		}
	}
	// The floor is a share of the first score as the entry's words earn
	// it: an entry named as the query is typed ranks first, and does not
	// raise the floor of the others.
	topScore := hs[top].score
	if exact != 0 && x.exact[hs[top].doc] == exact {
		topScore /= p.ExactName
	}
	minCover, minScore := p.FloorCover*cover*(1-1e-6), p.FloorScore*topScore
	kept = hs[:0]
	for i, h := range hs {
		if i == top || h.idf >= minCover && h.score >= minScore && (h.sure || !hs[top].sure) {
			kept = append(kept, h)
		}
	}
	return kept, bar < minScore
}

// need is the IDF an entry must cover to match (less a rounding margin).
// An entry matches a sentence only where it covers as much as the answer
// decision needs to be about the query on that entry's evidence alone: the
// tail stops before the entries that share a word or two with a sentence
// but do not answer it.
func (s *searcher) need() float32 {
	share := s.parser.MatchShare
	if s.parser.Sentence && !s.decided {
		share = max(share, s.parser.LeastCoverage())
	}
	return share * s.parser.TotalIDF * (1 - 1e-6)
}

// requireClauses tells the clauses an entry must match one of to reach
// cutoff of the query's IDF: the others, the rarest-matched first left
// out, sum to less than cutoff, so an entry that matches only them neither
// matches nor answers. Their postings are still read, in order, but add
// only to the entries a required clause touched: a question's common words
// ("run", "code", "server") would otherwise touch thousands of entries
// that cannot match. It returns, per clause, whether it is optional.
func (s *searcher) requireClauses(cutoff float32) []bool {
	s.byIDF = s.byIDF[:0]
	for ci := range s.parser.Clauses {
		s.byIDF = append(s.byIDF, ci)
	}
	slices.SortFunc(s.byIDF, func(a, b int) int { return cmp.Compare(s.parser.Clauses[a].IDF, s.parser.Clauses[b].IDF) })
	optional := s.optional[:0]
	for range s.parser.Clauses {
		optional = append(optional, false)
	}
	sum := float32(0)
	for _, ci := range s.byIDF {
		// (with a margin for the other orders the sums are added in)
		if sum += s.parser.Clauses[ci].IDF; sum*(1+1e-5) >= cutoff {
			break
		}
		optional[ci] = true
	}
	s.optional = optional
	return optional
}

// prunePrior lets rank leave out the entries that cannot score above the
// bar whatever their priors; tests turn it off to check that doing so
// changes no answer.
var prunePrior = true

// pruneOptional lets rank add optional clauses only to the candidates of
// the required ones; tests turn it off to check that doing so changes no
// answer. (The clauses are read in the same order either way: the order
// entries are first touched in decides which hits are kept.)
var pruneOptional = true

// endClause saturates the counts of the clause in the window and adds its
// score to the entries' totals.
//
// An entry that matches the clause by weak expansions only (its word's
// neighbours, or the word in another sense than the query's) covers it in
// part: Params.Weak, or Params.Sense (SenseKeywords in a keyword query) for
// a word the query uses in a concept's sense; what a sensed word's share
// lost is given back to an entry that also has a specific word the query
// names the concept with (see senseAcc).
func (s *searcher) endClause(c *lexicon.Clause, p *Params) {
	k1 := p.K1
	weight := c.Weight // a bonus clause adds to scores, not to coverage
	if c.Bonus {
		weight = 0
	}
	// In a keyword query a sensed word weighs little in another sense, and
	// two of its words that name a concept no entry is of are that sense.
	keywords := !s.parser.Sentence
	weak := p.Weak
	if c.Sensed {
		weak = p.Sense
		if keywords {
			weak = p.SenseKeywords
		}
	}
	weak = max(weak, 1e-4) // a touched entry's score stays above zero
	senses := c.Senses
	if !s.senseOn {
		senses = 0
	}
	ownOn := s.ownOn
	for _, off := range s.inClause[:s.nIn] {
		tf := s.tf[off]
		s.tf[off] = 0
		a := &s.acc[off]
		s.candidate[off/64] |= 1 << (off % 64)
		s.touched[s.nTouched] = off
		s.nTouched += isZero(a.score)
		share := float32(1)
		if s.strong[off/64]&(1<<(off%64)) == 0 {
			share = weak
		} else if !c.Bonus {
			s.sure[off/64] |= 1 << (off % 64)
		}
		if ownOn && s.ownWords[off/64]&(1<<(off%64)) != 0 {
			s.ownIDF[off] += share * c.IDF
		}
		sat := c.Weight * tf * (k1 + 1) / (tf + k1)
		a.score += share * sat
		a.idf += share * c.IDF
		a.weight += share * weight
		if senses != 0 {
			if !c.Sensed {
				s.plain[off] |= senses
			}
			if share < 1 && c.Sensed {
				s.lost[off/64] |= 1 << (off % 64)
				sa := &s.sense[off]
				if keywords {
					sa.twice |= sa.lost & senses & s.parser.SensesPaired
					if s.said[off/64]&(1<<(off%64)) != 0 {
						if sa.said&senses&s.parser.SensesPaired != 0 {
							s.sure[off/64] |= 1 << (off % 64)
						}
						sa.said |= senses
					}
				}
				sa.lost |= senses
				sa.score += (1 - share) * sat
				sa.idf += (1 - share) * c.IDF
				sa.weight += (1 - share) * weight
			}
		}
	}
	forward := c.Bonus && s.pairsOn // the entries that have a pair the query's way
	for _, off := range s.inClause[:s.nIn] {
		s.strong[off/64], s.said[off/64] = 0, 0
		if ownOn {
			s.ownWords[off/64] = 0
		}
		if forward {
			s.forward[off/64] |= 1 << (off % 64)
		}
	}
	s.nIn = 0
}

// reverseClause is the clause number of the cursors of direction pairs the
// other way round (lexicon.Clause.Reverse).
const reverseClause = -1

// endReverse marks the candidates of the window that have a direction pair
// of the query the other way round: unless they also have the pair, they
// convert the other way ("text to image" of "image to text").
func (s *searcher) endReverse() {
	for _, off := range s.inClause[:s.nIn] {
		s.tf[off] = 0
		s.reversed[off/64] |= 1 << (off % 64)
	}
	s.nIn = 0
}

// englishTie is the factor of an entry in English for a query in English:
// enough to order equal scores, too little to reorder others.
const englishTie = 1 + 1e-5

// isZero is 1 for a zero sum of positive counts or scores and 0 for any
// other, computed without a branch.
func isZero(f float32) int {
	u := math.Float32bits(f)
	return int(1 ^ (u|-u)>>31)
}
