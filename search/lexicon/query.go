package lexicon

import (
	"math"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"
)

// Query bounds: longer queries are cut, not refused (the HTTP layer
// validates; the index only protects itself). A pasted task of 40 words
// fits.
const (
	maxQueryBytes = 1024
	maxQueryWords = 200
)

// weightExact is the weight of the query word itself, and of the short
// forms of the phrases it belongs to.
const weightExact = 1

// typoPrefixFactor scales a typo match on a word's prefix, and
// typoTwoFactor one two edits away.
const (
	typoPrefixFactor = 0.85
	typoTwoFactor    = 0.75
)

// Expansion bounds, so that a short or common prefix stays cheap.
const (
	minPrefixLen   = 3
	maxPrefixTerms = 64
	maxTypoTerms   = 32
)

// MaxTypoLen bounds the words that typo matching looks at; longer ones are
// not words people mistype but identifiers they paste.
const MaxTypoLen = 32

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

// relatedBelowDF is how few entries a keyword is found in for its
// related words to be looked for too.
const relatedBelowDF = 50

// askRatio is how many times more entries a concept must have than a word
// that asks for it, for the word to stand for the concept alone.
const askRatio = 2

// minSentenceTypo is the shortest word of a sentence taken for a typo.
const minSentenceTypo = 7

// Typo matching steps in only for words that are rare in the index (found
// in at most 1 of typoRareness entries, exact, stemmed or as a prefix), and
// only takes near words typoDominance times as frequent: a rare word next
// to a common one is likely its misspelling, a common word is not.
const (
	typoRareness  = 5000
	typoDominance = 8
)

// Vocabulary is what the parser needs of an index: its words, how many
// entries have them, and the words near a query word.
type Vocabulary interface {
	// Term returns the id of an indexed word.
	Term(w string) (id uint32, ok bool)
	// Text is the word of an id.
	Text(id uint32) string
	// Stats are how many live entries have the word, and have it in their
	// name or title.
	Stats(id uint32) (df, nameDF uint32)
	// SameStem calls f with at most n of the words whose English stem is st.
	SameStem(st string, n int, f func(id uint32))
	// Prefixed calls f with every word that begins with w.
	Prefixed(w string, f func(id uint32, text string))
	// Near returns the words within budget edits of w (at most MaxTypoLen
	// bytes), as whole words or as their prefixes.
	Near(w string, budget int) []Near
	// Live is how many entries are indexed.
	Live() int
	// Generation counts the index's changes: what the parser keeps of its
	// analyses holds for one generation.
	Generation() uint64
}

// Near is an index word near a query word: Dist edits from it (Whole), or
// from one of its prefixes.
type Near struct {
	ID    uint32
	Dist  int
	Whole bool
}

// Parser turns query text into weighted clauses over an index's words. It
// keeps its scratch space from one query to the next, so a parser is used
// by one search at a time.
type Parser struct {
	// What a parse found: the clauses, whether the query is written as a
	// sentence or in another language than English, what its wording says
	// beside its subject, the sums of the clauses' IDF and weight, and the
	// share of TotalIDF an entry must cover to match.
	Clauses               []Clause
	Sentence, Foreign     bool
	Lang                  Lang // the query's language, by its words or script
	Form                  Form
	TotalIDF, TotalWeight float32
	MatchShare            float32

	v      Vocabulary
	params *Params
	cache  *Cache
	gen    uint64
	live   int

	words    []qword
	spare    []qword // the other buffer of words, for rewriting them
	content  []int
	stems    stemCache
	seq      []string // stems of the content words, then glossed
	seqWords []span   // the words each stem of seq stands for
	named    []string // the concepts whose entries' terms the query has
	key      []byte   // a clause's cache key or a joined word, built here
	at       [maxCueWords]int
	set      stemSet // the stems cues are matched in
	pairs    []string
	cands    []cand
}

// Parse turns query q into clauses over vocabulary v with params, keeping
// the analysis of its words in cache (which must be emptied when the params
// change). It reports false when the query has nothing to
// search for.
func (p *Parser) Parse(v Vocabulary, params *Params, cache *Cache, q string) bool {
	p.v, p.params, p.cache, p.gen, p.live = v, params, cache, v.Generation(), v.Live()
	return p.parse(q)
}

