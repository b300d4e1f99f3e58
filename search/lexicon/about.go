package lexicon

import (
	"math"
	"slices"
)

// Whether the directory is about a query at all is decided on evidence, by
// a logistic model whose weights are fitted to labelled queries
// (search/testdata/about.jsonl: keywords, sentences, long tasks and other
// languages that servers are for, and questions about the world, recipes,
// sports results, people, gibberish and everyday words that none is for).
// Every feature is free of the directory's size, so that one model serves
// the starter directory of a hundred entries and a registry of millions.
// The evidence, each a feature of the model:
const (
	// The query has a word entries use that is not everyday English
	// ("kubernetes", "tagesschau"), and one that entries have in their
	// name.
	featSpecific = iota
	featSpecificNamed
	// An everyday word entries are named for ("weather", "flights"): the
	// largest share of a word's entries that have it in their name; and
	// one many entries have ("databases"): log1p of the largest number of
	// entries in a thousand that have one.
	featCommonNamed
	featCommonShare
	// A word of the query names a concept, as entries or as people say it,
	// and some entry is of a concept the query names (see conceptHere); a
	// word asks for one that its entries hardly use ("umbrella").
	featConcept
	featAsked
	// The share of the query's weight the best-matching entry covers.
	featCoverage
	// How many of its words no entry has: specific ones ("eiffel",
	// "zorblax") and everyday ones ("chocolate").
	featUnknownSpecific
	featUnknownCommon
	// log1p of how many words it has.
	featWords
	// The query is in another language; it speaks of its asker's own
	// things; asks for what holds now; opens as a question about the
	// world; names the tools it wants (see Form).
	featForeign
	featPersonal
	featLive
	featFact
	featTool
	// AboutFeatures is how many there are; Params.About has one weight
	// more, the bias.
	AboutFeatures
)

// Evidence is the evidence of the parsed query, given the share of its
// weight the best-matching entry covers.
func (p *Parser) Evidence(coverage float32) [AboutFeatures]float32 {
	return p.evidence(coverage, p.conceptHere())
}

// evidence is Evidence, given conceptHere's answer.
func (p *Parser) evidence(coverage float32, conceptHere bool) [AboutFeatures]float32 {
	var f [AboutFeatures]float32
	n := 0
	for i := range p.Clauses {
		c := &p.Clauses[i]
		if c.Bonus || c.Qualifier && !c.Known {
			continue // an unknown place or subject says nothing of the need: "rice" of "recipes with chicken and rice"
		}
		n++
		switch {
		case c.Known && !c.Common:
			f[featSpecific] = 1
			f[featSpecificNamed] = max(f[featSpecificNamed], b2f(c.NameDF > 0))
		case c.Known:
			if c.DF > 0 {
				f[featCommonNamed] = max(f[featCommonNamed], float32(c.NameDF)/float32(c.DF))
				f[featCommonShare] = max(f[featCommonShare], float32(math.Log1p(1000*float64(c.DF)/float64(max(p.live, 1)))))
			}
		case c.Common:
			f[featUnknownCommon]++
		default:
			f[featUnknownSpecific]++
		}
		f[featConcept] = max(f[featConcept], b2f(c.Cue && conceptHere || !p.Sentence && p.headsHere(c.Stem)))
		f[featAsked] = max(f[featAsked], b2f(c.Asked))
	}
	f[featCoverage] = min(1, coverage*p.aboutCoverage())
	f[featWords] = log1p(n)
	f[featForeign] = b2f(p.Foreign)
	f[featPersonal] = b2f(p.Form.Personal)
	f[featLive] = b2f(p.Form.Live)
	f[featFact] = b2f(p.Form.Fact)
	f[featTool] = b2f(p.Form.Tool)
	return f
}

// conceptHere reports whether some entry is of a concept the query names
// or asks for: a concept is evidence that the directory is about a query
// only where the directory has it ("weather" names one, but a directory
// without weather servers is not about "check the weather"). It is
// worked out once a query: a sentence asks it for its least coverage and
// again for the decision.
func (p *Parser) conceptHere() bool {
	if p.hereKnown {
		return p.here
	}
	p.here, p.hereKnown = p.findConceptHere(), true
	return p.here
}

func (p *Parser) findConceptHere() bool {
	if slices.ContainsFunc(p.named, p.hasEntries) {
		return true
	}
	for _, i := range p.content {
		for _, k := range p.words[i].concepts {
			if p.hasEntries(k.concept) {
				return true
			}
		}
	}
	return false
}

