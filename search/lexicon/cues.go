package lexicon

import "slices"

// How a query's words are found to name concepts, or to be foreign words
// with English ones: the cues of concepts.txt and gloss.txt matched in the
// query.

// mayGloss reports whether the one-word gloss cue c, matched at w by its
// stem, stands for w: a word some entry has as written means what the
// entries mean by it ("sonos" is Sonos, not the Portuguese "sono", sleep),
// unless it is the foreign word itself or the query is in another
// language. A foreign word that is also an everyday English word
// (cue.english) stands for its gloss only in a query in another language:
// "devise a plan" asks for no currencies, "Roman history" for no novels.
func (p *Parser) mayGloss(c *cue, w *qword) bool {
	if c.english {
		return p.Foreign
	}
	return w.text == c.word || !w.known || p.Foreign
}

// findCues marks the words of the query that name concepts or are foreign
// words with an English gloss. Concepts are looked for in the query as
// written and with its foreign words glossed ("wetter morgen" reads as
// "weather morgen"), so that a German query finds the weather concept.
func (p *Parser) findCues() {
	p.seq, p.seqCues, p.seqWords, p.named, p.namedAlone, p.whole = p.seq[:0], p.seqCues[:0], p.seqWords[:0], p.named[:0], p.namedAlone[:0], ""
	for _, i := range p.content {
		p.seq = append(p.seq, p.words[i].stem)
		p.seqCues = append(p.seqCues, p.words[i].cues)
		p.seqWords = append(p.seqWords, span{i, i + 1})
	}
	n := len(p.seq)
	glossed := false
	p.set.reset(p.seq[:n])
	for i := 0; i < n; {
		best := (*cue)(nil)
		bestSpan := 0
		if sc := p.seqCues[i]; sc != nil {
			matchCues(sc.gloss, sc.glossSigs, p.seq[:n], &p.set, i, false, &p.at, func(c *cue, n int) {
				if w := &p.words[p.seqWords[i].from]; n > bestSpan && c.glosses(w.text) && (n > 1 || p.mayGloss(c, w)) {
					best, bestSpan = c, n
				}
			})
		}
		if best != nil && best.weak {
			// "AIエージェント" is an AI agent: its kana, as "agent", say
			// nothing beside the query's other words.
			for j := p.seqWords[i].from; j < p.seqWords[i+bestSpan-1].to; j++ {
				p.words[j].facts.weak = true
			}
			best = nil
		}
		if best == nil {
			p.seq = append(p.seq, p.seq[i])
			p.seqCues = append(p.seqCues, p.seqCues[i])
			p.seqWords = append(p.seqWords, p.seqWords[i])
			i++
			continue
		}
		glossed = true
		from := span{p.seqWords[i].from, p.seqWords[i+bestSpan-1].to}
		// A phrase glossed by as many English words as it has words gives
		// one to each, in order ("перевести текст": "translate", "text"):
		// each clause then weighs as its English word does, as in the
		// English request, where every word of the phrase looking for
		// every English word made each as common as the commonest.
		words := 0 // the phrase's words, stop words left out
		for _, ww := range p.words[from.from:from.to] {
			if !ww.stop {
				words++
			}
		}
		for k, w := range best.words {
			a := p.info(w)
			p.seq = append(p.seq, a.stem)
			p.seqCues = append(p.seqCues, a.cues)
			p.seqWords = append(p.seqWords, from)
			nth := -1
			for j := range p.words[from.from:from.to] {
				ww := &p.words[from.from+j]
				if ww.stop {
					continue
				}
				if nth++; words == len(best.words) && nth != k {
					continue
				}
				if !slices.Contains(ww.gloss, w) {
					ww.gloss = append(ww.gloss, w)
				}
			}
		}
		i += bestSpan
	}
	p.markConcepts(p.seq[:n], p.seqCues[:n], p.seqWords[:n])
	if glossed {
		p.markConcepts(p.seq[n:], p.seqCues[n:], p.seqWords[n:])
	}
	p.dropNamedInPhrases()
	// A term of two or more words that entries use ("points of interest",
	// "fun facts") is a unit of the query: its words name its concept
	// together, as the words of a phrase people ask with do. Not where a
	// word of the query asks for the concept already: the term then adds
	// no sense the query lacks, only more words to share the concept's
	// weight and to be read in its sense ("apple notes" of "my Apple Notes
	// on my Mac", where "notes" asks for note-taking, put Apple Mail in it).
	// Except for a word of a term people ask with whose own senses no other
	// word of the query shares: it is meant as the term means it ("memo" of
	// "turn my voice memo into text" is a recording, not a Word memo).
	// Nor where the term is the whole of a keyword query: every word of
	// it is meant in the term's sense ("python" of "execute python" is code
	// to run, not the language a MySQL server is written in).
	wholeHere := p.whole != "" && p.v != nil && p.hasEntries(p.whole) // (QueryConcepts has no index)
	for i := range p.words {
		w := &p.words[i]
		for _, c := range w.phrased {
			// (A term a short form spells, "sql server", names its thing
			// already: mssql. A word servers are not named for is no name
			// whose other products stand in the way: "deploy" of "deploy
			// app" keeps the servers that deploy without the concept.)
			w.wholeTerm = w.wholeTerm || c == p.whole && wholeHere && len(w.shorts) == 0 && p.namesServers(w)
			if c != p.whole && p.asked(c) && !(slices.Contains(w.asked, c) && p.senseApart(i)) {
				continue
			}
			if !slices.ContainsFunc(w.concepts, func(n named) bool { return n.concept == c }) {
				w.concepts = append(w.concepts, named{concept: c, phrase: true})
			}
		}
	}
	// A concept weighs as one word of the query, however many name it;
	// a word said twice is one word ("facts" of "fun facts from a facts
	// API").
	for i := range p.words {
		for k := range p.words[i].concepts {
			c := &p.words[i].concepts[k]
			for j := range p.words {
				if slices.ContainsFunc(p.words[j].concepts, func(n named) bool { return n.concept == c.concept }) &&
					!p.saidBefore(j, c.concept) {
					c.words++
				}
			}
			if c.said { // its stop words name the concept with it
				c.words = max(c.words, 2)
			}
		}
	}
	// A word that names a concept with other words of the query is meant
	// in that sense, not in those it has alone: "training" of "training
	// runs" is not a train, "runs" not a workout. (A term one query word
	// spells, "aktienkurs" glossed "stock price", stays a word of entries,
	// which expands to nothing.)
	for i := range p.words {
		w := &p.words[i]
		w.concepts = slices.DeleteFunc(w.concepts, func(n named) bool { return n.phrase && n.words < 2 })
		if slices.ContainsFunc(w.concepts, func(n named) bool { return n.words >= 2 }) {
			w.concepts = slices.DeleteFunc(w.concepts, func(n named) bool { return n.words < 2 })
		}
	}
}