// Clause is one meaningful word of a query and the index words that stand
// for it.
type Clause struct {
	Word   string
	Stem   string
	Exps   []Expansion
	Weight float32 // weight of the word in scores
	IDF    float32 // weight of the word in the query's coverage
	Known  bool    // some index word stands for it
	// Common: the word is one of everyday English (or a number); Cue: it
	// names a concept, as a term entries use or a word people ask with.
	Common, Cue bool
	// Damped: the word is a chatty one of a long query (common, naming no
	// concept), whose matches on names and titles count less: in a pasted
	// task, "launch" or "team" are not the servers named for them.
	Damped bool
	// DF is how many entries have the word or an index word that stands
	// for it (not a concept), the most of them, and NameDF how many have
	// it in their name or title.
	DF, NameDF uint32
	// Asked marks a word entries hardly use that people ask for a concept
	// with ("umbrella" for weather): in a sentence it says what the query
	// is about; Sure, that its concept's entries answer the query alone.
	Asked, Sure bool
	// Bonus marks the clause of a direction pair ("pdf to markdown"): it
	// adds to the score of entries that match its words in that order,
	// and is no part of the query's coverage.
	Bonus bool
}

// Expansion is an index word standing for a query word, with its weight.
type Expansion struct {
	Term   uint32
	Weight float32
}

// qword is one word of a query as typed.
type qword struct {
	text     string
	parts    []string // its compound parts, if any
	shorts   []string // short forms of phrases it belongs to
	concepts []named  // the concepts it names
	gloss    []string // its English words, if it is a foreign word
	stop     bool
	idiom    bool // a word of a stop idiom
	term     bool // a word of a concept's entry term ("recipe", "air quality")
}

// parse turns a query into clauses; it reports false when the query has
// nothing to search for.
func (p *Parser) parse(q string) bool {
	p.words, p.pairs = p.words[:0], p.pairs[:0]
	n := 0
	Tokenize(truncate(q, maxQueryBytes), func(w string, part bool) {
		if part {
			if k := len(p.words); k > 0 && n <= maxQueryWords {
				p.words[k-1].parts = append(p.words[k-1].parts, w)
			}
			return
		}
		if n++; n <= maxQueryWords {
			p.addWord(w)
		}
	})
	p.Form = p.form()
	p.Foreign = p.foreign()
	if p.Lang = scriptLang(q); p.Lang != 0 {
		p.Foreign = true
	}
	foreign := p.Foreign
	dropIdioms(p.words)
	var pw phraseWindow
	content := p.content[:0]
	for i := range p.words {
		if p.words[i].idiom {
			pw = phraseWindow{} // the "to" of "up to date" gives no direction
			continue
		}
		if p.words[i].stop {
			pw.stop(p.words[i].text)
			continue
		}
		content = append(content, i)
		k := len(content) - 1
		pw.push(p.words[i].text, func(short string, span int) {
			if IsPair(short) {
				p.pairs = append(p.pairs, short)
				return
			}
			for _, j := range content[k-span+1 : k+1] {
				p.words[j].shorts = append(p.words[j].shorts, short)
			}
		})
	}
	p.content = content
	p.joinCompounds()
	p.findCues()
	p.Sentence = p.isSentence(foreign)
	if !p.Sentence {
		p.keepBorneOut()
	}
	// Agent phrasing ("find an mcp server to …") is dropped when there is
	// anything else to search for, and so is the small talk of a sentence
	// ("is there something that tells me the weather today").
	weak := func(w string) bool { return weakWords[w] || p.Sentence && fillerWords[w] }
	strong := false
	for _, i := range content {
		strong = strong || !weak(p.words[i].text)
	}
	p.Clauses = p.Clauses[:0]
	for _, i := range content {
		w := &p.words[i]
		if strong && weak(w.text) {
			continue
		}
		if _, ok := p.v.Term(w.text); !ok && len(w.parts) > 0 {
			// A compound the index does not know ("PostgresMCP"): search
			// for its parts.
			for _, part := range w.parts {
				if !stopWords[part] && !IsPair(part) && !(strong && weak(part)) {
					p.addClause(part, w)
				}
			}
			continue
		}
		p.addClause(w.text, w)
	}
	p.dropUnknown()
	if len(p.Clauses) == 0 {
		return false
	}
	p.addPairClauses()
	return p.setShares()
}

