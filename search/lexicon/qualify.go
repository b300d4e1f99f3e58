package lexicon

import (
	"slices"
	"strings"
	"sync"
)

// placePrepositions are the words a place follows in a phrase that asks
// for something there ("restaurants in tokyo", "hotels near lisbon"), or
// on the way from one to another ("flights from london to paris").
var placePrepositions = map[string]bool{"in": true, "near": true, "around": true, "at": true, "from": true, "to": true}

// foreignPlacePrepositions are the same in the other languages a query is
// read in, folded ("restaurantes en madrid", "meteo a roma", "hotéis em
// lisboa"); only in a query in one of them: English "a" and "no" are not.
var foreignPlacePrepositions = map[string]bool{"en": true, "a": true, "em": true, "no": true, "na": true, "nel": true,
	"nella": true, "im": true, "bei": true, "au": true, "aux": true, "dans": true}

// maxPlaceWords bounds the words of a place ("ho chi minh city"), and
// maxPlaceRuns the places of one kind a query's qualifiers hold.
const (
	maxPlaceWords = 4
	maxPlaceRuns  = 4
)

// placePhrases are the names of places of two to four words (english.txt's
// place phrases: "kuala lumpur", "new york"), as their words, by their
// first word.
var placePhrases = sync.OnceValue(func() map[string][][]string {
	m := map[string][][]string{}
	for r := range records(englishText) {
		if r.heading == "place phrases" {
			for _, item := range r.items {
				words := strings.Fields(item)
				m[words[0]] = append(m[words[0]], words)
			}
		}
	}
	return m
})

// markPlacePhrases marks the words of a name of a place of several words
// ("weather in kuala lumpur", "restaurants in new york") as of a place, as
// the name of a place of one word is (isPlaceName): neither "new" nor
// "lumpur" is one alone.
func (p *Parser) markPlacePhrases() {
	for i := 0; i < len(p.words); i++ {
		if !p.words[i].placeHead {
			continue
		}
		longest := 0
		for _, phrase := range placePhrases()[p.words[i].text] {
			if len(phrase) > longest && i+len(phrase) <= len(p.words) &&
				slices.EqualFunc(phrase, p.words[i:i+len(phrase)], func(w string, q qword) bool { return w == q.text }) {
				longest = len(phrase)
			}
		}
		for j := i; j < i+longest; j++ {
			p.words[j].inPlace = true
		}
		i += max(longest-1, 0)
	}
}