// senseApart reports whether the i-th word names concepts of its own
// that no other word of the query names.
func (p *Parser) senseApart(i int) bool {
	if len(p.words[i].concepts) == 0 {
		return false
	}
	for _, n := range p.words[i].concepts {
		for j := range p.words {
			if j != i && slices.ContainsFunc(p.words[j].concepts, func(m named) bool { return m.concept == n.concept }) {
				return false
			}
		}
	}
	return true
}

// asked reports whether a word of the query asks for the concept (names it
// by a term people ask with, not only as a word of an entry term).
func (p *Parser) asked(concept string) bool {
	for i := range p.words {
		if slices.ContainsFunc(p.words[i].concepts, func(n named) bool { return n.concept == concept && !n.phrase }) {
			return true
		}
	}
	return false
}

// saidBefore reports whether a word before the j-th, with the same text,
// names the concept too.
func (p *Parser) saidBefore(j int, concept string) bool {
	for i := range j {
		if p.words[i].text == p.words[j].text && slices.ContainsFunc(p.words[i].concepts, func(n named) bool { return n.concept == concept }) {
			return true
		}
	}
	return false
}

// keepBorneOut keeps, of the concepts the words of a keyword query ask for,
// those that another of its words bears out: keywords are mostly the
// entries' own words. In "tail k8s pod logs crashloopbackoff" k8s bears
// Kubernetes out, but in "chocolate cake recipe with frosting" nothing
// bears out the frost of the weather. A word no entry has is no entry's
// word: beside others it keeps what it asks for ("sleep" of "track my
// sleep"), which the directory may lack.
func (p *Parser) keepBorneOut() {
	for i := range p.words {
		w := &p.words[i]
		if !w.known && len(p.content) > 1 {
			continue
		}
		w.concepts = slices.DeleteFunc(w.concepts, func(n named) bool {
			return n.words < 2 && !slices.Contains(p.named, n.concept)
		})
	}
}

// named is a concept a query word asks for.
type named struct {
	concept string // its pseudo-word
	words   int    // how many words of the query ask for it
	phrase  bool   // named by an entry term of two or more words the query has
	said    bool   // named by a phrase of stop words and it, as written
}

// span is a run of query words, p.words[from:to].
type span struct{ from, to int }