// isSentence reports whether the query is written as a sentence: it has
// stop words, or many words (the directory's own: a string of gibberish
// is no sentence), or is in another language.
func (p *Parser) isSentence(foreign bool) bool {
	familiar := 0
	for _, w := range p.words {
		if _, ok := p.v.Term(w.text); ok || w.stop {
			familiar++
		}
	}
	return len(p.words)-len(p.content) >= 2 || familiar >= 6 || foreign && len(p.words) >= 3
}

// setShares sums the query's weights and sets the shares of it an entry
// must cover to match and the best entry to answer. It reports whether
// any of the query's words is known to the index.
func (p *Parser) setShares() bool {
	if p.Sentence && float32(p.contentClauses()) <= p.params.RaiseWords {
		p.raiseTopics()
	}
	known := false
	n := 0
	p.TotalIDF, p.TotalWeight = 0, 0
	for i := range p.Clauses {
		if c := &p.Clauses[i]; !c.Bonus {
			known = known || c.Known
			p.TotalIDF += c.IDF
			p.TotalWeight += c.Weight
			n++
		}
	}
	// A long query is matched by entries that match a few of its words:
	// nobody writes a brief with every word of a pasted task.
	p.MatchShare = min(minMatch, matchClauses/float32(n))
	if p.Sentence && float32(n) >= p.params.LongQuery {
		for i := range p.Clauses {
			c := &p.Clauses[i]
			c.Damped = c.Common && !c.Cue && !c.Bonus
		}
	}
	return known
}

// contentClauses counts the clauses that are words of the query.
func (p *Parser) contentClauses() int {
	n := 0
	for i := range p.Clauses {
		if !p.Clauses[i].Bonus {
			n++
		}
	}
	return n
}

// raiseTopics makes the words of a short sentence that ask for a concept weigh
// as its heaviest word (times Params.Raise): in "do I need to bring an umbrella this afternoon"
// the umbrella says what is asked, while "bring" and "afternoon", rarer in
// the directory, say nothing about it.
func (p *Parser) raiseTopics() {
	var idf, weight float32
	for _, c := range p.Clauses {
		if !c.Bonus {
			idf, weight = max(idf, c.IDF), max(weight, c.Weight)
		}
	}
	for i := range p.Clauses {
		if c := &p.Clauses[i]; c.Asked {
			c.IDF, c.Weight = max(c.IDF, p.params.Raise*idf), max(c.Weight, p.params.Raise*weight)
		}
	}
}

// An entry's coverage of a query is the share of the query's words it
// matches, each word weighing its IDF. An entry must cover minMatch, or
// matchClauses' worth of a long query, to match at all. Coordination then
// scales scores by the share of the query's weight (IDF and topicality) an
// entry matches.
const (
	minMatch     = 0.25
	matchClauses = 1
)

// A word no entry has counts less in a query's coverage and scores
// (Params.Unknown): it cannot tell entries apart, and an everyday word the
// entries do not use ("baratos", "umbrella") must not empty the answer; it
// still counts some, so that a query of mostly unknown words answers
// nothing.

// dropUnknown drops the character pairs of Chinese or Japanese text that no
// entry has (most pairs straddle two words) and weighs other unknown words
// down.
func (p *Parser) dropUnknown() {
	kept := 0
	for i := range p.Clauses {
		c := &p.Clauses[i]
		if !c.Known {
			if isBigram(c.Word) {
				continue
			}
			share := p.params.Unknown
			if p.Sentence {
				share = p.params.UnknownSentence
			}
			c.IDF *= share
			c.Weight *= share
		}
		// Swapped, not copied: each clause keeps expansions of its own for
		// later searches to reuse, where a copy would leave two clauses
		// sharing one array.
		p.Clauses[kept], p.Clauses[i] = p.Clauses[i], p.Clauses[kept]
		kept++
	}
	p.Clauses = p.Clauses[:kept]
}

// addWord appends a word to the query's, reusing the space of earlier
// searches.
func (p *Parser) addWord(w string) {
	if len(p.words) == cap(p.words) {
		p.words = append(p.words, qword{})
	} else {
		p.words = p.words[:len(p.words)+1]
	}
	q := &p.words[len(p.words)-1]
	*q = qword{text: w, stop: stopWords[w], parts: q.parts[:0], shorts: q.shorts[:0],
		concepts: q.concepts[:0], gloss: q.gloss[:0]}
}

