package lexicon

// wordFacts are what the lexicon's word lists say of one word. A query word
// looks them up once (addWord) rather than once a list: each list is a map,
// a cache miss a lookup, and most query words are in none of them.
type wordFacts struct {
	stop, personal, live, weak, tool, filler, generic bool
	// opensFact and opensIdiom mark the first words of the openings of
	// questions about the world (factOpenings) and of stop idioms: the
	// few queries that begin one are the only ones looked through for it.
	opensFact, opensIdiom bool
	// stopIn and distinctIn are the languages that have the word as a stop
	// word and as a distinct one (stopLanguages), glossIn those whose words
	// gloss.txt has it as (glossLanguages): bit i for languages[i].
	stopIn, distinctIn, glossIn uint8
}

// wordFactsOf holds the facts of every word some list has.
var wordFactsOf = func() map[string]wordFacts {
	m := map[string]wordFacts{}
	set := func(words map[string]bool, mark func(*wordFacts)) {
		for w, ok := range words {
			if ok {
				f := m[w]
				mark(&f)
				m[w] = f
			}
		}
	}
	set(stopWords, func(f *wordFacts) { f.stop = true })
	set(personalWords, func(f *wordFacts) { f.personal = true })
	set(liveWords, func(f *wordFacts) { f.live = true })
	set(weakWords, func(f *wordFacts) { f.weak = true })
	set(likenessWords, func(f *wordFacts) { f.weak = true })
	set(toolWords, func(f *wordFacts) { f.tool = true })
	set(fillerWords, func(f *wordFacts) { f.filler = true })
	set(genericWords, func(f *wordFacts) { f.generic = true })
	set(firstWords(factOpenings), func(f *wordFacts) { f.opensFact = true })
	set(firstWords(stopIdioms), func(f *wordFacts) { f.opensIdiom = true })
	for w, in := range stopLanguages {
		f := m[w]
		f.stopIn, f.distinctIn = in.stop, in.distinct
		m[w] = f
	}
	for w, in := range glossLanguages {
		f := m[w]
		f.glossIn = in
		m[w] = f
	}
	return m
}()

// firstWords is the set of the first words of phrases.
func firstWords(phrases [][]string) map[string]bool {
	set := map[string]bool{}
	for _, ph := range phrases {
		set[ph[0]] = true
	}
	return set
}

// factsOf returns what the word lists say of w.
func factsOf(w string) wordFacts { return wordFactsOf[w] }
