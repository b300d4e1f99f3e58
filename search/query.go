package search

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
	maxQueryWords = 48
)

// How much a document word counts for a query word, by how it was found.
const (
	weightExact   = 1
	weightStem    = 0.95 // same English stem: "databases" for "database"
	weightSynonym = 0.9  // "k8s" for "kubernetes"
	weightPrefix  = 0.8  // "postgresql" for "postgres", times len(w)/len(t)
	weightTypo1   = 0.6  // one edit away
	weightTypo2   = 0.45 // two edits away
	// typoPrefixFactor scales a typo match on a word's prefix.
	typoPrefixFactor = 0.85
)

// Expansion bounds, so that a short or common prefix stays cheap.
const (
	minPrefixLen   = 3
	maxPrefixTerms = 64
	maxTypoTerms   = 32
)

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

// clause is one meaningful word of a query and the index words that stand
// for it.
type clause struct {
	word   string
	stem   string
	exps   []expansion
	weight float32 // weight of the word in scores
	idf    float32 // weight of the word in the query's coverage
	known  bool    // some index word stands for it
	// asked marks a word entries hardly use that people ask for a concept
	// with ("umbrella" for weather): in a sentence it says what the query
	// is about; sure, that its concept's entries answer the query alone.
	asked, sure bool
	// bonus marks the clause of a direction pair ("pdf to markdown"): it
	// adds to the score of entries that match its words in that order,
	// and is no part of the query's coverage.
	bonus bool
}

// expansion is an index word standing for a query word, with its weight.
type expansion struct {
	term   uint32
	weight float32
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
}

// parse turns a query into clauses; it reports false when the query has
// nothing to search for.
func (s *searcher) parse(x *Index, q string) bool {
	s.words, s.pairs = s.words[:0], s.pairs[:0]
	n := 0
	tokenize(truncate(q, maxQueryBytes), func(w string, part bool) {
		if part {
			if k := len(s.words); k > 0 && n <= maxQueryWords {
				s.words[k-1].parts = append(s.words[k-1].parts, w)
			}
			return
		}
		if n++; n <= maxQueryWords {
			s.addWord(w)
		}
	})
	foreign := s.foreign(x)
	dropIdioms(s.words)
	var pw phraseWindow
	content := s.content[:0]
	for i := range s.words {
		if s.words[i].idiom {
			pw = phraseWindow{} // the "to" of "up to date" gives no direction
			continue
		}
		if s.words[i].stop {
			pw.stop(s.words[i].text)
			continue
		}
		content = append(content, i)
		k := len(content) - 1
		pw.push(s.words[i].text, func(short string, span int) {
			if isPair(short) {
				s.pairs = append(s.pairs, short)
				return
			}
			for _, j := range content[k-span+1 : k+1] {
				s.words[j].shorts = append(s.words[j].shorts, short)
			}
		})
	}
	s.content = content
	s.joinCompounds(x)
	s.findCues()
	s.sentence = s.isSentence(x, foreign)
	if !s.sentence {
		s.keepBorneOut()
	}
	// Agent phrasing ("find an mcp server to …") is dropped when there is
	// anything else to search for, and so is the small talk of a sentence
	// ("is there something that tells me the weather today").
	weak := func(w string) bool { return weakWords[w] || s.sentence && fillerWords[w] }
	strong := false
	for _, i := range content {
		strong = strong || !weak(s.words[i].text)
	}
	s.clauses = s.clauses[:0]
	for _, i := range content {
		w := &s.words[i]
		if strong && weak(w.text) {
			continue
		}
		if _, ok := x.termIDs[w.text]; !ok && len(w.parts) > 0 {
			// A compound the index does not know ("PostgresMCP"): search
			// for its parts.
			for _, p := range w.parts {
				if !stopWords[p] && !isPair(p) && !(strong && weak(p)) {
					s.addClause(x, p, w)
				}
			}
			continue
		}
		s.addClause(x, w.text, w)
	}
	s.dropUnknown()
	if len(s.clauses) == 0 {
		return false
	}
	s.addPairClauses(x)
	return s.setShares()
}

