package lexicon

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// Query bounds: longer queries are cut, not refused (mcpdir.ValidateKeywords
// cuts what the interfaces take to the same bytes; the index only protects
// itself). A pasted task of 200 words fits.
const (
	maxQueryBytes = 2048
	maxQueryWords = 200
)

// maxFuzzyLookups bounds the near spellings a query looks up in the index
// (Parser.near): each walks the index's words, and a query of 200 words
// nobody writes would otherwise cost a walk each, 40 times a pasted
// task's search. A query of words people write needs a few.
const maxFuzzyLookups = 24

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
	// Next returns the bytes that follow w in the longer words that begin
	// with it, as a set: bit b%64 for byte b.
	Next(w string) uint64
	// Near returns the words within budget edits of w (at most MaxTypoLen
	// bytes), as whole words or as their prefixes. It may leave out words
	// found in no more than over entries, which the caller has no use for.
	Near(w string, budget int, over uint32) []Near
	// Together reports whether some live entry has a word of stem a and
	// a word of stem b (or either is in very many entries).
	Together(a, b string) bool
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
	// SensesLacked marks the concepts of Clause.Senses no entry is of, and
	// SensesPaired those of them that a phrase people ask with names
	// ("roll a die"): there, an entry that has two of the phrase's words
	// is the best evidence that it uses them in the query's sense. Not so
	// for a term entries use ("job search"): an entry that has its words
	// apart ("search … job logs") uses them in their other senses.
	SensesLacked, SensesPaired uint16

	v      Vocabulary
	params *Params
	cache  *Cache
	gen    uint64
	live   int
	// fuzzyLeft is how many near spellings the query may still look up,
	// and partial whether the current clause's analysis lacks one it was
	// refused (it is then not kept: see addClause).
	fuzzyLeft int
	partial   bool

	words    []qword
	content  []int
	seq      []string    // stems of the content words, then glossed
	seqCues  []*stemCues // the cues starting with each stem of seq
	seqWords []span      // the words each stem of seq stands for
	named    []string    // the concepts whose entries' terms the query has
	// namedAlone are the words that named one of them by an entry term of
	// one word (see dropNamedInPhrases)
	namedAlone []namedBy
	whole      string // the concept of an entry term that is the whole query, if one is
	key        []byte // a clause's cache key or a joined word, built here
	at         [maxCueWords]int
	set        stemSet // the stems cues are matched in
	pairs      []string
	acronyms   []string // the words typed in capitals, folded (see appendAcronyms)
	cands      []cand
	senses     []string // the concepts two or more of the query's words name
	// sensesAsked marks those of senses a phrase people ask with names.
	sensesAsked uint16
	// here is conceptHere's answer for the query, once hereKnown.
	here, hereKnown bool
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
	// English: the word is one of English or the name of a person or place
	// (isEnglish), told once with its analysis: the list is a binary
	// search over 90,000 words.
	English bool
	// Damped: the word is a chatty one of a sentence (common, naming no
	// concept), whose matches on names and titles count less: in a pasted
	// task, "launch" or "team" are not the servers named for them.
	Damped bool
	// DF is how many entries have the word or an index word that stands
	// for it (not a concept), the most of them, and NameDF how many have
	// it in their name or title.
	DF, NameDF uint32
	// Asked marks a word entries hardly use that people ask for a concept
	// with ("umbrella" for weather).
	Asked bool
	// Bonus marks the clause of a direction pair ("pdf to markdown"): it
	// adds to the score of entries that match its words in that order,
	// and is no part of the query's coverage.
	Bonus bool
	// Reverse, of a direction pair's clause, are the index words of the
	// pair the other way round ("markdown to pdf" of "pdf to markdown"):
	// an entry that has one of them and not the pair converts the other
	// way, and ranks below those that do not (search.Params.Reverse).
	Reverse []uint32
	// Qualifier marks a place, a bound or the subject of what is made that
	// qualifies the need ("in tokyo", "under 300", "a picture of a cat"):
	// no entry need have it for the directory to be about the query (see
	// qualify.go and Parser.aboutCoverage).
	Qualifier bool
	// Sensed marks a word that names a concept with another word of the
	// query: its own expansions are weak, the concept's entries strong.
	Sensed bool
	// Senses marks the concepts the word names with other words of the
	// query (one bit each, of the query's first 16 such concepts): an
	// entry that matches two clauses of one concept uses their words
	// together, in the sense the query does, whatever its concepts.
	Senses uint16
}

