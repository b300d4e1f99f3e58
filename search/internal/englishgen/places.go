package main

import (
	"slices"
	"strings"

	"github.com/mcpdir/mcpdir/search/internal/wordnet"
)

// locationSynset and landSynset are WordNet 3.0's nouns "location" (a
// point or extent in space), above every region, country and city, and
// "land" (the solid part of the earth), above every island and peninsula.
const (
	locationSynset = "00027167n"
	landSynset     = "09334396n"
)

// places are the single-word lemmas of WordNet's nouns
// that are instances of a location or of land, and part of another or a
// member of one ("Tokyo", a national capital, of Honshu and Japan; "Korea",
// a peninsula, of Asia; "Texas", an American state; "Sweden", of the
// European Union), folded to lower case and sorted: a
// name that is a place, not a product ("Gemini" is a constellation and a
// sign of the zodiac, "Linux" an operating system, "Microsoft" none).
//
// phrases are the lemmas of two to four words of the same places ("kuala
// lumpur", "new york", "ho chi minh city"), in lower case and a space
// apart, sorted.
func places(nouns []*wordnet.Synset) (words, phrases []string) {
	byKey := keyed(nouns)
	// Whether a synset is a location or land, or a kind of one, memoised
	// (false while it is looked into: a guard against cycles).
	located := map[string]bool{}
	var isLocation func(key string) bool
	isLocation = func(key string) bool {
		if key == locationSynset || key == landSynset {
			return true
		}
		if v, ok := located[key]; ok {
			return v
		}
		located[key] = false
		s := byKey[key]
		v := s != nil && slices.ContainsFunc(s.Pointers, func(p wordnet.Pointer) bool {
			return (p.Symbol == "@" || p.Symbol == "@i") && isLocation(p.Key)
		})
		located[key] = v
		return v
	}
	for _, s := range nouns {
		// A region of the sky ("Gemini", the sign) is part of nothing; a
		// country is part of a continent, or a member of a union or a
		// region of countries ("Sweden", "Norway": of Scandinavia and the
		// European Union).
		partOf := slices.ContainsFunc(s.Pointers, func(p wordnet.Pointer) bool { return p.Symbol == "#p" || p.Symbol == "#m" })
		place := slices.ContainsFunc(s.Pointers, func(p wordnet.Pointer) bool { return p.Symbol == "@i" && isLocation(p.Key) })
		if !partOf || !place {
			continue
		}
		for i, w := range s.Words {
			if w != "" {
				words = append(words, w)
			}
			if n := strings.Count(s.Phrases[i], " ") + 1; n >= 2 && n <= 4 && s.Proper[i] {
				phrases = append(phrases, s.Phrases[i])
			}
		}
	}
	slices.Sort(words)
	slices.Sort(phrases)
	return slices.Compact(words), slices.Compact(phrases)
}

// readNouns reads WordNet's nouns (data.noun of dir), in the file's order.
func readNouns(dir string) ([]*wordnet.Synset, error) {
	var nouns []*wordnet.Synset
	err := wordnet.Each(dir, "noun", func(s *wordnet.Synset) error {
		nouns = append(nouns, s)
		return nil
	})
	return nouns, err
}

// keyed maps synsets by their keys.
func keyed(synsets []*wordnet.Synset) map[string]*wordnet.Synset {
	m := make(map[string]*wordnet.Synset, len(synsets))
	for _, s := range synsets {
		m[s.Key] = s
	}
	return m
}

// demonyms maps the single-word lemmas of the nouns that isPlace tells are
// places to the adjectives of data.adj (of dir) that pertain to them (its
// pertainyms: "french" of "france", "japanese" of "japan"), those isWord
// tells are English words, sorted.
func demonyms(dir string, nouns []*wordnet.Synset, isPlace, isWord func(string) bool) (map[string][]string, error) {
	byKey := keyed(nouns)
	m := map[string][]string{}
	err := wordnet.Each(dir, "adj", func(s *wordnet.Synset) error {
		for _, p := range s.Pointers {
			n := byKey[p.Key]
			if p.Symbol != `\` || n == nil || p.From < 1 || p.From > len(s.Words) || p.To < 1 || p.To > len(n.Words) {
				continue
			}
			adj, place := s.Words[p.From-1], n.Words[p.To-1]
			if adj != "" && place != "" && adj != place && isPlace(place) && isWord(adj) && !slices.Contains(m[place], adj) {
				m[place] = append(m[place], adj)
			}
		}
		return nil
	})
	for _, adjs := range m {
		slices.Sort(adjs)
	}
	return m, err
}