// headsHere reports whether the stem heads a concept some entry is of
// (headsByStem): a keyword such a word is, "music" or "phone", names what
// servers do as a concept's own word does, though it names several.
func (p *Parser) headsHere(st string) bool {
	return slices.ContainsFunc(headsByStem[st], p.hasEntries)
}

// hasEntries reports whether some entry is of the concept (its
// pseudo-word).
func (p *Parser) hasEntries(concept string) bool {
	id, ok := p.v.Term(concept)
	return ok && p.df(id) > 0
}

// About reports whether the directory is about the parsed query, given the
// share of its weight the best-matching entry covers: unless it asks for
// something the directory has none of (lacksObject), it names an entry
// (Named), it is a word a server is named for that names a concept the
// directory has (namedFor), or the model's score, with the weights of
// params, is above zero.
func (p *Parser) About(coverage float32) bool {
	here := p.conceptHere()
	if !here && p.lacksObject(coverage) {
		return false
	}
	return p.Named(coverage) || here && p.namedFor(coverage) || p.widelyUsed() || p.namedBeside(coverage, here) ||
		AboutScore(p.evidence(coverage, here), &p.params.About) > 0
}

// namedBeside reports whether the query is keywords that name a server
// the directory has, beside everyday words no entry has: an entry has
// every word the index knows, one of them a product's name (isProduct) or
// a word entries are named for that names a concept the directory has
// ("stripe cancel", "postgres cancel" in the starter, whose entries never
// say "cancel"). The everyday words no entry has are what the server is
// wanted for, beyond the words of the directory; a word no entry has that
// is no everyday English is gibberish or a name ("marie curie").
func (p *Parser) namedBeside(coverage float32, here bool) bool {
	if p.Sentence {
		return false
	}
	unknown := false
	for i := range p.Clauses {
		if c := &p.Clauses[i]; !c.Known && !c.Bonus {
			if !c.Common {
				return false // gibberish, or a name no entry has ("marie curie")
			}
			unknown = true
		}
	}
	if !unknown {
		return false
	}
	known, named := float32(0), false
	for i := range p.Clauses {
		if c := &p.Clauses[i]; c.Known && !c.Bonus {
			known += c.IDF
			named = named || c.NameDF > 0 && (c.Cue && here || isProduct(c))
		}
	}
	return named && coverage >= known/p.TotalIDF*(1-1e-4)
}

// widelyUsed reports whether the query is a single keyword that at least
// widelyUsedShare of the entries have, and at least widelyUsedEntries: a
// word that many servers share is what a directory is about, though it is
// everyday English by the dictionary, no entry is named for it and it
// names no concept ("rust", "node", "typescript" are languages and
// runtimes here). Among the labelled single words
// (search/testdata/about.jsonl) those no server is for are in at most
// 0.32 entries in a thousand ("umbrella", "anchor"), and every one in 1 or
// more is answered by the model too: the bar sits between, in a share, so
// that it holds at any size. In a small directory a share is a word or
// two ("house" of ClickHouse, "story" of Asana's user stories in the
// starter's 214): there the model decides. A word of two letters is too
// many things at once ("go" is also data.go.kr and go2rtc).
func (p *Parser) widelyUsed() bool {
	if p.Sentence {
		return false
	}
	var word *Clause
	for i := range p.Clauses {
		c := &p.Clauses[i]
		switch {
		case c.Bonus:
			continue
		case word != nil || !c.Known:
			return false
		}
		word = c
	}
	if word == nil || len(word.Word) < 3 {
		return false
	}
	// The word as typed, not its stem's other words: "handed" is not
	// what the entries with "hand" share.
	df := uint32(0)
	for _, e := range word.Exps {
		if p.v.Text(e.Term) == word.Word {
			df = p.df(e.Term)
		}
	}
	return df >= widelyUsedEntries && float64(df) >= widelyUsedShare*float64(max(p.live, 1))
}

// The share of the entries, and how many, a single keyword must be in for
// widelyUsed.
const (
	widelyUsedShare   = 0.001
	widelyUsedEntries = 20
)

// namedFor reports whether the query is keywords that an entry has every
// one of, one of them a word some entry is named for that names a concept
// the directory has ("meditation", "horoscope": a directory with a server
// named for them is about them, everyday words though they are).
func (p *Parser) namedFor(coverage float32) bool {
	return p.coveredKeywords(coverage, func(c *Clause) bool { return c.Cue && c.NameDF > 0 })
}

