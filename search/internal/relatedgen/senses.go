package main

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpdir/mcpdir/search/internal/wordnet"
)

// wnSense is one WordNet synset as the sense filter reads it: its
// single-word lemmas, the words it is glossed with (its gloss's content
// words, its lemmas and those of the kinds above it, by stem), and, for
// each of its lemmas, the words that lemma relates to in this sense.
type wnSense struct {
	words []string
	gloss map[string]bool
	kin   [][]kinWord // by lemma
}

// kinWord is a word a lemma relates to in one sense.
type kinWord struct {
	word  string
	hyper bool // a kind above (hypernym), not the same (synonym, derived form, similar, pertainym)
}

// wnSenses is WordNet by sense: each single-word lemma's senses, and the
// irregular forms of words (data.*.exc: "eaten" → "eat", "knives" →
// "knife").
type wnSenses struct {
	of     map[string][]senseRef
	base   map[string][]string
	senses []*wnSense
}

// senseRef is a lemma's place in a sense.
type senseRef struct {
	sense *wnSense
	lemma int
}

// readSenses reads data.* and *.exc of dir.
func readSenses(dir string) (*wnSenses, error) {
	type raw struct {
		s      *synset
		gloss  string
		proper []bool // a lemma WordNet writes capitalised: a name ("Chicago", the card game too)
	}
	synsets := map[string]raw{}
	var order []string
	for _, pos := range []string{"noun", "verb", "adj", "adv"} {
		err := wordnet.Each(dir, pos, func(w *wordnet.Synset) error {
			synsets[w.Key] = raw{related(w), w.Gloss, w.Proper}
			order = append(order, w.Key)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	ws := &wnSenses{of: map[string][]senseRef{}, base: map[string][]string{}}
	for _, key := range order {
		r := synsets[key]
		sense := &wnSense{words: r.s.words, gloss: map[string]bool{}, kin: make([][]kinWord, len(r.s.words))}
		glossWords := func(text string) {
			for _, f := range strings.FieldsFunc(text, func(c rune) bool { return c == ';' || c == '"' }) {
				addStems(sense.gloss, f)
			}
		}
		glossWords(r.gloss)
		for _, w := range r.s.words {
			addStems(sense.gloss, w)
		}
		for i, a := range r.s.words {
			if a == "" || r.proper[i] {
				continue
			}
			for _, b := range r.s.words {
				if b != "" && b != a {
					sense.kin[i] = append(sense.kin[i], kinWord{word: b})
				}
			}
		}
		for _, p := range r.s.pointers {
			t, ok := synsets[p.key]
			if !ok {
				continue
			}
			if p.hyper {
				for _, b := range t.s.words {
					addStems(sense.gloss, b)
				}
			}
			if p.kin != same && !p.hyper {
				continue
			}
			for i, a := range r.s.words {
				if a == "" || r.proper[i] || p.from != 0 && p.from != i+1 {
					continue
				}
				for j, b := range t.s.words {
					if b != "" && b != a && (p.to == 0 || p.to == j+1) {
						sense.kin[i] = append(sense.kin[i], kinWord{word: b, hyper: p.hyper})
					}
				}
			}
		}
		ws.senses = append(ws.senses, sense)
		for i, w := range r.s.words {
			if w != "" {
				ws.of[w] = append(ws.of[w], senseRef{sense, i})
			}
		}
	}
	for _, pos := range []string{"noun", "verb", "adj", "adv"} {
		data, err := os.ReadFile(filepath.Join(dir, pos+".exc"))
		if err != nil {
			if os.IsNotExist(err) {
				continue
			}
			return nil, err
		}
		for _, line := range strings.Split(string(data), "\n") {
			f := strings.Fields(line)
			if len(f) < 2 || !plain(f[0]) {
				continue
			}
			for _, b := range f[1:] {
				if plain(b) && b != f[0] {
					ws.base[f[0]] = append(ws.base[f[0]], b)
				}
			}
		}
	}
	return ws, nil
}

// addStems adds the engine's stems of text's content words to set.
func addStems(set map[string]bool, text string) {
	for _, f := range strings.FieldsFunc(strings.ToLower(text), func(c rune) bool {
		return !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9')
	}) {
		if len(f) >= 3 && !glossStop[f] {
			set[stemOf(f)] = true
		}
	}
}

// glossStop are the words of glosses that say nothing of a sense.
var glossStop = setOf(`the and for with that which who whom whose this these those from into onto upon
	are was were been being has have had having not any all some one ones two its their there other
	such used use uses using usually especially often something someone somebody thing things
	person people way ways act acts state quality make makes made etc very more most less much many
	cause causes become becomes small large part parts kind kinds type types form forms`)
