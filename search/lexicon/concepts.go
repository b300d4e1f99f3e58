package lexicon

import (
	_ "embed"
	"slices"
	"strings"
)

// The concept layer: what MCP servers do, in the words entries use and in
// the words people use when they ask for it (concepts.txt, written and
// reviewed by hand). Entries are assigned to concepts at index time from
// their name, title, tags and brief; a query's words that name a concept
// also look for the concept's entries, a little below the words
// themselves. This is what lets "is the air safe for a run outside today"
// find air-quality servers, whose briefs never say "safe" or "run".
//
// A concept is indexed as a pseudo-word, conceptMark and its slug, which
// no tokenized text can spell.

//go:embed concepts.txt
var conceptsText string

//go:embed gloss.txt
var glossText string

const conceptMark = "§"

// IsConcept reports whether an index word is a concept's pseudo-word.
func IsConcept(t string) bool { return strings.HasPrefix(t, conceptMark) }

// cue is a word or phrase that names a concept (or, in the gloss, a
// foreign word or phrase and its English words).
type cue struct {
	stems []string // the stems of its words, stop words left out
	mask  uint64   // stemBits of its stems: a text whose stems lack one has no match
	to    string   // the concept's pseudo-word
	words []string // gloss: the English words
	entry bool     // entries use it: it assigns entries to the concept
}

// cueTable finds cues by the stem of their first word.
type cueTable map[string][]cue

var (
	conceptCues = parseConcepts(conceptsText)
	glossCues   = parseGloss(glossText)
)

// parseConcepts reads concepts.txt:
//
//	= slug | Label
//	entry: term, term, …
//	ask: term, term, …
func parseConcepts(text string) cueTable {
	t := cueTable{}
	for r := range records(text) {
		mark := conceptMark + r.heading
		switch {
		case r.heading == "":
		case r.key == "entry":
			t.add(r.items, cue{to: mark, entry: true})
		case r.key == "ask":
			t.add(r.items, cue{to: mark})
		}
	}
	t.dropAskedEntryTerms()
	return t
}

// dropAskedEntryTerms drops the cues people ask with that are, stop words
// left out, terms entries use ("our confluence" is "confluence"): those do
// not expand a query.
func (t cueTable) dropAskedEntryTerms() {
	entry := map[string]bool{}
	key := func(c *cue) string { return c.to + "\x00" + strings.Join(c.stems, " ") }
	for _, cs := range t {
		for i := range cs {
			if cs[i].entry {
				entry[key(&cs[i])] = true
			}
		}
	}
	for first, cs := range t {
		t[first] = slices.DeleteFunc(cs, func(c cue) bool { return !c.entry && entry[key(&c)] })
	}
}

// parseGloss reads gloss.txt: blocks by language, records "foreign word
// or phrase: english words".
func parseGloss(text string) cueTable {
	t := cueTable{}
	for r := range records(text) {
		// Words that say nothing of what a server does ("服务: service",
		// "工具: tool") are left out: in every Chinese brief they would only
		// lengthen the postings of the commonest English words.
		var words []string
		for _, to := range r.items {
			Tokenize(to, func(w string, part bool) {
				if !part && !stopWords[w] && !weakWords[w] && !fillerWords[w] && !placeholderWords[w] {
					words = append(words, w)
				}
			})
		}
		if len(words) > 0 {
			t.add([]string{r.key}, cue{words: words, entry: true})
		}
	}
	return t
}

// add adds a cue for each of the terms.
func (t cueTable) add(terms []string, c cue) {
	for _, term := range terms {
		var stems []string
		Tokenize(term, func(w string, part bool) {
			if !part && !stopWords[w] {
				stems = append(stems, Stem(w))
			}
		})
		if len(stems) == 0 {
			continue
		}
		c := c
		c.stems, c.mask = stems, stemsMask(stems)
		t[stems[0]] = append(t[stems[0]], c)
	}
}

// Which cues match looks for.
const (
	anyCue = iota
	entryCue
	askCue
)

// stemsMask sets a bit of 64 for each of the stems, by its hash.
func stemsMask(stems []string) uint64 {
	var m uint64
	for _, s := range stems {
		h := uint64(14695981039346656037) // FNV-1a
		for i := 0; i < len(s); i++ {
			h = (h ^ uint64(s[i])) * 1099511628211
		}
		m |= 1 << (h % 64)
	}
	return m
}

// cueSlack is how many other words may stand among the words of a phrase
// people ask with: "pod logs" in "show me the logs of the pods".
const cueSlack = 2

// maxCueWords bounds the words of a cue.
const maxCueWords = 8

// match calls found for every cue of a kind that starts at position i of
// the stems, with the number n of its words, whose positions it leaves in
// at[:n]. The words of entries' terms and glosses must follow each other;
// those people ask with may come in any order within a few words.
//
// mask is stemsMask of the stems: a cue with a stem the text lacks is left
// out without a look at the text (concepts have thousands of cues, many
// starting with one word).
func (t cueTable) match(stems []string, mask uint64, i int, kind int, at *[maxCueWords]int, found func(c *cue, n int)) {
	cues := t[stems[i]]
	for k := range cues {
		c := &cues[k]
		if c.mask&^mask != 0 || kind == entryCue && !c.entry || kind == askCue && c.entry || len(c.stems) > maxCueWords {
			continue
		}
		end := i + len(c.stems)
		if kind == askCue {
			end += cueSlack
		}
		end = min(end, len(stems))
		at[0] = i
		n := 1
		for _, st := range c.stems[1:] {
			j := i + n // the next word, for a term that must follow
			if kind == askCue {
				for j = i + 1; j < end && (stems[j] != st || slices.Contains(at[:n], j)); j++ {
				}
			}
			if j >= end || stems[j] != st {
				break
			}
			at[n] = j
			n++
		}
		if n == len(c.stems) {
			found(c, n)
		}
	}
}

// QueryConcepts returns the concepts that the words of a query ask for or
// name (their pseudo-words), as the parser would find them without an
// index: for measuring the concept layer's reach.
func QueryConcepts(q string) []string {
	var p Parser
	p.words = p.words[:0]
	Tokenize(truncate(q, maxQueryBytes), func(w string, part bool) {
		if !part {
			p.addWord(w)
		}
	})
	for i := range p.words {
		if !p.words[i].stop {
			p.content = append(p.content, i)
		}
	}
	p.findCues()
	found := slices.Clone(p.named)
	for _, w := range p.words {
		for _, n := range w.concepts {
			if !slices.Contains(found, n.concept) {
				found = append(found, n.concept)
			}
		}
	}
	return found
}

// AddConcepts adds the concept blocks of text (concepts.txt's format) to
// the ones compiled in: for tools that try concepts out before they are
// written into concepts.txt. Not safe while anything parses or reads.
func AddConcepts(text string) {
	for first, cs := range parseConcepts(text) {
		conceptCues[first] = append(conceptCues[first], cs...)
	}
}
