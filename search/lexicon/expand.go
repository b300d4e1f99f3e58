package lexicon

import (
	"math"
	"slices"
	"sort"
	"strings"
)

// How a word of a query finds the index words that stand for it: itself,
// its stem, synonyms, the short forms of its phrases, its English words,
// the longer words it begins, its near spellings, related words and the
// concepts it asks for; and how much it weighs.

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

// phraseConcept scales the concept of a term of two or more words entries
// use, which the query has ("points of interest"): the words of such a term
// are read in its sense (see findCues), but the term is not asked for the
// way a phrase people ask with is, and its concept's entries stand for it
// at half the weight. Chosen on the tune half of the natural-language set
// and the fresh set (1, 0.75, 0.5 and 0.25 tried; docs/BENCHMARKS.md).
const phraseConcept = 0.5

// relatedBelowDF is how few entries a keyword is found in for its
// related words to be looked for too.
const relatedBelowDF = 50

// askRatio is how many times more entries a concept must have than a word
// that asks for it, for the word to stand for the concept alone.
const askRatio = 2

// minSentenceTypo is the shortest word of a sentence taken for a typo.
const minSentenceTypo = 7

// typoFrequency is how much a typo's correction weighs by its frequency
// against the most frequent correction as near: (df/max)^typoFrequency.
// Chosen on one sample of typos made of corpus names' words (0, 0.25, 0.5
// and 1 tried; docs/BENCHMARKS.md).
const typoFrequency = 0.25

// Typo matching steps in only for words that are rare in the index (found
// in at most 1 of typoRareness entries, exact, stemmed or as a prefix), and
// only takes near words typoDominance times as frequent: a rare word next
// to a common one is likely its misspelling, a common word is not.
const (
	typoRareness  = 5000
	typoDominance = 8
)

// addClause adds a clause for query word w (the word qw, or one of its
// parts) unless one with the same stem exists. The analysis of a word is
// cached across searches.
func (p *Parser) addClause(w string, qw *qword) {
	// A weak word kept for the concept a phrase of stop words and it asks
	// for ("things" of "things to do in rome") means only that: entries
	// that have it use it in another sense (the Things app).
	unborne := sensable(w, qw) && !p.sensedHere(qw) || p.phraseUnborne(w, qw) || qw.facts.weak && saysConcept(qw)
	p.key = appendClauseKey(p.key[:0], w, qw, p.Sentence, p.Foreign, unborne)
	// The analysis of a word whose key is the word itself, a keyword
	// without phrases or concepts (most are), is kept with what is known
	// of the word, which the parser has looked up already.
	alone := len(p.key) == len(w)
	var info wordInfo
	switch {
	case alone && w == qw.text:
		info = qw.wordInfo
	case alone:
		info = p.info(w)
	default:
		info.alone, _ = p.cache.clauses.Get(p.gen, p.key)
	}
	if a := info.alone; a != nil {
		if p.clauseOf(a.stem) != nil {
			return
		}
		c := p.newClause(w)
		c.Stem, c.Weight, c.IDF, c.Known, c.Asked = a.stem, a.weight, a.idf, a.known, a.asked
		c.DF, c.NameDF, c.Sensed = a.df, a.nameDF, a.sensed
		c.Exps = append(c.Exps, a.exps...)
		c.Common, c.Cue, c.English = a.common, qw.term || len(qw.concepts) > 0, a.english
		c.Senses = p.sensesOf(qw)
		return
	}
	st := p.stem(w)
	if p.clauseOf(st) != nil {
		return
	}
	c := p.newClause(w)
	c.Stem = st
	c.Common, c.Cue, c.English = isCommon(w, qw), qw.term || len(qw.concepts) > 0, isEnglish(w)
	c.Senses = p.sensesOf(qw)
	p.partial = false
	p.expand(c, w, st, qw, unborne)
	if p.partial {
		return // an analysis without the near spellings it was refused is this query's alone
	}
	a := &analysis{
		stem: st, exps: append([]Expansion(nil), c.Exps...),
		weight: c.Weight, idf: c.IDF, known: c.Known, asked: c.Asked,
		df: c.DF, nameDF: c.NameDF, sensed: c.Sensed, common: c.Common, english: c.English,
	}
	if alone {
		info.alone = a
		p.cache.words.Put(p.gen, string(p.key), info)
	} else {
		p.cache.clauses.Put(p.gen, string(p.key), a)
	}
}