// isSentence reports whether the query is written as a sentence: it has
// stop words, or many words (the directory's own: a string of gibberish
// is no sentence), or is in another language.
func (s *searcher) isSentence(x *Index, foreign bool) bool {
	familiar := 0
	for _, w := range s.words {
		if _, ok := x.termIDs[w.text]; ok || w.stop {
			familiar++
		}
	}
	return len(s.words)-len(s.content) >= 2 || familiar >= 6 || foreign && len(s.words) >= 3
}

// setShares sums the query's weights and sets the shares of it an entry
// must cover to match and the best entry to answer. It reports whether
// any of the query's words is known to the index.
func (s *searcher) setShares() bool {
	topic := s.sentence && s.raiseTopics()
	known := false
	n, unknown := 0, 0
	s.totalIDF, s.totalWeight = 0, 0
	maxIDF := float32(0)
	for i := range s.clauses {
		if c := &s.clauses[i]; !c.bonus {
			known = known || c.known
			if !c.known {
				unknown++
			}
			s.totalIDF += c.idf
			s.totalWeight += c.weight
			maxIDF = max(maxIDF, c.idf)
			n++
		}
	}
	// A long query is answered by entries that match a few of its words:
	// nobody writes a brief with every word of a pasted task. A sentence
	// that asks for a concept is answered by the entries about it.
	s.matchShare = min(minMatch, matchClauses/float32(n))
	answer := float32(answerClauses)
	if n > shortSentence {
		answer = taskAnswerClauses
	}
	s.answerShare = min(minAnswer, answer/float32(n))
	if topic {
		s.answerShare = min(s.answerShare, maxIDF/s.totalIDF)
	}
	if s.sentence && unknown <= 1 {
		// A sentence of known words that names what servers are named
		// for ("binance", "jira") is answered by the entries that have
		// that name.
		for _, c := range s.clauses {
			if r := c.weight / c.idf; !c.bonus && c.known && r*r >= namedTopicality {
				s.answerShare = min(s.answerShare, c.idf/s.totalIDF)
			}
		}
	}
	return known
}

// namedTopicality is the topicality from which a word is taken for a name
// servers are known by.
const namedTopicality = 0.45

// raiseTopics makes the words of a sentence that ask for a concept weigh
// as its heaviest word: in "do I need to bring an umbrella this afternoon"
// the umbrella says what is asked, while "bring" and "afternoon", rarer in
// the directory, say nothing about it. It reports whether one of them is
// sure, so that the concept's entries alone answer the query.
func (s *searcher) raiseTopics() bool {
	var idf, weight float32
	topic := false
	for _, c := range s.clauses {
		if !c.bonus {
			idf, weight = max(idf, c.idf), max(weight, c.weight)
			topic = topic || c.sure
		}
	}
	for i := range s.clauses {
		if c := &s.clauses[i]; c.asked {
			c.idf, c.weight = idf, weight
		}
	}
	return topic
}

// How many clauses' worth of a long query an entry must cover to match,
// and the best entry to answer at all: a question of a few words must be
// met on more of them than a pasted task, whose words are mostly the
// task's own circumstances.
const (
	matchClauses      = 1
	answerClauses     = 2.5
	taskAnswerClauses = 2
	shortSentence     = 6
)

// unknownShare is how much a word no entry has counts in a query's
// coverage: it cannot tell entries apart, and an everyday word the entries
// do not use ("baratos", "umbrella") must not empty the answer; it still
// counts some, so that a query of mostly unknown words answers nothing.
const unknownShare = 0.5

// unknownSentenceShare is unknownShare in a sentence, where an unknown
// word is mostly an everyday or foreign one ("Kundendaten im CRM
// aktualisieren").
const unknownSentenceShare = 0.25