// foreign finds a query's language: its stop words are dropped, its
// compounds the index does not know are cut into words it does
// ("zugverbindungen" → zug, verbindungen), and its words also look for
// their stems in that language. It reports whether it found one.
func (p *Parser) foreign() bool {
	var lc languageCount
	for _, w := range p.words {
		lc.add(w.text)
	}
	l := lc.language()
	p.Lang = langOf(l)
	if l == nil {
		return false
	}
	words := p.spare[:0]
	for _, w := range p.words {
		if w.stop = w.stop || l.stop[w.text]; w.stop {
			words = append(words, w)
			continue
		}
		if a, b, ok := p.decompound(w.text); ok {
			words = append(words, qword{text: a}, qword{text: b})
		} else {
			words = append(words, w)
		}
	}
	p.words, p.spare = words, p.words
	for i := range p.words {
		if w := &p.words[i]; !w.stop {
			if st := l.stemOf(w.text); st != "" {
				w.shorts = append(w.shorts, st)
			}
		}
	}
	return true
}

// minCompound is the shortest word cut into two, each of minPrefixLen.
const minCompound = 8

// decompound cuts a word the index does not know into two words it knows
// or has a gloss for, the most even cut first; a linking "s" may end the
// first ("verbindungsdaten").
func (p *Parser) decompound(w string) (string, string, bool) {
	if len(w) < minCompound || p.knows(w) {
		return "", "", false
	}
	for i := 0; i < len(w); i++ {
		if !isASCIILetter(w[i]) {
			return "", "", false
		}
	}
	best, bestLeft, bestRight := 0, "", ""
	for i := minPrefixLen; i <= len(w)-minPrefixLen; i++ {
		left, right := w[:i], w[i:]
		if !p.knows(right) {
			continue
		}
		if !p.knows(left) {
			if left = strings.TrimSuffix(left, "s"); len(left) < minPrefixLen || !p.knows(left) {
				continue
			}
		}
		if even := min(len(left), len(right)); even > best {
			best, bestLeft, bestRight = even, left, right
		}
	}
	return bestLeft, bestRight, best > 0
}

// knows reports whether some entry has word w, or the gloss has it.
func (p *Parser) knows(w string) bool {
	if id, ok := p.v.Term(w); ok && p.df(id) > 0 {
		return true
	}
	_, ok := glossCues[Stem(w)]
	return ok
}

// maxJoin is how many adjacent query words are tried joined.
const maxJoin = 3

// joinCompounds lets adjacent query words find the compound they spell
// ("eleven labs" → elevenlabs, "open weather map" → openweathermap), the
// way people split names that packages write as one word.
func (p *Parser) joinCompounds() {
	for i := range p.words {
		p.key = append(p.key[:0], p.words[i].text...)
		for n := 2; n <= maxJoin && i+n <= len(p.words); n++ {
			next := &p.words[i+n-1]
			if next.stop || p.words[i].stop {
				break
			}
			p.key = append(p.key, next.text...)
			if id, ok := p.v.Term(string(p.key)); ok {
				for j := i; j < i+n; j++ {
					p.words[j].shorts = append(p.words[j].shorts, p.v.Text(id))
				}
			}
		}
	}
}

// dropIdioms marks the words of stop idioms as stop words.
func dropIdioms(words []qword) {
	for i := range words {
		for _, idiom := range stopIdioms {
			if len(words)-i < len(idiom) {
				continue
			}
			match := true
			for j, w := range idiom {
				match = match && words[i+j].text == w
			}
			if match {
				for j := range idiom {
					words[i+j].stop, words[i+j].idiom = true, true
				}
			}
		}
	}
}