// LeastCoverage is the least share of the query's weight an entry must
// cover for the directory to be about the query on that entry's evidence
// alone: About, were it the best match. Past the entries that cover as
// much, a sentence's tail stops: an entry that shares only "daughter" with
// "make a silly little song for my daughter's 6th birthday" does not
// answer it.
func (p *Parser) LeastCoverage() float32 {
	w := &p.params.About
	if w[featCoverage] <= 0 {
		return 0
	}
	here := p.conceptHere()
	least := -AboutScore(p.evidence(0, here), w) / w[featCoverage]
	if least <= 1 {
		least /= p.aboutCoverage() // as a share of the query's IDF, qualifiers and all
	}
	if !here {
		switch {
		case p.lacksObject(1):
			return 2 // no entry answers it, whatever it covers
		case p.lacksObject(0):
			least = max(least, 1-1e-4) // only one that covers it all
		}
	}
	return least
}

// aboutCoverage is what a share of the query's IDF an entry covers counts
// for as evidence that the directory is about the query: its qualifiers
// left out ("restaurants in tokyo" is about the directory on the evidence of
// a restaurant server that does not say "tokyo").
func (p *Parser) aboutCoverage() float32 {
	q := float32(0)
	for i := range p.Clauses {
		if c := &p.Clauses[i]; c.Qualifier {
			q += c.IDF
		}
	}
	if q <= 0 || q >= p.TotalIDF {
		return 1
	}
	return p.TotalIDF / (p.TotalIDF - q)
}

// lacksObject reports, for a query no entry is of any concept of
// (conceptHere), whether it asks for something the directory has none of.
// Its words are English, none a name (a word of English newer than the
// everyday words, "website" of "check website uptime", is no name), and
// one of them names a concept but no entry has it, or each names one with
// another (or is an everyday word that names none: "image" of "remove
// background from image") and no entry covers the query in full ("check
// my bank balance", "track my workout", "find a job" in a directory
// without banking, fitness or job boards: what matches is servers that
// say "check", "track" or CI jobs; one that has the words together uses
// them in the query's sense, "roll a die"); or its words are everyday
// ones that name no concept, and at least as many of them as the index
// knows are words no entry has ("write a poem about cats", "plan a
// birthday party" in the starter: what matches is servers that write
// files and explain query plans), or they ask to make a thing of a
// subject ("write a story about dragons": Asana's comments are its
// "stories").
func (p *Parser) lacksObject(coverage float32) bool {
	unknownCue, generic, allLacked, lacked := false, true, true, false
	unknownWords, knownWords := 0, 0
	for i := range p.Clauses {
		c := &p.Clauses[i]
		switch {
		case c.Bonus:
			continue
		case c.Known && !c.Common && (!c.English || isProduct(c)):
			return false // a name: the query names what it asks for
		case c.Cue && !c.Known:
			unknownCue = true
		case !c.Known && c.Common && !c.Qualifier:
			unknownWords++
		}
		if c.Known {
			knownWords++
			generic = generic && c.Common && !c.Cue
		}
		sensedLacked := c.Sensed && c.Senses != 0 && c.Senses&^p.SensesLacked == 0
		lacked = lacked || sensedLacked
		allLacked = allLacked && (sensedLacked || c.Common && !c.Cue)
	}
	allLacked = allLacked && lacked
	return unknownCue || generic && knownWords > 0 && (unknownWords > 0 && unknownWords >= knownWords || p.subjectFrom() >= 0) ||
		allLacked && coverage < 1-1e-4
}

// Named reports whether the query is keywords that an entry has every one
// of (it covers the whole query), one of them not everyday English
// ("zugferd invoice", "w1234"): the directory is about what it names,
// whatever the model weighs.
func (p *Parser) Named(coverage float32) bool {
	return p.coveredKeywords(coverage, func(c *Clause) bool { return !c.Common })
}

// coveredKeywords reports whether the query is keywords, all known, that
// an entry has every one of (it covers the whole query), one of them such
// that one holds of it.
func (p *Parser) coveredKeywords(coverage float32, one func(*Clause) bool) bool {
	if p.Sentence || coverage < 1-1e-4 {
		return false
	}
	found := false
	for i := range p.Clauses {
		c := &p.Clauses[i]
		if c.Bonus {
			continue
		}
		if !c.Known {
			return false
		}
		found = found || one(c)
	}
	return found
}

// AboutScore is the model's score of the evidence f with weights w (the
// last one the bias).
func AboutScore(f [AboutFeatures]float32, w *[AboutFeatures + 1]float32) float32 {
	s := w[AboutFeatures]
	for i, v := range f {
		s += w[i] * v
	}
	return s
}

func log1p(n int) float32 { return float32(math.Log1p(float64(n))) }

func b2f(b bool) float32 {
	if b {
		return 1
	}
	return 0
}
