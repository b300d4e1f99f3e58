package lexicon

// Params are the parser's weights: how much an index word found each way
// counts for a query word, and how a query's words weigh. They are fitted
// to judged queries, not set by hand: the values in use, and the command
// that fits them, are search.DefaultParams's.
type Params struct {
	// Of an index word standing for a query word: one with the same
	// English stem ("databases" for "database"), a synonym ("k8s" for
	// "kubernetes"), a longer word the query word begins ("postgresql"
	// for "postgres", times the share of it the query word is), a word
	// one edit away (two edits: three quarters of that), the entries of
	// a concept the word asks for, the English words of a foreign word,
	// and a related word (times the table's similarity).
	Stem, Synonym, Prefix, Typo float32
	Concept, Gloss, Related     float32
	// Unknown and UnknownSentence are how much a word no entry has counts,
	// in keywords and in a sentence.
	Unknown, UnknownSentence float32
	// Topicality is the exponent of a word's topicality (the share of its
	// entries that have it in their name) in its weight; SentencePrior is
	// topicality's prior, in entries, in a sentence, where a word needs
	// more evidence to count as a name.
	Topicality, SentencePrior float32
	// Product is how much more a product's name weighs in a pasted task
	// (isProduct, taskClauses); 0 leaves it as any word.
	Product float32
	// Pair is how much the direction pair of "a to b" weighs, as a share
	// of its two words' mean weight.
	Pair float32
	// Place is the most a place that qualifies the need weighs ("weather
	// tokyo", "restaurants in tokyo"), as a share of the least weight of
	// the query's other words (see qualify).
	Place float32
	// About are the weights of the model that decides whether the
	// directory is about a query (see Evidence), the bias last.
	About [AboutFeatures + 1]float32
}