// truncate cuts s to at most n bytes, at a rune boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// findCues marks the words of the query that name concepts or are foreign
// words with an English gloss. Concepts are looked for in the query as
// written and with its foreign words glossed ("wetter morgen" reads as
// "weather morgen"), so that a German query finds the weather concept.
func (p *Parser) findCues() {
	p.seq, p.seqWords, p.named = p.seq[:0], p.seqWords[:0], p.named[:0]
	for _, i := range p.content {
		p.seq = append(p.seq, p.stems.of(p.words[i].text))
		p.seqWords = append(p.seqWords, span{i, i + 1})
	}
	n := len(p.seq)
	glossed := false
	p.set.reset(p.seq[:n])
	for i := 0; i < n; {
		best := (*cue)(nil)
		bestSpan := 0
		glossCues.match(p.seq[:n], &p.set, i, false, &p.at, func(c *cue, n int) {
			if n > bestSpan {
				best, bestSpan = c, n
			}
		})
		if best == nil {
			p.seq = append(p.seq, p.seq[i])
			p.seqWords = append(p.seqWords, p.seqWords[i])
			i++
			continue
		}
		glossed = true
		from := span{p.seqWords[i].from, p.seqWords[i+bestSpan-1].to}
		for _, w := range best.words {
			p.seq = append(p.seq, p.stems.of(w))
			p.seqWords = append(p.seqWords, from)
			for j := range p.words[from.from:from.to] {
				if ww := &p.words[from.from+j]; !ww.stop && !slices.Contains(ww.gloss, w) {
					ww.gloss = append(ww.gloss, w)
				}
			}
		}
		i += bestSpan
	}
	p.markConcepts(p.seq[:n], p.seqWords[:n])
	if glossed {
		p.markConcepts(p.seq[n:], p.seqWords[n:])
	}
	// A concept weighs as one word of the query, however many name it.
	for i := range p.words {
		for k := range p.words[i].concepts {
			c := &p.words[i].concepts[k]
			for j := range p.words {
				if slices.ContainsFunc(p.words[j].concepts, func(n named) bool { return n.concept == c.concept }) {
					c.words++
				}
			}
		}
	}
}

// keepBorneOut keeps, of the concepts the words of a keyword query ask for,
// those that another of its words bears out: keywords are mostly the
// entries' own words. In "tail k8s pod logs crashloopbackoff" k8s bears
// Kubernetes out, but in "chocolate cake recipe with frosting" nothing
// bears out the frost of the weather.
func (p *Parser) keepBorneOut() {
	for i := range p.words {
		w := &p.words[i]
		w.concepts = slices.DeleteFunc(w.concepts, func(n named) bool {
			return n.words < 2 && !slices.Contains(p.named, n.concept)
		})
	}
}

// named is a concept a query word asks for.
type named struct {
	concept string // its pseudo-word
	words   int    // how many words of the query ask for it
}

// span is a run of query words, p.words[from:to].
type span struct{ from, to int }

// markConcepts marks the words of every concept cue the stems spell.
func (p *Parser) markConcepts(seq []string, words []span) {
	p.set.reset(seq)
	for i := range seq {
		conceptCues.match(seq, &p.set, i, false, &p.at, func(c *cue, n int) {
			if !slices.Contains(p.named, c.to) {
				p.named = append(p.named, c.to)
			}
			for _, q := range p.at[:n] {
				for j := words[q].from; j < words[q].to; j++ {
					p.words[j].term = true
				}
			}
		})
		askCues.match(seq, &p.set, i, true, &p.at, func(c *cue, n int) {
			for k, q := range p.at[:n] {
				for j := words[q].from; j < words[q].to; j++ {
					w := &p.words[j]
					if k > 0 && isBigram(w.text) {
						// The character pairs of a Chinese or Japanese
						// phrase are pieces of it, not words that each
						// name the concept: its first pair does.
						continue
					}
					if !w.stop && !slices.ContainsFunc(w.concepts, func(n named) bool { return n.concept == c.to }) {
						w.concepts = append(w.concepts, named{concept: c.to})
					}
				}
			}
		})
	}
}