// dropUnknown drops the character pairs of Chinese or Japanese text that no
// entry has (most pairs straddle two words) and weighs other unknown words
// down.
func (s *searcher) dropUnknown() {
	kept := 0
	for i := range s.clauses {
		c := &s.clauses[i]
		if !c.known {
			if isBigram(c.word) {
				continue
			}
			share := float32(unknownShare)
			if s.sentence {
				share = unknownSentenceShare
			}
			c.idf *= share
			c.weight *= share
		}
		// Swapped, not copied: each clause keeps expansions of its own for
		// later searches to reuse, where a copy would leave two clauses
		// sharing one array.
		s.clauses[kept], s.clauses[i] = s.clauses[i], s.clauses[kept]
		kept++
	}
	s.clauses = s.clauses[:kept]
}

// addWord appends a word to the query's, reusing the space of earlier
// searches.
func (s *searcher) addWord(w string) {
	if len(s.words) == cap(s.words) {
		s.words = append(s.words, qword{})
	} else {
		s.words = s.words[:len(s.words)+1]
	}
	q := &s.words[len(s.words)-1]
	*q = qword{text: w, stop: stopWords[w], parts: q.parts[:0], shorts: q.shorts[:0],
		concepts: q.concepts[:0], gloss: q.gloss[:0]}
}