// markConcepts marks the words of every concept cue the stems spell
// (cues[i] are those starting with seq[i]).
func (p *Parser) markConcepts(seq []string, cues []*stemCues, words []span) {
	p.set.reset(seq)
	// A keyword request of two words that is a term of two the other way
	// round, a verb and its object, names it too: "track errors" is error
	// tracking, "manage tasks" task management. (In longer requests the
	// pair is often part of a name: "Amazon Q Business index search".)
	if len(seq) == 2 && len(p.content) == 2 && !p.Sentence && cues[1] != nil && seq[0] != seq[1] {
		for k := range cues[1].concept {
			if c := &cues[1].concept[k]; len(c.stems) == 2 && c.stems[1] == seq[0] && c.toward == towardNone && c.said == nil {
				p.at[0], p.at[1] = 1, 0
				p.namedByTerm(c, 2, words)
			}
		}
	}
	for i := range seq {
		sc := cues[i]
		if sc == nil {
			continue
		}
		matchCues(sc.concept, sc.conceptSigs, seq, &p.set, i, false, &p.at, func(c *cue, n int) {
			if p.misread(c, words, n) {
				return
			}
			p.namedByTerm(c, n, words)
		})
		matchCues(sc.ask, sc.askSigs, seq, &p.set, i, true, &p.at, func(c *cue, n int) {
			if p.misread(c, words, n) {
				return
			}
			// A word said in a phrase of stop words and it is meant as the
			// phrase means it: "time" of "what time is it in".
			said := c.said != nil && p.saidAs(c, words[p.at[0]].from)
			for k, q := range p.at[:n] {
				for j := words[q].from; j < words[q].to; j++ {
					w := &p.words[j]
					if k > 0 && isBigram(w.text) {
						// The character pairs of a Chinese or Japanese
						// phrase are pieces of it, not words that each
						// name the concept: its first pair does.
						continue
					}
					if w.stop {
						continue
					}
					p.askFor(c.to, j, said)
				}
			}
		})
	}
}

// namedBy is a concept an entry term of one word names, and its word.
type namedBy struct {
	concept string
	word    span
}

// dropNamedInPhrases leaves out of the concepts the query names those
// named only by single words that are each part of a longer entry term of
// another concept: the word is meant in the term's sense ("news" of
// "hacker news" names the forum, not news), and a directory that has
// news servers but no forum is not about "get hacker news stories".
func (p *Parser) dropNamedInPhrases() {
	p.named = slices.DeleteFunc(p.named, func(concept string) bool {
		for i := range p.words {
			if slices.Contains(p.words[i].phrased, concept) {
				return false // a longer term names it
			}
		}
		// (Else single words named it: namedAlone has each of them.)
		for _, nb := range p.namedAlone {
			if nb.concept != concept {
				continue
			}
			for j := nb.word.from; j < nb.word.to; j++ {
				if !slices.ContainsFunc(p.words[j].phrased, func(c string) bool { return c != concept }) {
					return false
				}
			}
		}
		return true
	})
}

// namedByTerm marks the words at p.at[:n] as naming the concept of the
// entry term c they spell.
func (p *Parser) namedByTerm(c *cue, n int, words []span) {
	if !slices.Contains(p.named, c.to) {
		p.named = append(p.named, c.to)
	}
	if n == 1 {
		p.namedAlone = append(p.namedAlone, namedBy{c.to, words[p.at[0]]})
	}
	if n >= 2 && n == len(p.content) && !p.Sentence {
		p.whole = c.to
	}
	if (c.askedAlone || n == 1 && p.saysWhatNoEntryHas(words[p.at[0]])) && p.unused(words[p.at[0]].from) {
		p.askFor(c.to, words[p.at[0]].from, false)
	}
	// (In a sentence, a word is read in the sense its neighbours give it:
	// measured, the rule below cost the sentences and paid for keywords.)
	here := n == 1 && !p.Sentence && p.v != nil && p.hasEntries(c.to) // (QueryConcepts has no index)
	for _, q := range p.at[:n] {
		for j := words[q].from; j < words[q].to; j++ {
			w := &p.words[j]
			w.term = true
			w.termHere = w.termHere || here
			if n >= 2 && !slices.Contains(w.phrased, c.to) {
				w.phrased = append(w.phrased, c.to)
			}
			if n >= 2 && c.asked && !slices.Contains(w.asked, c.to) {
				w.asked = append(w.asked, c.to)
			}
		}
	}
}