// addClause adds a clause for query word w (the word qw, or one of its
// parts) unless one with the same stem exists. The analysis of a word is
// cached across searches.
func (p *Parser) addClause(w string, qw *qword) {
	p.key = appendClauseKey(p.key[:0], w, qw, p.Sentence, p.Foreign)
	if a, ok := p.cache.Get(p.gen, p.key); ok {
		if p.clauseOf(a.stem) != nil {
			return
		}
		c := p.newClause(w)
		c.Stem, c.Weight, c.IDF, c.Known, c.Asked, c.Sure = a.stem, a.weight, a.idf, a.known, a.asked, a.sure
		c.DF, c.NameDF = a.df, a.nameDF
		c.Exps = append(c.Exps, a.exps...)
		c.Common, c.Cue = isCommon(w, qw), qw.term || len(qw.concepts) > 0
		return
	}
	st := Stem(w)
	if p.clauseOf(st) != nil {
		return
	}
	c := p.newClause(w)
	c.Stem = st
	c.Common, c.Cue = isCommon(w, qw), qw.term || len(qw.concepts) > 0
	p.expand(c, w, st, qw)
	p.cache.Put(p.gen, string(p.key), &analysis{
		stem: st, exps: append([]Expansion(nil), c.Exps...),
		weight: c.Weight, idf: c.IDF, known: c.Known, asked: c.Asked, sure: c.Sure,
		df: c.DF, nameDF: c.NameDF,
	})
}

// isCommon reports whether w is a word of everyday English (or a number)
// that names nothing specific with its neighbours: "tick tick" spells
// TickTick, "text to speech" tts.
func isCommon(w string, qw *qword) bool {
	if !commonEnglish[w] && !isNumber(w) {
		return false
	}
	for _, s := range qw.shorts {
		if !commonEnglish[s] {
			return false
		}
	}
	return true
}

func (p *Parser) clauseOf(st string) *Clause {
	for i := range p.Clauses {
		if c := &p.Clauses[i]; !c.Bonus && c.Stem == st {
			return c
		}
	}
	return nil
}

// newClause appends a clause, reusing the space of earlier searches.
func (p *Parser) newClause(w string) *Clause {
	if len(p.Clauses) < cap(p.Clauses) {
		p.Clauses = p.Clauses[:len(p.Clauses)+1]
	} else {
		p.Clauses = append(p.Clauses, Clause{})
	}
	c := &p.Clauses[len(p.Clauses)-1]
	c.Word, c.Stem, c.Exps, c.Bonus, c.Asked, c.Sure = w, "", c.Exps[:0], false, false, false
	c.Known, c.DF, c.NameDF, c.Common, c.Cue, c.Damped = false, 0, 0, false, false, false
	return c
}

// addPairClauses adds a bonus clause for each direction pair of the query
// whose two words are clauses, weighing as their mean.
func (p *Parser) addPairClauses() {
	for _, pair := range p.pairs {
		a, b, _ := strings.Cut(pair, pairSep)
		ca, cb := p.clauseOf(Stem(a)), p.clauseOf(Stem(b))
		if ca == nil || cb == nil {
			continue
		}
		weight := p.params.Pair * (ca.Weight + cb.Weight) / 2
		c := p.newClause(pair)
		c.Bonus, c.Weight, c.IDF = true, weight, 0
		for _, sa := range withSynonyms(a) {
			for _, sb := range withSynonyms(b) {
				if id, ok := p.v.Term(pairOf(sa, sb)); ok {
					c.add(id, weightExact)
				}
			}
		}
	}
}

