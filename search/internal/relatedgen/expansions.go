package main

import (
	"cmp"
	"fmt"
	"io"
	"slices"
)

// WordNet as a source of its own (search/lexicon/wordnet.txt): for a word
// people ask with, the corpus's words that WordNet calls the same (a
// synonym, a derivationally related form: "blurry" → "blur", "sharp" →
// "sharpen", "transcribe" → "transcription"), whether or not the corpus
// ever pairs the two. Hypernyms are left out (not measured). The engine
// does not read the table yet: wired in as a weak expansion it did not pay
// (docs/BENCHMARKS.md, "Search, round 3: WordNet").
//
// The sense filter is the corpus: a target must be a word of at least
// minDF entries and of at most maxShare of them (words every brief has
// stand for nothing), and of another stem than the word's own (the stem
// finds those already). A word the corpus already uses in minDF entries or
// more has no line: it finds its own entries, and WordNet's other senses
// of it would only add noise ("table" is furniture too).

// expansionParams bound the WordNet expansions.
type expansionParams struct {
	minDF         int     // entries a target must be in
	maxShare      float64 // most share of entries a target may be in
	maxSourceDF   int     // a word in this many entries or more gets no line
	maxNeighbours int     // targets written for a word
}

var defaultExpansionParams = expansionParams{minDF: 5, maxShare: 0.05, maxSourceDF: 5, maxNeighbours: 5}

// expansions is the WordNet table: for each single-word lemma of WordNet,
// its "same" kin the corpus has, most frequent first, weight 1.
func expansions(corpus []byte, wn wordNet, p expansionParams) (*table, error) {
	docs, forms, err := readCorpus(corpus, p.minDF)
	if err != nil {
		return nil, err
	}
	v := buildVocab(docs, forms, 1)
	df := func(st string) int {
		if id, ok := v.ids[st]; ok {
			return v.df[id]
		}
		return 0
	}
	limit := int(p.maxShare * float64(len(docs)))
	t := &table{}
	lemmas := map[string][]string{} // stem → WordNet's lemmas of it
	for _, w := range sortedKeys(wn) {
		if plain(w) {
			st := stemOf(w)
			lemmas[st] = append(lemmas[st], w)
		}
	}
	for _, st := range sortedKeys(lemmas) {
		if df(st) >= p.maxSourceDF {
			continue
		}
		w := lemmas[st][0]
		seen := map[string]bool{}
		var ns []neighbour
		// Every lemma of the stem ("blurry", "blurred") brings its kin.
		for _, x := range lemmas[st] {
			for _, y := range sortedKeys(wn[x]) {
				ts := stemOf(y)
				if wn[x][y] != same || !plain(y) || ts == st || seen[ts] {
					continue
				}
				if n := df(ts); n >= p.minDF && n <= limit {
					seen[ts] = true
					ns = append(ns, neighbour{word: v.form[v.ids[ts]], weight: 1, source: "wordnet"})
				}
			}
		}
		if len(ns) == 0 {
			continue
		}
		slices.SortFunc(ns, func(a, b neighbour) int {
			return cmp.Or(cmp.Compare(df(stemOf(b.word)), df(stemOf(a.word))), cmp.Compare(a.word, b.word))
		})
		if len(ns) > p.maxNeighbours {
			ns = ns[:p.maxNeighbours]
		}
		t.lines = append(t.lines, line{word: w, neighbours: ns})
	}
	return t, nil
}

func writeExpansionsHeader(w io.Writer, corpusName, corpusSHA string, p expansionParams) {
	fmt.Fprintf(w, `# WordNet expansions of query words, for search. Generated: do not edit; remake with
#
#   go run ./search/internal/relatedgen -corpus ../shared/data/packages-corpus.jsonl -wordnet /usr/share/wordnet -o search/lexicon/related.txt -expansions search/lexicon/wordnet.txt
#
# Sources:
# - WordNet 3.0 (Debian package wordnet-base): synonyms, derivationally related forms, similar
#   adjectives and pertainyms of each single-word lemma.
#   WordNet 3.0 Copyright 2006 by Princeton University. All rights reserved.
#   Its licence, which this file must carry, is in search/lexicon/related-LICENSE.
# - %s (sha256 %s): the sense filter. A target is a word
#   of %d entries or more and of at most %.0f%% of them; a word of %d entries or more has no line.
#
# One line a word: "word: target weight, ...", at most %d targets, most frequent first; weight 1.
# Look a query word up by its stem, match a target by its stem.
`, corpusName, corpusSHA, p.minDF, 100*p.maxShare, p.maxSourceDF, p.maxNeighbours)
}
