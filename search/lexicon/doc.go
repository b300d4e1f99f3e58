// Package lexicon is query understanding: it turns a query, from two
// keywords to a pasted task of 200 words in any of the languages the search
// speaks, into weighted clauses over the index's words, and reads entries
// into the words the index keeps of them. It knows nothing of postings or
// scores (package search ranks); it is what a word means here.
//
// What is where:
//
//   - tokenize.go, words.go: folding, splitting compound and package-style
//     names (PostgresMCP, @scope/mcp-server-x), stop words, English stems;
//     the one way offline tools read text too.
//   - entry.go: Reader, an entry's fields read into index words and the
//     concepts the entry is about.
//   - query.go: Parser, a query read into clauses (Parse), with its bounds;
//     the Vocabulary it asks of the index; how a pasted task weighs the
//     product it names and the concepts its words ask for.
//   - spell.go: a mistyped word, or one spelt the British way, read as the
//     word meant before the rest of the query is read ("emial my boss").
//   - expand.go: how a query word reaches the index words that stand for
//     it: itself, its stem, synonyms, phrases' short forms, English glosses,
//     longer words it begins, near spellings, related words, concepts; each
//     way with its weight (params.go: Params, fitted on the tune half).
//   - concepts.go, cues.go, phrases.go, language.go, form.go: the concept
//     layer (what servers do, in entries' words and askers' words), the cues
//     that find concepts and foreign words in a query, phrases, languages
//     and what a query's wording says beside its subject.
//   - qualify.go: what qualifies a need and weighs below it: a place
//     ("restaurants in tokyo"), a bound ("under 800k"), the subject of
//     what is made ("a picture of a cat").
//   - about.go: whether the directory is about the query at all, a
//     logistic model over scale-free features and the rules beside it
//     (answering nothing beats answering wrong), and the least coverage at
//     which it is, which ends a sentence's tail.
//   - related.go: related terms mined from the corpus and confirmed by
//     WordNet (related.txt, made by search/internal/relatedgen).
//   - table.go: the one text format of the word tables (words.txt,
//     concepts.txt, gloss.txt, related.txt, english.txt), embedded in the
//     binary; everyday English, and the words of English and names of
//     people and places that are no product's name, and the adjectives
//     of places ("french" of "france").
//   - cache.go: what the lexicon and the index know of query words, and
//     their analyses, kept for one generation of the index (package
//     gencache).
package lexicon