// expand finds the index words that stand for query word w, and the
// clause's weight.
func (p *Parser) expand(c *Clause, w, st string, qw *qword) {
	if id, ok := p.v.Term(w); ok {
		c.add(id, weightExact)
	}
	p.addStem(c, st, p.params.Stem)
	if g := synonymsByStem[st]; g != nil {
		for _, syn := range g {
			if syn != w {
				if id, ok := p.v.Term(syn); ok {
					c.add(id, p.params.Synonym)
				}
				p.addStem(c, Stem(syn), p.params.Synonym*p.params.Stem)
			}
		}
	}
	for _, short := range qw.shorts {
		if id, ok := p.v.Term(short); ok {
			c.add(id, weightExact)
		}
	}
	// A foreign word also looks for its English words.
	for _, g := range qw.gloss {
		if id, ok := p.v.Term(g); ok {
			c.add(id, p.params.Gloss)
		}
		p.addStem(c, Stem(g), p.params.Gloss*p.params.Stem)
	}
	core := len(c.Exps)
	// A word of a sentence that entries have is meant as written: "anna"
	// is not "annotation", "unread" not "unreal".
	// A word of a query in another language is a word of that language:
	// it finds what it says, its stem in that language and its English
	// words, never an English name it happens to begin or nearly spell
	// ("gestionar" is not "getsonar"); nor is a Chinese, Japanese or
	// Korean character pair the beginning of a longer word.
	literal := p.Sentence && p.maxDF(c, core) > 0 || p.Foreign || isBigram(w)
	if len(w) >= minPrefixLen && !literal {
		p.addPrefixed(c, w)
	}
	// A word that names a concept is a word, not a typo; nor is a short
	// word of a sentence that entries do not have ("unread" is not
	// "unreal").
	typo := !literal && len(qw.concepts) == 0 && (!p.Sentence || len(w) >= minSentenceTypo)
	if typo && p.maxDF(c, len(c.Exps)) <= uint32(p.live/typoRareness) {
		p.addTypos(c, w, p.maxDF(c, len(c.Exps)))
	}
	if p.maxDF(c, core) == 0 {
		// Nothing but prefixes and typos: they stand for the word.
		core = len(c.Exps)
	}
	// Neighbours stand in for a rare keyword, where the index has little
	// of its own (and cost the scan of their postings).
	if !p.Sentence && p.maxDF(c, core) < relatedBelowDF {
		for _, n := range relatedByStem[st] {
			p.addStem(c, n.stem, p.params.Related*n.weight)
		}
	}
	// A word people ask for a concept with stands for the concept's
	// entries (in keywords, only where the query bears the concept out:
	// see keepBorneOut). The words entries use stand for nothing more
	// than themselves: "telegram" is not every chat app, and measured on
	// the dev sets such expansion did not pay.
	// A word asks for its concepts alone where the concept has many more
	// entries than the word itself ("umbrella", "leftovers"); a word
	// entries use as much ("desktop") says what it says.
	wordDF := p.maxDF(c, core)
	for _, k := range qw.concepts {
		if id, ok := p.v.Term(k.concept); ok {
			c.add(id, p.params.Concept/float32(k.words))
			c.Asked = c.Asked || wordDF*askRatio < p.df(id)
			// The concept alone answers the query where the word is
			// none of the entries' or two words ask for it: "president"
			// asks for politics in no trivia question.
			c.Sure = c.Sure || c.Asked && (wordDF == 0 || k.words > 1)
		}
	}
	if p.maxDF(c, core) == 0 {
		// An everyday word entries do not use ("umbrella"): its concepts
		// stand for it.
		core = len(c.Exps)
	}
	df := p.maxDF(c, core)
	c.Known = df > 0
	// The evidence of what the word finds: its own entries, or else those
	// of its prefixes and near spellings ("postgress"), not its concepts'.
	c.DF, c.NameDF = 0, 0
	for _, e := range c.Exps {
		if t := p.v.Text(e.Term); !IsConcept(t) {
			df, nameDF := p.v.Stats(e.Term)
			c.DF, c.NameDF = max(c.DF, df), max(c.NameDF, nameDF)
		}
	}
	c.IDF = idf(df, p.live)
	c.Weight = c.IDF * float32(math.Pow(p.topicality(c, core), float64(p.params.Topicality)))
}

// topicality is the share of the entries containing the clause's words that
// have them in their name: high for what servers are about ("todoist",
// "postgres", "weather"), low for words that only describe them ("manage",
// "processing", "forecasts"). Its square root scales a word's weight in
// scores, so that in "let my agent manage my todoist tasks" the Todoist
// servers win over task managers; the square root keeps descriptive words
// in play ("transcripts" in "youtube video transcripts").
//
// In a sentence a word needs more evidence to count as a name (a prior of
// sentencePrior entries, one of them naming): most words of a sentence
// only describe, and a rare one ("produce", "priority") is no name.
func (p *Parser) topicality(c *Clause, core int) float64 {
	prior := 2.0
	if p.Sentence {
		prior = float64(p.params.SentencePrior)
	}
	named, all := 0.0, 0.0
	for _, e := range c.Exps[:core] {
		df, nameDF := p.v.Stats(e.Term)
		all += float64(e.Weight) * float64(df)
		if IsConcept(p.v.Text(e.Term)) {
			named += float64(e.Weight) * float64(df) // what entries are about
		} else {
			named += float64(e.Weight) * float64(nameDF)
		}
	}
	return (named + 1) / (all + prior)
}

