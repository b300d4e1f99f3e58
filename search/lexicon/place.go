package lexicon

import "slices"

// placePrepositions are the words a place follows in a phrase that asks
// for something there ("restaurants in tokyo", "hotels near lisbon").
var placePrepositions = map[string]bool{"in": true, "near": true, "around": true, "at": true}

// maxPlaceWords bounds the words of a place a query ends with.
const maxPlaceWords = 3

// qualify weighs the place a query ends with below the need it qualifies
// ("weather tokyo", "restaurants in tokyo", "news in india"): an entry that
// has only the place (Tokyo's traffic data, a library of India's company
// filings) is not what is asked for; one that does what is asked is, and
// one that also has the place is the best. A place is the name of one
// (isPlaceName) that names no concept: the last words of keywords, or of a
// sentence after "in", "near", "around" or "at", after a word that names a
// concept (as entries or people say it) the directory has. Its weight and its share of the query's IDF are at
// most Params.Place of the least of the others'. (A place no entry has is
// left out already: dropUnknown.)
func (p *Parser) qualify() {
	if p.params.Place <= 0 || len(p.content) < 2 {
		return
	}
	first := len(p.content)
	for first > 0 && len(p.content)-first < maxPlaceWords && p.isPlace(&p.words[p.content[first-1]]) {
		first--
	}
	if first == len(p.content) || first == 0 {
		return
	}
	if p.Sentence {
		// In a sentence only a place after a preposition: "… in tokyo".
		if before := p.content[first] - 1; before < 0 || !p.words[before].stop || !placePrepositions[p.words[before].text] {
			return
		}
	}
	tail := p.content[first:]
	place := func(c *Clause) bool {
		return slices.ContainsFunc(tail, func(i int) bool { return p.words[i].text == c.Word })
	}
	head := false
	for _, i := range p.content[:first] {
		head = head || p.words[i].term || len(p.words[i].concepts) > 0
	}
	if !head || !p.conceptHere() {
		return
	}
	weight, idf := float32(-1), float32(-1)
	for i := range p.Clauses {
		if c := &p.Clauses[i]; !c.Bonus && !place(c) {
			if weight < 0 || c.Weight < weight {
				weight = c.Weight
			}
			if idf < 0 || c.IDF < idf {
				idf = c.IDF
			}
		}
	}
	if weight < 0 {
		return
	}
	for i := range p.Clauses {
		if c := &p.Clauses[i]; place(c) {
			c.Weight = min(c.Weight, p.params.Place*weight)
			c.IDF = min(c.IDF, p.params.Place*idf)
		}
	}
}

// isPlace reports whether a query word may be a place: the name of one
// ("tokyo", "india") that names no concept and is no word of a term
// entries use.
func (p *Parser) isPlace(w *qword) bool {
	return !w.stop && !w.term && len(w.concepts) == 0 && w.place
}