// Expansion is an index word standing for a query word, with its weight.
// A weak one is evidence of the word's form or neighbourhood, not of the
// word in the sense the query uses it (see Clause.Sensed), or, in a pasted
// task, a concept the word asks for (see setShares): an entry that matches
// a clause by weak expansions only covers it in part (search.Params.Weak).
type Expansion struct {
	Term   uint32
	Weight float32
	Weak   bool
	// Concept marks the term of a concept the word names or asks for.
	Concept bool
	// Said marks what the word says: itself, its forms and synonyms, and
	// the words it begins or nearly spells where the index lacks it, in
	// whatever sense; not its neighbours nor its concepts.
	Said bool
}

// qword is one word of a query as typed.
type qword struct {
	text     string
	wordInfo          // what the lexicon and the index say of text
	parts    []string // its compound parts, if any
	shorts   []string // short forms of phrases it belongs to
	// meant: those of them whose phrase has a word that says nothing
	// alone ("server" of "sql server"): the phrase names the short form's
	// thing, and the word alone is weak evidence of it (see expand)
	meant    []string
	concepts []named  // the concepts it names
	gloss    []string // its English words, if it is a foreign word
	stop     bool
	idiom    bool // a word of a stop idiom
	denial   bool // a denial, or the word it denies (dropDenied): no sign of a sentence
	term     bool // a word of a concept's entry term ("recipe", "air quality")
	inPlace  bool // a word of the name of a place of several words (markPlacePhrases)
	acronym  bool // typed in capitals (appendAcronyms)
	// wholeTerm: the keyword query is an entry term of two or more words,
	// it among them, of a concept some entry is of ("google search"): the
	// word is meant in the term's sense, even a name (see sensable)
	wholeTerm bool
	// termHere: the word alone is an entry term of a concept some entry
	// is of ("excel"): it is meant as that term beside a phrase people ask
	// with ("automate excel" of Office macros; see sensable)
	termHere bool
	// phrased: the concepts of the entry terms of two or more words it is
	// a word of ("prices" of "stock prices")
	phrased []string
	// asked: those of them whose term people ask with too ("prices" of
	// "share prices"; see cue.asked)
	asked []string
}

// near is Vocabulary.Near within the query's bound on such lookups
// (maxFuzzyLookups); it reports false once the query has spent it.
func (p *Parser) near(w string, budget int, over uint32) ([]Near, bool) {
	if !p.spend() {
		return nil, false
	}
	return p.v.Near(w, budget, over), true
}

// spend takes one of the query's fuzzy lookups; it reports false, and
// marks the analysis under way as partial, once there are none left.
func (p *Parser) spend() bool {
	if p.fuzzyLeft == 0 {
		p.partial = true
		return false
	}
	p.fuzzyLeft--
	return true
}

// saysConcept reports whether the word asks for a concept as a phrase of
// stop words and it, as written ("things" of "things to do in rome"): it
// is what the phrase means, though alone it says nothing.
func saysConcept(w *qword) bool {
	return slices.ContainsFunc(w.concepts, func(n named) bool { return n.said })
}