// isCommon reports whether w is a word of everyday English (or a number,
// or an amount such as "800k") that names nothing specific with its
// neighbours: "tick tick" spells TickTick, "text to speech" tts.
func isCommon(w string, qw *qword) bool {
	if !commonEnglish[w] && !isNumber(w) && !isAmount(w) {
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
	c.Word, c.Stem, c.Exps, c.Reverse, c.Bonus, c.Asked = w, "", c.Exps[:0], c.Reverse[:0], false, false
	c.Known, c.DF, c.NameDF, c.Common, c.Cue, c.Damped, c.Sensed, c.Senses = false, 0, 0, false, false, false, false, 0
	c.Qualifier, c.English = false, false
	return c
}

// addPairClauses adds a bonus clause for each direction pair of the query
// whose two words are clauses, weighing as their mean, with the pair's
// words the other way round.
func (p *Parser) addPairClauses() {
	for _, pair := range p.pairs {
		a, b, _ := strings.Cut(pair, pairSep)
		ca, cb := p.clauseOf(p.stem(a)), p.clauseOf(p.stem(b))
		if ca == nil || cb == nil {
			continue
		}
		weight := p.params.Pair * (ca.Weight + cb.Weight) / 2
		c := p.newClause(pair)
		c.Bonus, c.Weight, c.IDF = true, weight, 0
		for _, sa := range p.pairForms(a) {
			for _, sb := range p.pairForms(b) {
				if id, ok := p.v.Term(pairOf(sa, sb)); ok {
					c.add(id, weightExact)
				}
				if id, ok := p.v.Term(pairOf(sb, sa)); ok && sa != sb {
					c.Reverse = append(c.Reverse, id)
				}
			}
		}
	}
}

// expand finds the index words that stand for query word w, and the
// clause's weight. unborne is whether w is sensable and its sense is borne out by nothing in
// the index (see sensedHere).
func (p *Parser) expand(c *Clause, w, st string, qw *qword, unborne bool) {
	if id, ok := p.v.Term(w); ok {
		c.add(id, weightExact)
		if df, nameDF := p.v.Stats(id); namedProduct(w, df, nameDF) { // "contentful", "feedly"
			p.addStemNamed(c, w, st, p.params.Stem)
		} else {
			p.addStem(c, st, p.params.Stem)
		}
	} else {
		p.addStem(c, st, p.params.Stem)
	}
	if g := synonymsByStem[st]; g != nil {
		for _, syn := range g {
			if syn != w {
				if id, ok := p.v.Term(syn); ok {
					c.add(id, p.params.Synonym)
				}
				p.addStem(c, p.stem(syn), p.params.Synonym*p.params.Stem)
			}
		}
	}
	// A place also finds its adjectives, and an adjective its place:
	// entries say "French tax", people "my income tax in France".
	for _, adj := range placeAdjectives()[w] {
		if id, ok := p.v.Term(adj); ok {
			c.add(id, p.params.Synonym)
		}
	}
	// A phrase spelt with a word that says nothing alone names its short
	// form's thing: "sql server" is Microsoft SQL Server, and an entry that
	// has only "sql" is weak evidence of it.
	shortsFrom, meant := len(c.Exps), false
	for _, short := range qw.shorts {
		if id, ok := p.v.Term(short); ok {
			c.add(id, weightExact)
			meant = meant || slices.Contains(qw.meant, short) && p.df(id) > 0
		}
	}
	shortsTo := len(c.Exps)
	if meant {
		c.markWeak(0)
		for i := shortsFrom; i < shortsTo; i++ {
			c.Exps[i].Weak = false
		}
	}
	// A foreign word also looks for its English words.
	for _, g := range qw.gloss {
		if id, ok := p.v.Term(g); ok {
			c.add(id, p.params.Gloss)
		}
		p.addStem(c, p.stem(g), p.params.Gloss*p.params.Stem)
	}
	core := len(c.Exps)
	// What the word finds beside itself is weak evidence of it: another
	// word it begins or nearly spells, or its singular the stemmer does
	// not find, when it has entries of its own, and its corpus neighbours
	// always ("weather" is not "network conditions").
	own := p.maxDF(c, core) > 0
	plural := len(c.Exps)
	if one, ok := p.pluralLeftWhole(w, st); ok {
		p.addStem(c, p.stem(one), p.params.Stem)
	}
	said := func(from, to int) {
		for i := range c.Exps[from:to] {
			c.Exps[from+i].Said = true
		}
	}
	said(0, core)
	said(plural, len(c.Exps))
	// A word two of the query's words name a concept with is meant in the
	// concept's sense: an entry that has it but is not of the concept
	// uses it in another ("prices" of "stock prices" is not AWS pricing).
	c.Sensed = sensable(w, qw)
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
	// A word that names a concept, or is a word of a concept's term, is a
	// word, not a typo ("linkedin" is not "linked"); nor is a word of
	// English or a name of a place or person, as a spelling checker has
	// them ("paris" is not PARI/GP, "cairo" not Cairn), nor a short word
	// of a sentence that entries do not have ("unread" is not "unreal").
	typo := !literal && len(qw.concepts) == 0 && !qw.term && !isEnglish(w) && (!p.Sentence || len(w) >= minSentenceTypo)
	if typo && p.maxDF(c, len(c.Exps)) <= uint32(p.live/typoRareness) {
		p.addTypos(c, w, p.maxDF(c, len(c.Exps)))
	}
	if own {
		c.markWeak(core)
	}
	if p.maxDF(c, core) == 0 {
		// Nothing but prefixes and typos: they stand for the word.
		said(core, len(c.Exps))
		core = len(c.Exps)
	}
	// Neighbours stand in for a rare keyword, where the index has little
	// of its own (and cost the scan of their postings).
	relFrom, relTo := len(c.Exps), len(c.Exps)
	if !p.Sentence && p.maxDF(c, core) < relatedBelowDF {
		for _, n := range relatedByStem[st] {
			p.addStem(c, n.stem, p.params.Related*n.weight)
		}
		relTo = len(c.Exps)
		c.markWeak(relFrom)
	}
	if c.Sensed {
		c.markWeak(0) // the concept's term, added below, is strong
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
	if unborne {
		// No entry is of the concept the query means the word in, and
		// none has the other words it names the concept with: those that
		// have the word use it in another sense ("book" of "book a flight"
		// in a directory without flights is not Airbnb's).
		c.Exps, core, meant = c.Exps[:0], 0, false
	}
	for _, k := range qw.concepts {
		if unborne && k.words < 2 && !k.phrase {
			// … nor is it meant in the sense it has alone ("address" of
			// "ip address" is no street address).
			continue
		}
		if id, ok := p.v.Term(k.concept); ok {
			cw := p.params.Concept / float32(k.words)
			if wordDF == 0 && !p.Sentence {
				// a keyword no entry has stands for its concept alone
				cw = weightExact / float32(k.words)
			}
			if k.phrase {
				cw *= phraseConcept
			}
			e := c.add(id, cw)
			e.Concept = true
			e.Weak = e.Weak || meant // the word's concept, not the phrase's thing
			c.Asked = c.Asked || wordDF*askRatio < p.df(id)
		}
	}
	if p.maxDF(c, core) == 0 {
		// An everyday word entries do not use ("umbrella"): its concepts
		// stand for it.
		core = len(c.Exps)
	}
	// A word found only by its neighbours is not known: in a directory
	// with no weather server, "weather" is not its "conditions".
	df := uint32(0)
	for i, e := range c.Exps[:core] {
		if (i < relFrom || i >= relTo) && (!meant || i >= shortsFrom && i < shortsTo) {
			df = max(df, p.df(e.Term))
		}
	}
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
	c.Weight = c.IDF * float32(math.Pow(p.topicality(c, core, qw.acronym), float64(p.params.Topicality)))
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
// only describe, and a rare one ("produce", "priority") is no name; one
// typed in capitals is ("BnF", acronym).
func (p *Parser) topicality(c *Clause, core int, acronym bool) float64 {
	prior := 2.0
	if p.Sentence && !acronym {
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

// pairForms are the words a direction pair's word w is written as: w and
// its synonyms, each also in the plural ("images to pdf" for "image to
// pdf") or the singular. The entries' pairs are of words as written.
func (p *Parser) pairForms(w string) []string {
	var forms []string
	for _, f := range p.withSynonyms(w) {
		forms = append(forms, f)
		if other, ok := strings.CutSuffix(f, "s"); ok {
			forms = append(forms, other)
		} else {
			forms = append(forms, f+"s")
		}
	}
	return forms
}

// withSynonyms is w and the other words of its synonym group.
func (p *Parser) withSynonyms(w string) []string {
	if g := synonymsByStem[p.stem(w)]; g != nil {
		return g
	}
	return []string{w}
}

// idf is BM25's inverse document frequency; a word in no entry weighs as
// one in half an entry, the most a word can.
func idf(df uint32, n int) float32 {
	return float32(math.Log(1 + (float64(n)-float64(df)+0.5)/(float64(df)+0.5)))
}

// add adds an expansion, keeping the best weight of a word found twice,
// and returns it.
func (c *Clause) add(id uint32, weight float32) *Expansion {
	for i := range c.Exps {
		if c.Exps[i].Term == id {
			c.Exps[i].Weight = max(c.Exps[i].Weight, weight)
			return &c.Exps[i]
		}
	}
	c.Exps = append(c.Exps, Expansion{Term: id, Weight: weight})
	return &c.Exps[len(c.Exps)-1]
}

// sensable reports whether word w of query word qw is meant in the sense
// of a concept it names with another word of the query: a word of
// everyday English that does ("book" of "book a flight", "prices" of
// "stock prices"). A word that is none names something specific and means
// what it says with any neighbour ("ssh" of "ssh into linux servers"),
// unless the keyword query is a term of it and others (qword.wholeTerm:
// "google" of "google search" is no Google Calendar); so does, in
// keywords, a word that is alone a term of a concept the directory has
// (qword.termHere: "excel" of "automate excel").
func sensable(w string, qw *qword) bool {
	// The concepts first: most words name none, and the word list is a
	// large map.
	if !slices.ContainsFunc(qw.concepts, func(k named) bool { return k.words >= 2 }) {
		return false
	}
	// A term of one word is meant as itself beside a phrase people ask
	// with ("automate excel"), not inside a term entries use ("memory" of
	// "memory leaks").
	termMeant := qw.termHere && !slices.ContainsFunc(qw.concepts, func(k named) bool { return k.words >= 2 && k.phrase })
	return qw.wholeTerm || commonEnglish[w] && !termMeant
}

// phraseUnborne reports whether w, a word of everyday English, is a word
// of a concept's entry term of two or more words that the query has
// ("prices" of "stock prices"), and the index bears that sense out
// nowhere: no entry is of the concept, and another word of the term is
// one no entry has. The word is then meant in a sense no entry has, and
// those that have it use it in another (a directory without market data
// answers "stock prices" with nothing, not with AWS prices and Stripe's).
// So is a word of such a term all of whose words are everyday English
// that entries have, where no entry has the word with another of the
// query's ("share prices": the starter has "share" and "prices", never
// together; "word definition", Word's documents and a chart's
// definitions). Like sensedHere, it depends on the query's other words.
func (p *Parser) phraseUnborne(w string, qw *qword) bool {
	if len(qw.phrased) == 0 {
		return false
	}
	if len(qw.gloss) >= 2 && !slices.ContainsFunc(qw.gloss, func(g string) bool { return !commonEnglish[g] }) {
		// A foreign word glossed as a term of everyday English words is
		// that term ("株価", "Aktienkurs": stock price): where no entry is
		// of its concept, those that have one of its words use it in
		// another sense (AWS's prices).
		return !slices.ContainsFunc(qw.phrased, p.hasEntries)
	}
	if !commonEnglish[w] || p.Foreign {
		return false
	}
	for _, concept := range qw.phrased {
		if p.hasEntries(concept) {
			continue
		}
		others, apart := 0, true
		for i := range p.words {
			o := &p.words[i]
			if o == qw || o.stop || !slices.Contains(o.phrased, concept) {
				continue
			}
			if !p.knows(o.text) {
				return true
			}
			others++
			apart = apart && commonEnglish[o.text]
		}
		if others > 0 && apart && p.alone(w, qw) {
			// Every word of the term is one of everyday English, and no
			// entry has w with another word of the query: those that have
			// it use it in its everyday sense ("share" of "share them",
			// "prices" of AWS prices), not as the term ("share prices");
			// in "jira support tickets", Jira's entries have "tickets".
			return true
		}
	}
	return false
}

// alone reports whether no entry has w together with another word of the
// query that entries have.
func (p *Parser) alone(w string, qw *qword) bool {
	for i := range p.words {
		o := &p.words[i]
		if o != qw && !o.stop && p.knows(o.text) && p.v.Together(p.stem(w), o.stem) {
			return false
		}
	}
	return true
}

// sensesOf is the mask of the concepts qw names with other words of the
// query (Clause.Senses).
func (p *Parser) sensesOf(qw *qword) uint16 {
	var m uint16
	for _, k := range qw.concepts {
		if k.words < 2 {
			continue
		}
		i := slices.Index(p.senses, k.concept)
		if i < 0 && len(p.senses) < 16 {
			i = len(p.senses)
			p.senses = append(p.senses, k.concept)
		}
		if i >= 0 {
			m |= 1 << i
			if !k.phrase {
				p.sensesAsked |= 1 << i
			}
		}
	}
	return m
}

// sensedHere reports whether some entry is of a concept that two or more
// of the query's words, qw among them, name.
func (p *Parser) sensedHere(qw *qword) bool {
	for _, k := range qw.concepts {
		if id, ok := p.v.Term(k.concept); ok && k.words >= 2 && p.df(id) > 0 {
			return true
		}
	}
	// Or every word that names it with qw is one some entry has: an entry
	// may say it in those words without being assigned the concept.
	for i := range p.words {
		w := &p.words[i]
		if w == qw || w.stop || p.Foreign {
			continue // (another language's words are its own)
		}
		for _, k := range qw.concepts {
			if k.words >= 2 && slices.ContainsFunc(w.concepts, func(n named) bool { return n.concept == k.concept }) && !p.knows(w.text) {
				return false
			}
		}
	}
	return true
}

// markWeak marks the clause's expansions from the i-th on as weak.
func (c *Clause) markWeak(i int) {
	for ; i < len(c.Exps); i++ {
		c.Exps[i].Weak = true
	}
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

// pluralLeftWhole is the singular of w where w is a plural the stemmer
// leaves whole, as it does an acronym's or a code's ("pdfs", "llms",
// "gpus", "mp3s"), and more entries have the singular than the plural:
// "dns", "cms" and "sms" are no plurals of words entries use, nor is an
// English word the stemmer leaves whole ("news" is not "new").
func (p *Parser) pluralLeftWhole(w, st string) (string, bool) {
	one, ok := strings.CutSuffix(w, "s")
	if !ok || st != w || len(one) < 2 || strings.HasSuffix(one, "s") || isEnglish(w) {
		return "", false
	}
	id1, ok := p.v.Term(one)
	if !ok {
		return "", false
	}
	df := uint32(0)
	if id, ok := p.v.Term(w); ok {
		df = p.df(id)
	}
	return one, p.df(id1) > df
}

// MaxStemRing bounds the words taken from one stem.
const MaxStemRing = 32

// addStem adds the words that share stem st.
func (p *Parser) addStem(c *Clause, st string, weight float32) {
	p.v.SameStem(st, MaxStemRing, func(id uint32) {
		if !c.has(id) {
			c.add(id, weight)
		}
	})
}

// addStemNamed adds the words that share stem st with product name w,
// but not English words: the stemmer makes "contentful" "content" and
// "feedly" "feed", which are other things than the product.
func (p *Parser) addStemNamed(c *Clause, w, st string, weight float32) {
	p.v.SameStem(st, MaxStemRing, func(id uint32) {
		if t := p.v.Text(id); !c.has(id) && (strings.HasPrefix(t, w) || !isEnglish(t)) {
			c.add(id, weight)
		}
	})
}

// addPrefixed adds the words that w begins, the most frequent first;
// never a word a query does not search for, as addTypos: "ser" is not
// "server", which nearly every entry has, and whose postings it would
// scan for nothing.
func (p *Parser) addPrefixed(c *Clause, w string) {
	p.cands = p.cands[:0]
	p.v.Prefixed(w, func(id uint32, text string) {
		if !factsOf(text).weak {
			p.addCand(c, id, p.params.Prefix*prefixWeight(w, text))
		}
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
		near, ok := p.near(w, b, typoDominance*df)
		if !ok {
			return
		}
		for _, m := range near {
			// Nor is a word misspelt as one a query does not search for
			// ("mcap" is not "mcp": every entry would match it).
			if p.df(m.ID) <= typoDominance*df || factsOf(p.v.Text(m.ID)).weak {
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
	// Of corrections as near, the more frequent is the likelier meant, as
	// a spell checker weighs them: "slak" is Slack (in 48 entries) before
	// ShakerScan (in one), whose name and brief say it more often.
	maxDF := uint32(0)
	for _, k := range p.cands {
		maxDF = max(maxDF, k.df)
	}
	for i := range p.cands {
		k := &p.cands[i]
		k.Weight *= float32(math.Pow(float64(k.df)/float64(maxDF), typoFrequency))
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
		p.cands = append(p.cands, cand{Expansion{Term: id, Weight: weight}, df})
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
			// By the words, not their ids: an index that took its
			// entries in another order takes the same words.
			return p.v.Text(a.Term) < p.v.Text(b.Term)
		})
		p.cands = p.cands[:n]
	}
	for _, k := range p.cands {
		c.add(k.Term, k.Weight)
	}
}
