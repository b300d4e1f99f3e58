package lexicon

import (
	_ "embed"
	"strconv"
	"strings"
)

// Related terms mined offline from the corpus and confirmed by WordNet
// (related.txt, made by search/internal/relatedgen): a keyword also finds
// its neighbours' words, well below its own. Measured on the dev sets, it
// pays for keywords (synonyms, other languages) and not for sentences,
// where the concepts do better.

//go:embed related.txt
var relatedText string

// neighbour is a related word's stem and its similarity.
type neighbour struct {
	stem   string
	weight float32
}

// relatedByStem maps a word's stem to its neighbours.
var relatedByStem = parseRelated(relatedText)

func parseRelated(text string) map[string][]neighbour {
	m := map[string][]neighbour{}
	for r := range records(text) {
		var ns []neighbour
		for _, item := range r.items {
			w, sim, _ := strings.Cut(item, " ")
			f, err := strconv.ParseFloat(sim, 32)
			if w == "" || err != nil {
				continue
			}
			ns = append(ns, neighbour{Stem(w), float32(f)})
		}
		m[Stem(r.key)] = ns
	}
	return m
}