// withSynonyms is w and the other words of its synonym group.
func withSynonyms(w string) []string {
	if g := synonymsByStem[Stem(w)]; g != nil {
		return g
	}
	return []string{w}
}

// idf is BM25's inverse document frequency; a word in no entry weighs as
// one in half an entry, the most a word can.
func idf(df uint32, n int) float32 {
	return float32(math.Log(1 + (float64(n)-float64(df)+0.5)/(float64(df)+0.5)))
}

// add adds an expansion, keeping the best weight of a word found twice.
func (c *Clause) add(id uint32, weight float32) {
	for i := range c.Exps {
		if c.Exps[i].Term == id {
			c.Exps[i].Weight = max(c.Exps[i].Weight, weight)
			return
		}
	}
	c.Exps = append(c.Exps, Expansion{id, weight})
}

func (c *Clause) has(id uint32) bool {
	for _, e := range c.Exps {
		if e.Term == id {
			return true
		}
	}
	return false
}

// maxDF is the largest document frequency among the clause's first n
// words: the frequency of the word they stand for together, as Lucene's
// synonym query has it.
func (p *Parser) maxDF(c *Clause, n int) uint32 {
	df := uint32(0)
	for _, e := range c.Exps[:n] {
		df = max(df, p.df(e.Term))
	}
	return df
}

// df is how many entries have an index word.
func (p *Parser) df(id uint32) uint32 {
	df, _ := p.v.Stats(id)
	return df
}

// maxStemRing bounds the words taken from one stem.
const maxStemRing = 32

// addStem adds the words that share stem st.
func (p *Parser) addStem(c *Clause, st string, weight float32) {
	p.v.SameStem(st, maxStemRing, func(id uint32) {
		if !c.has(id) {
			c.add(id, weight)
		}
	})
}

// addPrefixed adds the words that w begins, the most frequent first.
func (p *Parser) addPrefixed(c *Clause, w string) {
	p.cands = p.cands[:0]
	p.v.Prefixed(w, func(id uint32, text string) {
		p.addCand(c, id, p.params.Prefix*prefixWeight(w, text))
	})
	p.takeCands(c, maxPrefixTerms)
}

// prefixWeight weighs word t found by its prefix w by how much of it w is:
// "postgresql" is nearly "postgres", "ticket" is another word than "tick".
func prefixWeight(w, t string) float32 {
	return float32(len(w)) / float32(len(t))
}

// addTypos adds the words near w that are far more frequent than it.
func (p *Parser) addTypos(c *Clause, w string, df uint32) {
	budget := typoBudget(len(w))
	if budget == 0 || len(w) > MaxTypoLen {
		return
	}
	for i := 0; i < len(w); i++ {
		if !isASCIILetter(w[i]) {
			return
		}
	}
	// The nearest corrections win, as in a spell checker: two edits are
	// tried only when no word one edit away will do.
	p.cands = p.cands[:0]
	for b := 1; b <= budget && len(p.cands) == 0; b++ {
		for _, m := range p.v.Near(w, b) {
			if p.df(m.ID) <= typoDominance*df {
				continue
			}
			weight := p.params.Typo
			if m.Dist > 1 {
				weight *= typoTwoFactor
			}
			if !m.Whole {
				weight *= typoPrefixFactor
			}
			p.addCand(c, m.ID, weight)
		}
	}
	p.takeCands(c, maxTypoTerms)
}

// cand is a candidate expansion, ranked by weight then frequency.
type cand struct {
	Expansion
	df uint32
}

func (p *Parser) addCand(c *Clause, id uint32, weight float32) {
	if df := p.df(id); df > 0 && !c.has(id) {
		p.cands = append(p.cands, cand{Expansion{id, weight}, df})
	}
}

// takeCands adds the best n candidates to the clause.
func (p *Parser) takeCands(c *Clause, n int) {
	if len(p.cands) > n {
		sort.Slice(p.cands, func(i, j int) bool {
			a, b := p.cands[i], p.cands[j]
			if a.Weight != b.Weight {
				return a.Weight > b.Weight
			}
			if a.df != b.df {
				return a.df > b.df
			}
			return a.Term < b.Term
		})
		p.cands = p.cands[:n]
	}
	for _, k := range p.cands {
		c.add(k.Term, k.Weight)
	}
}
