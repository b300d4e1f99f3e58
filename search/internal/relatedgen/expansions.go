package main

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
)

// WordNet as a source of its own (search/lexicon/wordnet.txt): for a word
// people ask with that the directory does not know, the corpus's words
// that WordNet calls the same in one of its senses (a synonym, a derived
// form: "blurry" → "blur", "transcribe" → "transcription"; its base form
// where it is irregular: "eaten" → "eat"), or a kind above it ("spinach"
// → "vegetable"), whether or not the corpus ever pairs the two.
//
// The sense filter: a target is kept only where it is used in the corpus
// in the sense WordNet relates it in, that is where the words the
// target's entries use with it (its contexts: the words of highest
// positive PMI with it) meet the words WordNet glosses that sense with
// (the gloss, the synset's lemmas, its hypernyms' lemmas). "manifold" →
// "multiple" (many and varied) is kept only if entries with "multiple"
// use it with "many" or "varied"; a pipe manifold's sense never is.
// A target must also be a word of at least minDF entries and of at most
// maxShare of them (words every brief has stand for nothing), of another
// stem than the word's own (the stem finds those already). A word the
// corpus uses in maxSourceDF entries or more has no line: it finds its
// own entries, and WordNet's other senses of it would only add noise.

// expansionParams bound the WordNet expansions.
type expansionParams struct {
	minDF         int     // entries a target must be in
	maxShare      float64 // most share of entries a target may be in
	maxSourceDF   int     // a word in this many entries or more gets no line
	maxNeighbours int     // targets written for a word
	contexts      int     // a target's contexts: its words of highest PMI
	minOverlap    int     // gloss words a target's contexts must have
	hyperWeight   float64 // the weight of a kind above, beside 1 for the same
}

var defaultExpansionParams = expansionParams{minDF: 5, maxShare: 0.05, maxSourceDF: 5, maxNeighbours: 5,
	contexts: 50, minOverlap: 1, hyperWeight: 0.5}

// expansions is the WordNet table: for each single-word lemma of WordNet
// (and each irregular form of one), its kin the corpus has in the sense
// WordNet relates them in, best first.
func expansions(corpus []byte, ws *wnSenses, p expansionParams) (*table, error) {
	v, ids, err := vocabulary(corpus, p.minDF)
	if err != nil {
		return nil, err
	}
	_, rows := ppmi(ids, len(v.stems), defaultParams)
	context := func(id int) map[string]bool {
		r := slices.Clone(rows[id])
		slices.SortFunc(r, func(a, b cell) int { return cmp.Or(cmp.Compare(b.v, a.v), cmp.Compare(a.id, b.id)) })
		m := map[string]bool{}
		for _, c := range r[:min(len(r), p.contexts)] {
			m[v.stems[c.id]] = true
		}
		return m
	}
	contexts := map[int]map[string]bool{}
	df := func(st string) int {
		if id, ok := v.ids[st]; ok {
			return v.df[id]
		}
		return 0
	}
	limit := int(p.maxShare * float64(len(ids)))
	// The sources, by stem: WordNet's lemmas and irregular forms.
	sources := map[string][]string{}
	for _, w := range sortedKeys(ws.of) {
		if plain(w) {
			sources[stemOf(w)] = append(sources[stemOf(w)], w)
		}
	}
	for _, w := range sortedKeys(ws.base) {
		if st := stemOf(w); !slices.Contains(sources[st], w) {
			sources[st] = append(sources[st], w)
		}
	}
	t := &table{}
	for _, st := range sortedKeys(sources) {
		if df(st) >= p.maxSourceDF || len(st) < 3 {
			continue
		}
		best := map[string]neighbour{} // by target stem
		keep := func(word string, weight float64, source string) {
			ts := stemOf(word)
			id, ok := v.ids[ts]
			if !ok || ts == st || v.df[id] < p.minDF || v.df[id] > limit {
				return
			}
			if n, ok := best[ts]; !ok || n.weight < weight {
				best[ts] = neighbour{word: v.form[id], weight: weight, source: source}
			}
		}
		for _, w := range sources[st] {
			refs := ws.of[w]
			for _, b := range ws.base[w] {
				keep(b, 1, "wordnet form") // "eaten" is "eat"
				refs = append(refs, ws.of[b]...)
			}
			for _, r := range refs {
				for _, k := range r.sense.kin[r.lemma] {
					if !plain(k.word) {
						continue
					}
					id, ok := v.ids[stemOf(k.word)]
					if !ok {
						continue
					}
					ctx, ok := contexts[id]
					if !ok {
						ctx = context(id)
						contexts[id] = ctx
					}
					overlap := 0
					for g := range r.sense.gloss {
						if g != st && g != v.stems[id] && ctx[g] {
							overlap++
						}
					}
					if overlap < p.minOverlap {
						continue
					}
					if k.hyper && p.hyperWeight > 0 {
						keep(k.word, p.hyperWeight, "wordnet kind above")
					} else if !k.hyper {
						keep(k.word, 1, "wordnet same")
					}
				}
			}
		}
		if len(best) == 0 {
			continue
		}
		ns := make([]neighbour, 0, len(best))
		for _, ts := range sortedKeys(best) {
			ns = append(ns, best[ts])
		}
		slices.SortFunc(ns, func(a, b neighbour) int {
			return cmp.Or(cmp.Compare(b.weight, a.weight), cmp.Compare(df(stemOf(b.word)), df(stemOf(a.word))), cmp.Compare(a.word, b.word))
		})
		if len(ns) > p.maxNeighbours {
			ns = ns[:p.maxNeighbours]
		}
		for i := range ns {
			ns[i].weight = math.Round(ns[i].weight*100) / 100
		}
		t.lines = append(t.lines, line{word: sources[st][0], neighbours: ns})
	}
	slices.SortFunc(t.lines, func(x, y line) int { return cmp.Compare(x.word, y.word) })
	return t, nil
}

func writeExpansionsHeader(w io.Writer, corpusName, corpusSHA string, p expansionParams) {
	fmt.Fprintf(w, `# WordNet expansions of query words, for search. Generated: do not edit; remake with
#
#   go run ./search/internal/relatedgen -corpus ../shared/data/packages-corpus.jsonl -wordnet /usr/share/wordnet -o search/lexicon/related.txt -expansions search/lexicon/wordnet.txt
#
# Sources:
# - WordNet 3.0 (Debian package wordnet-base): for each single-word lemma and irregular form
#   (data.*, *.exc), its synonyms, derivationally related forms, similar adjectives, pertainyms
#   and hypernyms, sense by sense, with each sense's gloss.
#   WordNet 3.0 Copyright 2006 by Princeton University. All rights reserved.
#   Its licence, which this file must carry, is in search/lexicon/related-LICENSE.
# - %s (sha256 %s): the sense filter. A target is kept where
#   its %d words of highest PMI in the corpus meet %d or more words of the gloss of the sense
#   WordNet relates it in; it is a word of %d entries or more and of at most %.0f%% of them.
#   A word of %d entries or more has no line.
#
# One line a word: "word: target weight, ...", at most %d targets, best first; weight 1 for the
# same (or the base form of an irregular one), %.2f for a kind above.
# Look a query word up by its stem, match a target by its stem.
`, corpusName, corpusSHA, p.contexts, p.minOverlap, p.minDF, 100*p.maxShare, p.maxSourceDF, p.maxNeighbours, p.hyperWeight)
}