// qualify weighs the places of a query below the need they qualify
// ("weather tokyo", "restaurants in tokyo", "flights from london to
// paris"): an entry that has only the place (Tokyo's traffic data, a
// library of India's company filings) is not what is asked for; one that
// does what is asked is, and one that also has the place is the best. A
// place is the name of one (isPlaceName, markPlacePhrases) that names no
// concept: the first or last words of keywords; in a sentence, the place
// after "in", "near", "around", "at" or "to" (or their likes in the
// query's language: foreignPlacePrepositions) that ends it, but for a time
// or a bound after it, and the two of a way from one to another; and only
// where another word of the query names a concept (as entries or people
// say it) the directory has, or is one its entries use. Its weight and its
// share of the query's IDF are at most Params.Place of the least of the
// others'. (A place no entry has is left out already: dropUnknown.)
func (p *Parser) qualify() {
	if p.params.Place <= 0 || len(p.content) < 2 {
		return
	}
	// The place ends the query, but for a bound or a time after it ("in
	// tokyo under 300", "in new york tomorrow").
	last := len(p.content)
	for last > 1 && (p.isBound(last-1) || p.words[p.content[last-1]].facts.live) {
		last--
	}
	var runsAt [2*maxPlaceRuns + 2][2]int
	runs := runsAt[:0] // the places, as spans of p.content
	if p.Sentence {
		// In a sentence, the place after a preposition that ends it ("…
		// in tokyo"), and the two of a way from one to another ("flights
		// from london to paris"): a place in the middle of a sentence
		// otherwise says what is wanted ("suppliers in Germany and …").
		var fromAt, toAt [maxPlaceRuns][2]int
		from, to := fromAt[:0], toAt[:0]
		for k := 0; k < last; k++ {
			before := p.content[k] - 1
			if !p.isPlace(&p.words[p.content[k]]) || before < 0 || !p.words[before].stop ||
				!placePrepositions[p.words[before].text] && !(p.Foreign && foreignPlacePrepositions[p.words[before].text]) {
				continue
			}
			end := k + 1 // a place's words, up to the next preposition ("from london to paris")
			for end < last && end-k < maxPlaceWords && p.isPlace(&p.words[p.content[end]]) &&
				!slices.ContainsFunc(p.words[p.content[end-1]+1:p.content[end]], func(w qword) bool { return placePrepositions[w.text] }) {
				end++
			}
			switch r := [2]int{k, end}; {
			case p.words[before].text == "from" && len(from) < maxPlaceRuns:
				from = append(from, r)
			case p.words[before].text == "to" && len(to) < maxPlaceRuns:
				to = append(to, r)
			case end == last:
				runs = append(runs, r)
			}
			k = end - 1
		}
		if len(from) > 0 && len(to) > 0 {
			runs = append(append(runs, from...), to...)
		} else if len(to) > 0 && to[len(to)-1][1] == last {
			runs = append(runs, to[len(to)-1]) // "… flights to tokyo"
		}
	} else {
		first := last
		for first > 0 && last-first < maxPlaceWords && p.isPlace(&p.words[p.content[first-1]]) {
			first--
		}
		if first < last {
			runs = append(runs, [2]int{first, last})
		}
		// Or begins them: "tokyo weather", "new york restaurants".
		end := 0
		for end < first && end < maxPlaceWords && p.isPlace(&p.words[p.content[end]]) {
			end++
		}
		if end > 0 {
			runs = append(runs, [2]int{0, end})
		}
	}
	placed := func(k int) bool {
		return slices.ContainsFunc(runs, func(r [2]int) bool { return k >= r[0] && k < r[1] })
	}
	// The rest names a concept the directory has, or a word its entries
	// use: "jobs" of "jobs in london" names none (CI jobs, cron jobs), and
	// London's market data answered it.
	head, known := false, false
	for k, i := range p.content {
		w := &p.words[i]
		head = head || !placed(k) && (w.term || len(w.concepts) > 0)
		known = known || !placed(k) && w.known && !w.facts.weak && !w.facts.filler && !w.facts.live
	}
	if len(runs) == 0 || !(head && p.conceptHere() || known) {
		return
	}
	var placeAt [(2*maxPlaceRuns + 2) * maxPlaceWords]string
	place := placeAt[:0]
	for _, r := range runs {
		for _, i := range p.content[r[0]:r[1]] {
			place = append(place, p.words[i].text)
		}
	}
	p.qualifyWords(place)
}

// inPlaceName reports whether query word w is one of the name of a place
// of several words ("lumpur" of "kuala lumpur").
func (p *Parser) inPlaceName(w string) bool {
	return slices.ContainsFunc(p.words, func(q qword) bool { return q.inPlace && q.text == w })
}

// isPlace reports whether a query word may be a place: the name of one
// ("tokyo", "india") that names no concept and is no word of a term
// entries use, or a word of the name of one ("aires" of "buenos aires" is
// no air).
func (p *Parser) isPlace(w *qword) bool {
	return !w.stop && (w.inPlace || !w.term && len(w.concepts) == 0 && w.place)
}

// boundWords are the words a quantity that bounds the need follows: "under
// 800k", "over 100", "within 5", "less than 3".
var boundWords = map[string]bool{"under": true, "over": true, "below": true, "above": true, "within": true, "than": true}

// qualifyBounds weighs a number that bounds the need ("houses for sale
// under 800k", "flights below 300") as a place qualifies it: what it asks
// for is the need, within the bound, and no entry is for a bound. Its
// weight and its share of the query's IDF are at most Params.Place of the
// least of the other words'.
func (p *Parser) qualifyBounds() {
	if p.params.Place <= 0 || len(p.content) < 2 {
		return
	}
	var bounds []string
	for k, i := range p.content {
		if p.isBound(k) {
			bounds = append(bounds, p.words[i].text)
		}
	}
	p.qualifyWords(bounds)
}

// qualifyWords weighs the clauses of the words at most Params.Place of the
// least weight and IDF of the others, and marks them qualifiers.
func (p *Parser) qualifyWords(words []string) {
	if len(words) == 0 {
		return
	}
	weight, idf := float32(-1), float32(-1)
	for i := range p.Clauses {
		if c := &p.Clauses[i]; !c.Bonus && !slices.Contains(words, c.Word) {
			weight, idf = minOrFirst(weight, c.Weight), minOrFirst(idf, c.IDF)
		}
	}
	if weight < 0 {
		return
	}
	for i := range p.Clauses {
		if c := &p.Clauses[i]; slices.Contains(words, c.Word) {
			c.Weight = min(c.Weight, p.params.Place*weight)
			c.IDF = min(c.IDF, p.params.Place*idf)
			c.Qualifier = true
		}
	}
}