// parse turns a query into clauses; it reports false when the query has
// nothing to search for.
func (p *Parser) parse(q string) bool {
	p.words, p.pairs = p.words[:0], p.pairs[:0]
	p.fuzzyLeft = maxFuzzyLookups
	p.hereKnown = false
	q = truncate(q, maxQueryBytes)
	p.acronyms = appendAcronyms(p.acronyms[:0], q)
	n := 0
	Tokenize(q, func(w string, part bool) {
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
	if !foreign {
		p.correctSpelling(q)
	}
	dropIdioms(p.words)
	dropContractions(p.words)
	if !foreign {
		p.dropDenied()
	}
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
			spanned := content[k-span+1 : k+1]
			meant := slices.ContainsFunc(spanned, func(j int) bool { return p.words[j].facts.weak })
			for _, j := range spanned {
				p.words[j].shorts = append(p.words[j].shorts, short)
				if meant {
					p.words[j].meant = append(p.words[j].meant, short)
				}
			}
		})
	}
	p.content = content
	p.markPlacePhrases()
	p.joinCompounds()
	p.Sentence = p.isSentence(foreign)
	p.findCues()
	if !p.Sentence {
		p.keepBorneOut()
	}
	// Agent phrasing ("find an mcp server to …") is dropped when there is
	// anything else to search for, and so is the small talk of a sentence
	// ("is there something that tells me the weather today").
	// A keyword query with a stop word is phrased ("get the weather"):
	// its small talk is small talk too. Not a word of small talk in a
	// term entries use: "assistant" of "Home Assistant", "access" of
	// "access reviews".
	phrased := p.Sentence || len(p.words) > len(content)
	weakFacts := func(f wordFacts) bool { return f.weak || phrased && f.filler }
	weak := func(w string) bool { return weakFacts(factsOf(w)) }
	strong := false
	// A number of one or two digits beside other keywords is a version or
	// a quantity ("python 3.12", "node 20", "claude 3.5"): what is wanted
	// of the thing, not the thing; its digits in names and briefs are
	// others' versions and counts.
	versioned := false
	for _, i := range content {
		strong = strong || !weakFacts(p.words[i].facts)
		versioned = versioned || !isSmallNumber(p.words[i].text)
	}
	versioned = versioned && !p.Sentence
	// In keywords, the kind of thing asked for ("messaging app") is no
	// part of the need beside a word that names a concept the directory
	// has: hosting servers' "apps" are not a messaging app.
	kinded, generic := false, false
	if !p.Sentence {
		for _, i := range content {
			w := &p.words[i]
			generic = generic || w.facts.generic
			kinded = kinded || !w.facts.generic && (w.term || len(w.concepts) > 0)
		}
		kinded = kinded && generic && p.conceptHere()
	}
	p.Clauses = p.Clauses[:0]
	p.senses, p.sensesAsked = p.senses[:0], 0
	for _, i := range content {
		w := &p.words[i]
		if strong && weakFacts(w.facts) && (w.facts.weak || len(w.phrased) == 0) && !saysConcept(w) {
			continue
		}
		if kinded && w.facts.generic && !w.term && len(w.phrased) == 0 {
			continue
		}
		if versioned && (isSmallNumber(w.text) || countWords[w.text] && len(w.phrased) == 0 && len(w.concepts) == 0) {
			continue
		}
		if len(w.parts) > 0 && !w.known {
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
	p.qualify()
	p.qualifyBounds()
	p.qualifySubject()
	p.addPairClauses()
	p.SensesLacked = 0
	for i, concept := range p.senses {
		if !p.hasEntries(concept) {
			p.SensesLacked |= 1 << i
		}
	}
	p.SensesPaired = p.SensesLacked & p.sensesAsked
	return p.setShares()
}

// isSentence reports whether the query is written as a sentence: it has
// stop words, or many words (the directory's own: a string of gibberish
// is no sentence), or is in another language.
func (p *Parser) isSentence(foreign bool) bool {
	// A denial and what it denies are no sign of a sentence: "llm without
	// openai" is keywords.
	stops := len(p.words) - len(p.content)
	for i := range p.words {
		if p.words[i].denial {
			stops--
		}
	}
	if stops >= 2 || foreign && len(p.words) >= 3 {
		return true
	}
	if len(p.words) < 6 {
		return false // too few to be six familiar words
	}
	familiar := 0
	for i := range p.words {
		if w := &p.words[i]; w.stop || w.known {
			if familiar++; familiar == 6 {
				return true
			}
		}
	}
	return false
}

// setShares sums the query's weights and sets the shares of it an entry
// must cover to match and the best entry to answer. It reports whether
// any of the query's words is known to the index.
func (p *Parser) setShares() bool {
	// A chatty word of a sentence (everyday English, naming no concept)
	// that few entries have is rare because briefs do not chat, not
	// because it says much of the need: "enough" and "outside" of "is the
	// air clean enough to go for a run outside" are in one entry each, and
	// weighed as such they outweigh "air" and leave the air-quality
	// servers below the share a match must cover. Such a word weighs at
	// most as one in chattyShare of the entries.
	if p.Sentence {
		most := idf(uint32(float32(p.live)*chattyShare), p.live)
		for i := range p.Clauses {
			c := &p.Clauses[i]
			c.Damped = c.Common && !c.Cue && !c.Bonus
			if c.Damped && c.IDF > most {
				c.Weight *= most / c.IDF
				c.IDF = most
			}
		}
	}
	// A pasted task is about the product it names: "go through the
	// Zendesk tickets created between Monday and Friday" wants the Zendesk
	// servers, not the calendars its weekdays and standup ask for. Among a
	// task's many words one weighs a small share of the whole, and an
	// entry matching more of them wins; and its incidental words ask for
	// many concepts. So in a task a product's name weighs Params.Product
	// times more, and an entry found only as of a concept a word asks for
	// covers the word in part (Expansion.Weak), as one that nearly spells
	// it does; a word meant in a concept's sense (Sensed) is left as it is.
	if p.Sentence && len(p.Clauses) >= taskClauses {
		for i := range p.Clauses {
			c := &p.Clauses[i]
			if isProduct(c) && p.params.Product > 0 {
				c.Weight *= p.params.Product
			}
			for j := range c.Exps {
				c.Exps[j].Weak = c.Exps[j].Weak || c.Exps[j].Concept && !c.Sensed
			}
		}
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
	return known
}

// taskClauses is how many words a sentence has to be read as a pasted
// task (see setShares), not a request of a line. Chosen on the tune half
// of the natural-language set among 8, 12 and 16.
const taskClauses = 12

// isProduct reports whether a clause's word is a product's name: a word
// of letters that is no word of English nor a name of a person or place
// (isEnglish: "acme", "norman", "lisbon" are), people do not ask for a
// concept with (a weekday is that), and two or more entries are named for,
// at least half of those that have it ("zendesk", "xero", "proxmox").
func isProduct(c *Clause) bool {
	return !c.Bonus && !c.Common && !c.Asked && namedProduct(c.Word, c.DF, c.NameDF)
}

// namedProduct reports whether word w, which df entries have and nameDF
// are named for, is a product's name: a word of letters, no English, that
// two or more entries and at least half of those that have it are named
// for.
func namedProduct(w string, df, nameDF uint32) bool {
	if nameDF < 2 || 2*nameDF < df || len(w) < 3 {
		return false
	}
	for i := range len(w) {
		if w[i] < 'a' || w[i] > 'z' {
			return false
		}
	}
	return !isEnglish(w)
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

// chattyShare is the share of the entries a chatty word of a sentence
// weighs as if it were in, at most (see setShares): 1/256, a word in 111
// of the packages corpus's 28,366 entries. Chosen on the tune half of the
// natural-language set and the fresh set (IDF caps of 7.5, 6.5, 5.5, 4.5
// and 3.5 tried; docs/BENCHMARKS.md).
const chattyShare = 1.0 / 256

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
			// A name of a place or person no entry has, in keywords that
			// name a concept the directory has ("weather amsterdam",
			// "hotels sydney"), is what the service is wanted for, not
			// what it is: it is left out, as a stop word is.
			if !p.Sentence && !c.Common && (c.English || p.inPlaceName(c.Word)) && p.conceptHere() {
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
	qw := &p.words[len(p.words)-1]
	qw.reset(w, p.info(w))
	qw.acronym = len(p.acronyms) > 0 && slices.Contains(p.acronyms, w) && !commonEnglish[w] // ("SELECT" is a word)
}

// appendAcronyms appends to a the words of q typed with two capitals or
// more ("BnF", "CVE", "NF-e"), folded: a writer names a thing so, and a
// rare one of them in a sentence is a name, not a word that describes.
func appendAcronyms(a []string, q string) []string {
	start, upper := -1, 0
	for i := 0; i <= len(q); i++ {
		c := byte(' ')
		if i < len(q) {
			c = q[i]
		}
		switch {
		case c >= 'A' && c <= 'Z':
			upper++
			fallthrough
		case c >= 'a' && c <= 'z' || c >= '0' && c <= '9':
			if start < 0 {
				start = i
			}
		default:
			if start >= 0 && upper >= 2 && !acronymPlural(q[start:i]) {
				a = append(a, strings.ToLower(q[start:i]))
			}
			start, upper = -1, 0
		}
	}
	return a
}

// acronymPlural reports whether w is the plural of an acronym ("MPs",
// "APIs"): a kind of thing, not a name.
func acronymPlural(w string) bool {
	n := len(w)
	return n > 2 && w[n-1] == 's' && w[n-2] >= 'A' && w[n-2] <= 'Z'
}

// reset makes q the word w, keeping the space of its lists. Each word's
// lists are its own: a word is never copied to another place of p.words,
// where the two would share the lists' arrays and a later query's words
// would write each other's concepts.
func (q *qword) reset(w string, info wordInfo) {
	*q = qword{text: w, wordInfo: info, stop: info.facts.stop, parts: q.parts[:0], shorts: q.shorts[:0], meant: q.meant[:0],
		concepts: q.concepts[:0], gloss: q.gloss[:0], phrased: q.phrased[:0], asked: q.asked[:0]}
}

// foreign finds a query's language: its stop words are dropped, its
// compounds the index does not know are cut into words it does
// ("zugverbindungen" → zug, verbindungen), and its words also look for
// their stems in that language. It reports whether it found one.
func (p *Parser) foreign() bool {
	var lc languageCount
	for _, w := range p.words {
		lc.addFacts(w.facts)
	}
	l := lc.language()
	p.Lang = langOf(l)
	if l == nil {
		return false
	}
	for i := len(p.words) - 1; i >= 0; i-- {
		w := &p.words[i]
		if w.stop = w.stop || l.stop[w.text]; w.stop {
			continue
		}
		if a, b, ok := p.decompound(w.text); ok {
			w.reset(a, p.info(a))
			w.stop = false // (a part of a compound is no stop word)
			p.words = slices.Insert(p.words, i+1, qword{text: b, wordInfo: p.info(b)})
		}
	}
	// A word's stem in the language also finds it, unless the stem is an
	// everyday English word: "munch" of "München" is no Munch.
	for i := range p.words {
		if w := &p.words[i]; !w.stop {
			if st := l.stemOf(w.text); st != "" && !commonEnglish[st] {
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
	a := p.info(w)
	if a.known && p.df(a.id) > 0 {
		return true
	}
	return a.cues != nil && len(a.cues.gloss) > 0
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
			// Most words begin no index word that goes on as the next word
			// does: the joins need no lookup.
			if c := next.text[0]; n == 2 && p.words[i].next&(1<<(c%64)) == 0 {
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

// dropContractions marks as stop words the "d" of "I'd" or "we'd", which
// the tokenizer cuts off its pronoun ("s", "t", "ll", "re" and "ve" are
// stop words anywhere; "d" alone is a rare name, kept where no pronoun
// comes before). (The "m" of "I'm" the same way cost a blind paraphrase
// set: docs/BENCHMARKS.md.)
func dropContractions(words []qword) {
	for i := 1; i < len(words); i++ {
		if w := &words[i]; w.text == "d" && contractedPronouns[words[i-1].text] {
			w.stop = true
		}
	}
}

// contractedPronouns are the words "d" contracts with.
var contractedPronouns = map[string]bool{"i": true, "you": true, "we": true, "they": true, "he": true, "she": true,
	"it": true, "that": true, "who": true, "there": true}

// dropIdioms marks the words of stop idioms as stop words.
func dropIdioms(words []qword) {
	for i := range words {
		if !words[i].facts.opensIdiom {
			continue
		}
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

// dropDenied marks as a stop word the word a denial denies: it names what
// the asker does not want ("email over IMAP and SMTP, not just Gmail";
// "xlsx on Linux, with no Microsoft Office installed"), and the entries
// that have it are not the ones asked for. Only the first word after it:
// the rest of the phrase is often what is wanted ("not Atlassian Cloud"
// still asks for Jira itself). "no" and "without" deny it only where few
// entries have it (deniedShare): entries say them of what they need not
// ("no API key needed", "without an account"), so a query's "no API key"
// is matched.
func (p *Parser) dropDenied() {
	for i := range p.words {
		switch p.words[i].text {
		case "not", "no", "without":
		default:
			continue
		}
		for j := i + 1; j < len(p.words); j++ {
			if !p.words[j].stop {
				if p.words[i].text == "not" || p.share(j) < deniedShare {
					p.words[i].denial, p.words[j].denial, p.words[j].stop = true, true, true
				}
				break
			}
		}
	}
}

// deniedShare is the share of the directory's entries below which a word
// after "no" or "without" is denied, not matched. Chosen on the tune half
// of nl.jsonl among 0.5%, 1%, 2% and 5%.
const deniedShare = 0.02

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
