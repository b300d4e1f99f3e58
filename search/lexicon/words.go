package lexicon

// ContentWords calls emit with each word of text that carries meaning, as
// the index sees it — folded, stop words and request phrasing ("tool",
// "find", "mcp") left out — with its stem, and whether it is a part of a
// compound emitted just before whole ("PostgresMCP" → "postgresmcp", then
// the part "postgres"). Offline tools that mine the corpus
// (search/internal/relatedgen) read text through it, so that what they
// produce matches what the index holds.
func ContentWords(text string, emit func(word, stem string, part bool)) {
	Tokenize(text, func(w string, part bool) {
		if !stopWords[w] && !weakWords[w] {
			emit(w, Stem(w), part)
		}
	})
}
