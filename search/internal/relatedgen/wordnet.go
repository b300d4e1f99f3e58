package main

import (
	"github.com/mcpdir/mcpdir/search/internal/wordnet"
)

// wordNet holds, for each single word of WordNet, the words it relates to
// and how closely.
type wordNet map[string]map[string]kinship

// kinship is how WordNet relates two words.
type kinship uint8

const (
	// akin: one pointer apart other than below, e.g. hypernym ("database"
	// → "list"), hyponym, topic, attribute: related, but often loosely.
	akin kinship = iota + 1
	// same: synonyms (one synset), derivationally related forms ("pay",
	// "payment"), similar adjectives and pertainyms.
	same
)

// relations are the WordNet pointers that relate words, and how closely.
var relations = map[string]kinship{
	"+": same, "&": same, "\\": same,
	"@": akin, "@i": akin, "~": akin, "~i": akin, "^": akin, "=": akin, ";c": akin, "-c": akin,
}

// synset is one line of a data.* file, with the pointers that relate
// words.
type synset struct {
	words    []string // lemmas, lower case; "" for a multi-word lemma
	pointers []pointer
}

type pointer struct {
	key      string // offset and part of speech of the target synset
	kin      kinship
	from, to int  // 1-based word numbers of a lexical pointer; 0 for all
	hyper    bool // a hypernym ("@", "@i"): the target is a kind above
}

// readWordNet reads data.noun, data.verb, data.adj and data.adv of dir.
func readWordNet(dir string) (wordNet, error) {
	synsets := map[string]*synset{}
	var order []string
	for _, pos := range []string{"noun", "verb", "adj", "adv"} {
		err := wordnet.Each(dir, pos, func(w *wordnet.Synset) error {
			synsets[w.Key] = related(w)
			order = append(order, w.Key)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	wn := wordNet{}
	for _, key := range order {
		s := synsets[key]
		for _, a := range s.words {
			for _, b := range s.words {
				wn.relate(a, b, same)
			}
		}
		for _, p := range s.pointers {
			t := synsets[p.key]
			if t == nil {
				continue
			}
			for i, a := range s.words {
				if p.from != 0 && p.from != i+1 {
					continue
				}
				for j, b := range t.words {
					if p.to == 0 || p.to == j+1 {
						wn.relate(a, b, p.kin)
					}
				}
			}
		}
	}
	return wn, nil
}

// relate records that a and b are kin, keeping the closest kinship found.
func (wn wordNet) relate(a, b string, k kinship) {
	if a == "" || b == "" || a == b {
		return
	}
	for _, p := range [2][2]string{{a, b}, {b, a}} {
		m := wn[p[0]]
		if m == nil {
			m = map[string]kinship{}
			wn[p[0]] = m
		}
		m[p[1]] = max(m[p[1]], k)
	}
}

// related is a synset with the pointers that relate words (relations).
func related(w *wordnet.Synset) *synset {
	s := &synset{words: w.Words}
	for _, p := range w.Pointers {
		if kin := relations[p.Symbol]; kin != 0 {
			s.pointers = append(s.pointers, pointer{key: p.Key, kin: kin, from: p.From, to: p.To,
				hyper: p.Symbol == "@" || p.Symbol == "@i"})
		}
	}
	return s
}