// saysWhatNoEntryHas reports whether the keyword at w, alone an entry term,
// is a word of English no entry has in any form that is neither an
// everyday one nor a place: a thing done rather than a product's name
// ("unzip", not "telegram" nor "spotify"). Entries that do the thing say
// it otherwise, so the word asks for its concept, as a word people ask
// with does: in a directory without an archive tool, "unzip a file" is
// answered by the servers of files, not by every entry that says "file".
func (p *Parser) saysWhatNoEntryHas(w span) bool {
	if p.Sentence || p.v == nil || w.to-w.from != 1 {
		return false
	}
	qw := &p.words[w.from]
	if qw.known || commonEnglish[qw.text] || qw.place || !isEnglish(qw.text) {
		return false
	}
	had := false
	p.v.SameStem(qw.stem, 1, func(uint32) { had = true })
	return !had
}

// askFor records that the j-th word of the query asks for the concept
// (said: as a phrase of stop words and it).
func (p *Parser) askFor(concept string, j int, said bool) {
	w := &p.words[j]
	if at := slices.IndexFunc(w.concepts, func(n named) bool { return n.concept == concept }); at >= 0 {
		w.concepts[at].said = w.concepts[at].said || said
	} else {
		w.concepts = append(w.concepts, named{concept: concept, said: said})
	}
}

// misread reports whether a cue matched words of the query that do not
// say what its term says: the other way between them ("speech to text"
// does not ask for text to speech, whose cue "speech from text" it
// spells, stop words left out), or the one word of a term of stop words
// and that word ("my runs", "what to read") without them, where the
// directory has the word in too many entries for it to stand for the term
// alone ("runs" of "speech to text that runs offline", "read" of "read its
// label").
func (p *Parser) misread(c *cue, words []span, n int) bool {
	if c.said != nil {
		i := words[p.at[0]].from
		return !p.saidAs(c, i) && p.widespread(i)
	}
	if c.toward == towardNone {
		return false
	}
	from, to := len(p.words), 0
	for _, q := range p.at[:n] {
		from, to = min(from, words[q].from), max(to, words[q].to)
	}
	for _, w := range p.words[from:to] {
		if d := directionOf(w.text); w.stop && d != towardNone {
			return d != c.toward
		}
	}
	return false
}

// saidAs reports whether the query has the cue's term as written, its one
// word at the i-th word of the query.
func (p *Parser) saidAs(c *cue, i int) bool {
	from := i - c.stem
	if from < 0 || from+len(c.said) > len(p.words) {
		return false
	}
	for k, w := range c.said {
		if k != c.stem && p.words[from+k].text != w {
			return false
		}
	}
	return true
}

// unused reports whether no entry has the i-th word of the query (nor one
// of its stem).
func (p *Parser) unused(i int) bool { return p.share(i) == 0 }

// widespreadShare is the share of the directory's entries a word of a
// term of stop words and that word must be in to need the stop words
// ("read" is; "afternoon" of "this afternoon" and "director" of "who is
// the director of" are not). Fitted on the tune half of nl.jsonl.
const widespreadShare = 0.005

// widespread reports whether the i-th word of the query is in more than
// widespreadShare of the entries.
func (p *Parser) widespread(i int) bool { return p.share(i) > widespreadShare }

// share is the share of the entries that have a word of the i-th query
// word's stem (without an index, 1: every word is taken as widespread).
func (p *Parser) share(i int) float64 {
	if p.v == nil || p.v.Live() == 0 {
		return 1
	}
	n := uint32(0)
	p.v.SameStem(p.words[i].stem, MaxStemRing, func(id uint32) { n += p.df(id) })
	return float64(n) / float64(p.v.Live())
}

// QueryConcepts returns the concepts that the words of a query ask for or
// name (their pseudo-words), as the parser would find them without an
// index: for measuring the concept layer's reach.
func QueryConcepts(q string) []string {
	var p Parser
	p.words = p.words[:0]
	Tokenize(truncate(q, maxQueryBytes), func(w string, part bool) {
		if !part {
			p.addWord(w)
		}
	})
	for i := range p.words {
		if !p.words[i].stop {
			p.content = append(p.content, i)
		}
	}
	p.findCues()
	found := slices.Clone(p.named)
	for _, w := range p.words {
		for _, n := range w.concepts {
			if !slices.Contains(found, n.concept) {
				found = append(found, n.concept)
			}
		}
	}
	return found
}

// namesServers reports whether w is a word servers are named for: two or
// more entries have it in their name or title, and at least half of those
// that have it.
func (p *Parser) namesServers(w *qword) bool {
	if !w.known {
		return false
	}
	df, nameDF := p.v.Stats(w.id)
	return nameDF >= 2 && 2*nameDF >= df
}