// foreign finds a query's language: its stop words are dropped, its
// compounds the index does not know are cut into words it does
// ("zugverbindungen" → zug, verbindungen), and its words also look for
// their stems in that language. It reports whether it found one.
func (s *searcher) foreign(x *Index) bool {
	var lc languageCount
	for _, w := range s.words {
		lc.add(w.text)
	}
	l := lc.language()
	if l == nil {
		return false
	}
	words := s.spare[:0]
	for _, w := range s.words {
		if w.stop = w.stop || l.stop[w.text]; w.stop {
			words = append(words, w)
			continue
		}
		if a, b, ok := x.decompound(w.text); ok {
			words = append(words, qword{text: a}, qword{text: b})
		} else {
			words = append(words, w)
		}
	}
	s.words, s.spare = words, s.words
	for i := range s.words {
		if w := &s.words[i]; !w.stop {
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
func (x *Index) decompound(w string) (string, string, bool) {
	if len(w) < minCompound || x.knows(w) {
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
		if !x.knows(right) {
			continue
		}
		if !x.knows(left) {
			if left = strings.TrimSuffix(left, "s"); len(left) < minPrefixLen || !x.knows(left) {
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
func (x *Index) knows(w string) bool {
	if id, ok := x.termIDs[w]; ok && x.terms[id].df > 0 {
		return true
	}
	_, ok := glossCues[stem(w)]
	return ok
}

// maxJoin is how many adjacent query words are tried joined.
const maxJoin = 3

// joinCompounds lets adjacent query words find the compound they spell
// ("eleven labs" → elevenlabs, "open weather map" → openweathermap), the
// way people split names that packages write as one word.
func (s *searcher) joinCompounds(x *Index) {
	for i := range s.words {
		s.key = append(s.key[:0], s.words[i].text...)
		for n := 2; n <= maxJoin && i+n <= len(s.words); n++ {
			next := &s.words[i+n-1]
			if next.stop || s.words[i].stop {
				break
			}
			s.key = append(s.key, next.text...)
			if id, ok := x.termIDs[string(s.key)]; ok {
				for j := i; j < i+n; j++ {
					s.words[j].shorts = append(s.words[j].shorts, x.terms[id].text)
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
func (s *searcher) findCues() {
	s.seq, s.seqWords, s.named = s.seq[:0], s.seqWords[:0], s.named[:0]
	for _, i := range s.content {
		s.seq = append(s.seq, s.stems.of(s.words[i].text))
		s.seqWords = append(s.seqWords, span{i, i + 1})
	}
	n := len(s.seq)
	glossed := false
	for p := 0; p < n; {
		best := (*cue)(nil)
		bestSpan := 0
		glossCues.match(s.seq[:n], p, anyCue, &s.at, func(c *cue, n int) {
			if n > bestSpan {
				best, bestSpan = c, n
			}
		})
		if best == nil {
			s.seq = append(s.seq, s.seq[p])
			s.seqWords = append(s.seqWords, s.seqWords[p])
			p++
			continue
		}
		glossed = true
		from := span{s.seqWords[p].from, s.seqWords[p+bestSpan-1].to}
		for _, w := range best.words {
			s.seq = append(s.seq, s.stems.of(w))
			s.seqWords = append(s.seqWords, from)
			for j := range s.words[from.from:from.to] {
				if ww := &s.words[from.from+j]; !ww.stop && !slices.Contains(ww.gloss, w) {
					ww.gloss = append(ww.gloss, w)
				}
			}
		}
		p += bestSpan
	}
	s.markConcepts(s.seq[:n], s.seqWords[:n])
	if glossed {
		s.markConcepts(s.seq[n:], s.seqWords[n:])
	}
	// A concept weighs as one word of the query, however many name it.
	for i := range s.words {
		for k := range s.words[i].concepts {
			c := &s.words[i].concepts[k]
			for j := range s.words {
				if slices.ContainsFunc(s.words[j].concepts, func(n named) bool { return n.concept == c.concept }) {
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
func (s *searcher) keepBorneOut() {
	for i := range s.words {
		w := &s.words[i]
		w.concepts = slices.DeleteFunc(w.concepts, func(n named) bool {
			return n.words < 2 && !slices.Contains(s.named, n.concept)
		})
	}
}

// named is a concept a query word asks for.
type named struct {
	concept string // its pseudo-word
	words   int    // how many words of the query ask for it
}

// span is a run of query words, s.words[from:to].
type span struct{ from, to int }

// markConcepts marks the words of every concept cue the stems spell.
func (s *searcher) markConcepts(seq []string, words []span) {
	for p := range seq {
		conceptCues.match(seq, p, entryCue, &s.at, func(c *cue, _ int) {
			if !slices.Contains(s.named, c.to) {
				s.named = append(s.named, c.to)
			}
		})
		conceptCues.match(seq, p, askCue, &s.at, func(c *cue, n int) {
			for _, q := range s.at[:n] {
				for j := words[q].from; j < words[q].to; j++ {
					w := &s.words[j]
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
func (s *searcher) addClause(x *Index, w string, qw *qword) {
	s.key = appendClauseKey(s.key[:0], w, qw, s.sentence)
	if a, ok := x.clauses.Get(x.gen, s.key); ok {
		if s.clauseOf(a.stem) != nil {
			return
		}
		c := s.newClause(w)
		c.stem, c.weight, c.idf, c.known, c.asked, c.sure = a.stem, a.weight, a.idf, a.known, a.asked, a.sure
		c.exps = append(c.exps, a.exps...)
		return
	}
	st := stem(w)
	if s.clauseOf(st) != nil {
		return
	}
	c := s.newClause(w)
	c.stem = st
	s.expand(x, c, w, st, qw)
	x.clauses.Put(x.gen, string(s.key), &analyzedClause{
		stem: st, exps: append([]expansion(nil), c.exps...),
		weight: c.weight, idf: c.idf, known: c.known, asked: c.asked, sure: c.sure,
	})
}

func (s *searcher) clauseOf(st string) *clause {
	for i := range s.clauses {
		if c := &s.clauses[i]; !c.bonus && c.stem == st {
			return c
		}
	}
	return nil
}

// newClause appends a clause, reusing the space of earlier searches.
func (s *searcher) newClause(w string) *clause {
	if len(s.clauses) < cap(s.clauses) {
		s.clauses = s.clauses[:len(s.clauses)+1]
	} else {
		s.clauses = append(s.clauses, clause{})
	}
	c := &s.clauses[len(s.clauses)-1]
	c.word, c.stem, c.exps, c.bonus, c.asked, c.sure = w, "", c.exps[:0], false, false, false
	return c
}

// addPairClauses adds a bonus clause for each direction pair of the query
// whose two words are clauses, weighing as their mean.
func (s *searcher) addPairClauses(x *Index) {
	for _, p := range s.pairs {
		a, b, _ := strings.Cut(p, pairSep)
		ca, cb := s.clauseOf(stem(a)), s.clauseOf(stem(b))
		if ca == nil || cb == nil {
			continue
		}
		weight := (ca.weight + cb.weight) / 2
		c := s.newClause(p)
		c.bonus, c.weight, c.idf = true, weight, 0
		for _, sa := range withSynonyms(a) {
			for _, sb := range withSynonyms(b) {
				if id, ok := x.termIDs[pairOf(sa, sb)]; ok {
					c.add(id, weightExact)
				}
			}
		}
	}
}

// expand finds the index words that stand for query word w, and the
// clause's weight.
func (s *searcher) expand(x *Index, c *clause, w, st string, qw *qword) {
	if id, ok := x.termIDs[w]; ok {
		c.add(id, weightExact)
	}
	s.addStem(x, c, st, weightStem)
	if g := synonymsByStem[st]; g != nil {
		for _, syn := range g {
			if syn != w {
				if id, ok := x.termIDs[syn]; ok {
					c.add(id, weightSynonym)
				}
				s.addStem(x, c, stem(syn), weightSynonym*weightStem)
			}
		}
	}
	for _, short := range qw.shorts {
		if id, ok := x.termIDs[short]; ok {
			c.add(id, weightExact)
		}
	}
	// A foreign word also looks for its English words.
	for _, g := range qw.gloss {
		if id, ok := x.termIDs[g]; ok {
			c.add(id, weightGloss)
		}
		s.addStem(x, c, stem(g), weightGloss*weightStem)
	}
	core := len(c.exps)
	// A word of a sentence that entries have is meant as written: "anna"
	// is not "annotation", "unread" not "unreal".
	literal := s.sentence && c.maxDF(x, core) > 0
	if len(w) >= minPrefixLen && !literal {
		s.addPrefixed(x, c, w)
	}
	// A word that names a concept is a word, not a typo; nor is a short
	// word of a sentence that entries do not have ("unread" is not
	// "unreal").
	typo := !literal && len(qw.concepts) == 0 && (!s.sentence || len(w) >= minSentenceTypo)
	if typo && c.maxDF(x, len(c.exps)) <= uint32(x.live/typoRareness) {
		s.addTypos(x, c, w, c.maxDF(x, len(c.exps)))
	}
	if c.maxDF(x, core) == 0 {
		// Nothing but prefixes and typos: they stand for the word.
		core = len(c.exps)
	}
	// Neighbours stand in for a rare keyword, where the index has little
	// of its own (and cost the scan of their postings).
	if !s.sentence && c.maxDF(x, core) < relatedBelowDF {
		for _, n := range relatedByStem[st] {
			s.addStem(x, c, n.stem, weightRelated*n.weight)
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
	wordDF := c.maxDF(x, core)
	for _, k := range qw.concepts {
		if id, ok := x.termIDs[k.concept]; ok {
			c.add(id, weightConcept/float32(k.words))
			c.asked = c.asked || wordDF*askRatio < x.terms[id].df
			// The concept alone answers the query where the word is
			// none of the entries' or two words ask for it: "president"
			// asks for politics in no trivia question.
			c.sure = c.sure || c.asked && (wordDF == 0 || k.words > 1)
		}
	}
	if c.maxDF(x, core) == 0 {
		// An everyday word entries do not use ("umbrella"): its concepts
		// stand for it.
		core = len(c.exps)
	}
	df := c.maxDF(x, core)
	c.known = df > 0
	c.idf = idf(df, x.live)
	c.weight = c.idf * float32(math.Sqrt(c.topicality(x, core, s.sentence)))
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
func (c *clause) topicality(x *Index, core int, sentence bool) float64 {
	prior := 2.0
	if sentence {
		prior = sentencePrior
	}
	named, all := 0.0, 0.0
	for _, e := range c.exps[:core] {
		t := &x.terms[e.term]
		all += float64(e.weight) * float64(t.df)
		if isConcept(t.text) {
			named += float64(e.weight) * float64(t.df) // what entries are about
		} else {
			named += float64(e.weight) * float64(t.nameDF)
		}
	}
	return (named + 1) / (all + prior)
}

// sentencePrior is topicality's prior, in entries, for the words of a
// sentence.
const sentencePrior = 10

// withSynonyms is w and the other words of its synonym group.
func withSynonyms(w string) []string {
	if g := synonymsByStem[stem(w)]; g != nil {
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
func (c *clause) add(id uint32, weight float32) {
	for i := range c.exps {
		if c.exps[i].term == id {
			c.exps[i].weight = max(c.exps[i].weight, weight)
			return
		}
	}
	c.exps = append(c.exps, expansion{id, weight})
}

func (c *clause) has(id uint32) bool {
	for _, e := range c.exps {
		if e.term == id {
			return true
		}
	}
	return false
}

// maxDF is the largest document frequency among the clause's first n
// words: the frequency of the word they stand for together, as Lucene's
// synonym query has it.
func (c *clause) maxDF(x *Index, n int) uint32 {
	df := uint32(0)
	for _, e := range c.exps[:n] {
		df = max(df, x.terms[e.term].df)
	}
	return df
}

// maxStemRing bounds the words taken from one stem.
const maxStemRing = 32

// addStem adds the words that share stem st.
func (s *searcher) addStem(x *Index, c *clause, st string, weight float32) {
	head, ok := x.stemHeads[st]
	if !ok {
		return
	}
	id := head
	for range maxStemRing {
		if !c.has(id) {
			c.add(id, weight)
		}
		if id = x.terms[id].sameStem; id == head {
			return
		}
	}
}

// addPrefixed adds the words that w begins, the most frequent first.
func (s *searcher) addPrefixed(x *Index, c *clause, w string) {
	d := &x.dict
	s.cands = s.cands[:0]
	lo := sort.SearchStrings(d.words, w)
	for i := lo; i < len(d.words) && strings.HasPrefix(d.words[i], w); i++ {
		s.addCand(x, c, d.ids[i], prefixWeight(w, d.words[i]))
	}
	for _, id := range d.pending {
		if strings.HasPrefix(x.terms[id].text, w) {
			s.addCand(x, c, id, prefixWeight(w, x.terms[id].text))
		}
	}
	s.takeCands(c, maxPrefixTerms)
}

// prefixWeight weighs word t found by its prefix w by how much of it w is:
// "postgresql" is nearly "postgres", "ticket" is another word than "tick".
func prefixWeight(w, t string) float32 {
	return weightPrefix * float32(len(w)) / float32(len(t))
}

// addTypos adds the words near w that are far more frequent than it.
func (s *searcher) addTypos(x *Index, c *clause, w string, df uint32) {
	budget := typoBudget(len(w))
	if budget == 0 || len(w) > maxFuzzyLen {
		return
	}
	for i := 0; i < len(w); i++ {
		if !isASCIILetter(w[i]) {
			return
		}
	}
	// The nearest corrections win, as in a spell checker: two edits are
	// tried only when no word one edit away will do.
	s.cands = s.cands[:0]
	for b := 1; b <= budget && len(s.cands) == 0; b++ {
		for _, m := range s.fuzzy.run(&x.dict, x.terms, w, b) {
			if x.terms[m.id].df <= typoDominance*df {
				continue
			}
			weight := float32(weightTypo1)
			if m.dist > 1 {
				weight = weightTypo2
			}
			if !m.whole {
				weight *= typoPrefixFactor
			}
			s.addCand(x, c, m.id, weight)
		}
	}
	s.takeCands(c, maxTypoTerms)
}

// cand is a candidate expansion, ranked by weight then frequency.
type cand struct {
	expansion
	df uint32
}

func (s *searcher) addCand(x *Index, c *clause, id uint32, weight float32) {
	if df := x.terms[id].df; df > 0 && !c.has(id) {
		s.cands = append(s.cands, cand{expansion{id, weight}, df})
	}
}

// takeCands adds the best n candidates to the clause.
func (s *searcher) takeCands(c *clause, n int) {
	if len(s.cands) > n {
		sort.Slice(s.cands, func(i, j int) bool {
			a, b := s.cands[i], s.cands[j]
			if a.weight != b.weight {
				return a.weight > b.weight
			}
			if a.df != b.df {
				return a.df > b.df
			}
			return a.term < b.term
		})
		s.cands = s.cands[:n]
	}
	for _, k := range s.cands {
		c.add(k.term, k.weight)
	}
}