// minOrFirst is the least of a and b, where a < 0 is none yet.
func minOrFirst(a, b float32) float32 {
	if a < 0 {
		return b
	}
	return min(a, b)
}

// isBound reports whether the k-th content word of the query is a number
// that bounds the need: one after "under", "over" and the like, not the
// query's first word.
func (p *Parser) isBound(k int) bool {
	i := p.content[k]
	w := p.words[i].text
	return k > 0 && (isNumber(w) || isAmount(w)) && boundWords[p.words[i-1].text]
}

// creationVerbs make what they are followed by: "draw a cat" asks for a
// drawing of one. madeWords are what a request makes, followed by what it
// is of or about: "a picture of a cat", "a poem about autumn".
var (
	creationVerbs = map[string]bool{"draw": true, "paint": true, "sketch": true, "illustrate": true}
	madeWords     = map[string]bool{"picture": true, "pictures": true, "image": true, "images": true, "photo": true,
		"drawing": true, "illustration": true, "painting": true, "sketch": true, "portrait": true, "cartoon": true,
		"wallpaper": true, "poster": true, "poem": true, "song": true, "story": true, "video": true, "clip": true, "animation": true}
	subjectPrepositions = map[string]bool{"of": true, "about": true}
	// dishWords are what a cook is asked for, followed by the dish or what
	// goes in it: "a recipe for banana bread", "recipes with chicken".
	dishWords        = map[string]bool{"recipe": true, "recipes": true}
	dishPrepositions = map[string]bool{"for": true, "with": true, "of": true, "using": true}
)

// qualifySubject weighs what a request makes is of ("draw a fox in a snowy
// forest", "make a picture of a cat", "a recipe for banana bread") as a
// place qualifies the need: the servers that make drawings are what is
// asked for, and none is for foxes. The subject is the words after a verb
// that draws, after a word for what is made and "of", "about" or "for" and
// a possessive ("a song for my daughter's birthday"), or after
// a recipe and "for" or "with", that are no word of a term entries use
// ("sunset" of "a picture of a lighthouse at sunset", which people ask for
// the sun's times with, is what the picture shows; so is "curled" of "a
// fox curled up", though entries use curl). Not in a pasted task, whose
// "story" or "video of" is one step of many.
func (p *Parser) qualifySubject() {
	if p.params.Place <= 0 || len(p.content) < 2 || len(p.Clauses) >= taskClauses || !p.conceptHere() {
		return
	}
	from := p.subjectFrom()
	if from < 0 {
		return
	}
	var subject []string
	purpose := false
	for k, i := range p.content[from:] {
		// What it is for ("… for my blog header", "a song for my
		// daughter's birthday") is no part of the need either, even a term
		// entries use: the picture is what is made.
		if !purpose {
			gap := p.words[p.content[from+k-1]+1 : i]
			purpose = len(gap) >= 2 && gap[len(gap)-2].text == "for" && possessives[gap[len(gap)-1].text]
		}
		if w := &p.words[i]; (purpose || !w.term || isVerbForm(w.text)) && !creationVerbs[w.text] && !madeWords[w.text] && !dishWords[w.text] {
			subject = append(subject, w.text)
		}
	}
	p.qualifyWords(subject)
}

// subjectFrom is the index in p.content of the first word of what a
// request makes is of (qualifySubject), or -1 where it makes nothing.
func (p *Parser) subjectFrom() int {
	for k, i := range p.content[:max(len(p.content)-1, 0)] {
		w := p.words[i].text
		next := ""
		if i+1 < len(p.words) {
			next = p.words[i+1].text
		}
		if creationVerbs[w] || madeWords[w] && (subjectPrepositions[next] || p.forPossessive(i+1)) || dishWords[w] && dishPrepositions[next] {
			return k + 1
		}
	}
	return -1
}

// forPossessive reports whether the query's words from i are "for" and a
// possessive: what is made is for someone ("a song for my daughter").
func (p *Parser) forPossessive(i int) bool {
	return i+1 < len(p.words) && p.words[i].text == "for" && possessives[p.words[i+1].text]
}

// possessives are the words that say whose a thing is: "for my blog".
var possessives = map[string]bool{"my": true, "our": true, "your": true, "his": true, "her": true, "their": true}

// isVerbForm reports whether w reads as a verb's "-ed" or "-ing" form
// ("curled", "sleeping"): what a subject does, not the term entries use
// its stem for.
func isVerbForm(w string) bool {
	return len(w) > 5 && (strings.HasSuffix(w, "ed") || strings.HasSuffix(w, "ing"))
}
