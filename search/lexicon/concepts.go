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
	bits  []uint16 // where its stems are in a stemSet: a text lacking one has no match
	to    string   // the concept's pseudo-word
	words []string // gloss: the English words
	// asked marks an entry term of two or more words that is also one
	// people ask for the concept with ("share price", "bus times"): a
	// query that has it means the term, not its words apart.
	asked bool
	// askedAlone marks an entry term of one word that is also one people
	// ask for the concept with ("humidity", "wireframe"): where no entry
	// has the word, it asks for the concept, as it cannot stand for itself.
	askedAlone bool
	// toward is the way the term says its words go, where it says one
	// between them (see direction): "speech from text" is text to speech.
	toward direction
	// said is the term as written, stop words and all, where they are all
	// it has beside its one word ("my runs", "what to read"), and stem
	// that word's place in it (see Parser.misread).
	said []string
	stem int
	// word is a gloss's one foreign word as written: the everyday English
	// words that share its stem are not it ("termin" is no "terminal",
	// "vente" no "vent"; see glosses).
	word string
	// lang is a gloss's language, a bit of languages (0: one told by its
	// script).
	lang uint8
	// weak marks a gloss whose English words all say nothing of what a
	// server does ("ツール: tool", "エージェント: agent"): the foreign
	// words are weak as their English ones are (see Parser.findCues).
	weak bool
	// english marks a gloss whose foreign word is also an everyday
	// English word, written "~word" in gloss.txt ("~devise: currency"):
	// see Parser.mayGloss.
	english bool
}

// glosses reports whether the gloss cue c, found at a word written w,
// stands for it: a foreign word's stem is also that of everyday English
// words ("informe" of "information", "recept" of "reception"), which it
// says nothing of.
func (c *cue) glosses(w string) bool {
	return c.word == "" || w == c.word || !commonEnglish[w]
}

// cueTable holds the cues of one file by the stem of their first word, as
// they are read (cuesByStem then holds them all).
type cueTable map[string][]cue

// cuesByStem holds the cues by the stem of their first word: the terms
// entries use of concepts.txt (concept), the words people ask with (ask; a
// query is searched for both, an entry for the first) and the foreign words
// of gloss.txt (gloss). One map, so that a word finds all of its cues with
// one lookup: a large map is a cache miss a lookup. headsByStem holds the
// concepts each stem heads (heads).
var cuesByStem, headsByStem = func() (map[string]*stemCues, map[string][]string) {
	m := map[string]*stemCues{}
	entry, ask := parseConcepts(conceptsText)
	addCues(m, entry, ask, parseGloss(glossText))
	return m, heads(entry)
}()

// minHeadTerms is how many of a concept's entry terms of two or more
// words must have a word for the word to head the concept.
const minHeadTerms = 3

// heads maps a stem to the concepts it heads: those of whose entry terms
// of two or more words at least minHeadTerms have it ("music" of "music
// streaming", "music production", "music generation", …; "engine" of
// "search engine", "game engine", …).
func heads(entry cueTable) map[string][]string {
	count := map[[2]string]int{}
	for _, cs := range entry {
		for _, c := range cs {
			if len(c.stems) < 2 {
				continue
			}
			for i, st := range c.stems {
				if !slices.Contains(c.stems[:i], st) {
					count[[2]string{st, c.to}]++
				}
			}
		}
	}
	m := map[string][]string{}
	for k, n := range count {
		if n >= minHeadTerms {
			m[k[0]] = append(m[k[0]], k[1])
		}
	}
	return m
}

// stemCues are the cues of each kind that start with one stem, and the
// signatures of their stems (sig), in the same order: read in a row, the
// signatures tell most cues a text lacks a stem of without reading the
// cue, a cache miss each.
type stemCues struct {
	gloss, concept, ask             []cue
	glossSigs, conceptSigs, askSigs []uint32
}

// addCues adds the cues of the tables to m.
func addCues(m map[string]*stemCues, concept, ask, gloss cueTable) {
	at := func(st string) *stemCues {
		if m[st] == nil {
			m[st] = &stemCues{}
		}
		return m[st]
	}
	for st, cs := range concept {
		at(st).concept = append(at(st).concept, cs...)
	}
	for st, cs := range ask {
		at(st).ask = append(at(st).ask, cs...)
	}
	for st, cs := range gloss {
		at(st).gloss = append(at(st).gloss, cs...)
	}
	for _, sc := range m {
		sc.glossSigs, sc.conceptSigs, sc.askSigs = sigs(sc.gloss), sigs(sc.concept), sigs(sc.ask)
	}
}

// sigs are the signatures of the cues.
func sigs(cues []cue) []uint32 {
	s := make([]uint32, len(cues))
	for i := range cues {
		s[i] = cues[i].sig()
	}
	return s
}

// parseConcepts reads concepts.txt:
//
//	= slug | Label
//	entry: term, term, …
//	ask: term, term, …
func parseConcepts(text string) (entry, ask cueTable) {
	entry, ask = cueTable{}, cueTable{}
	for r := range records(text) {
		mark := conceptMark + r.heading
		switch {
		case r.heading == "":
		case r.key == "entry":
			entry.add(r.items, cue{to: mark})
		case r.key == "ask":
			ask.add(r.items, cue{to: mark})
		}
	}
	dropEntryTerms(ask, entry)
	return entry, ask
}

// dropEntryTerms drops the cues people ask with that are, stop words left
// out, terms entries use ("our confluence" is "confluence"): those do not
// expand a query.
// It marks the entry terms people ask with too: those of two or more
// words (cue.asked) and those of one (cue.askedAlone).
func dropEntryTerms(ask, entry cueTable) {
	key := func(c *cue) string { return c.to + "\x00" + strings.Join(c.stems, " ") }
	terms := map[string]bool{}
	for _, cs := range entry {
		for i := range cs {
			terms[key(&cs[i])] = true
		}
	}
	asked := map[string]bool{}
	for first, cs := range ask {
		ask[first] = slices.DeleteFunc(cs, func(c cue) bool {
			if terms[key(&c)] {
				asked[key(&c)] = true
				return true
			}
			return false
		})
	}
	for _, cs := range entry {
		for i := range cs {
			cs[i].asked = len(cs[i].stems) >= 2 && asked[key(&cs[i])]
			cs[i].askedAlone = len(cs[i].stems) == 1 && asked[key(&cs[i])]
		}
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
		weak := false
		for _, to := range r.items {
			Tokenize(to, func(w string, part bool) {
				switch {
				case part || stopWords[w]:
				case weakWords[w] || fillerWords[w] || placeholderWords[w]:
					weak = true
				default:
					words = append(words, w)
				}
			})
		}
		key, english := strings.CutPrefix(r.key, "~")
		if len(words) > 0 || weak {
			t.add(glossTerms(key, r.heading), cue{words: words, word: key, lang: languageBit(r.heading), weak: len(words) == 0, english: english})
		}
	}
	return t
}

// glossTerms are the ways a foreign phrase is matched: as written, and
// without its language's stop words, as a query found to be in that
// language reads it ("capture d'écran" in "prendre une capture d'écran",
// "captura de pantalla" in "tomar una captura de pantalla").
func glossTerms(phrase, code string) []string {
	i := languageIndex(code)
	if i < 0 {
		return []string{phrase}
	}
	var kept []string
	stop := false
	Tokenize(phrase, func(w string, part bool) {
		switch {
		case part:
		case languages[i].stop[w] && !stopWords[w]:
			stop = true
		default:
			kept = append(kept, w)
		}
	})
	if !stop || len(kept) < 2 {
		return []string{phrase} // "pas cher" (cheap) is not "cher" (dear)
	}
	return []string{phrase, strings.Join(kept, " ")}
}

// add adds a cue for each of the terms.
func (t cueTable) add(terms []string, c cue) {
	for _, term := range terms {
		var stems, said []string
		toward, at := towardNone, 0
		Tokenize(term, func(w string, part bool) {
			switch {
			case part:
				return
			case !stopWords[w]:
				if len(stems) == 0 {
					at = len(said)
				}
				stems = append(stems, Stem(w))
			case len(stems) > 0 && toward == towardNone:
				toward = directionOf(w)
			}
			said = append(said, w)
		})
		if len(stems) == 0 {
			continue
		}
		c := c
		c.stems, c.toward = stems, toward
		if len(said) > 1 {
			c.word = "" // a phrase is told by its words together
		}
		if len(stems) < 2 {
			c.toward = towardNone // a direction after the one word leads nowhere
			if len(said) > 1 {
				c.said, c.stem = said, at
			}
		}
		for _, st := range stems {
			c.bits = append(c.bits, stemBit(st))
		}
		t[stems[0]] = append(t[stems[0]], c)
	}
}

// direction is the way a phrase says its words go, by the word between
// them: "to" and "into" (speech to text) or "from" (speech from text).
// Stop words are left out of cues and queries alike, so without it the
// two read the same.
type direction uint8

const (
	towardNone direction = iota
	towardTo
	towardFrom
	// towardUnsaid: stop words that say no way ("images by text prompts").
	towardUnsaid
)

func directionOf(w string) direction {
	switch w {
	case "to", "into":
		return towardTo
	case "from":
		return towardFrom
	}
	return towardNone
}

// stemSet holds the stems of a text as bits, by their hashes: a cue with
// a stem whose bit is not set cannot match, and is left out without a look
// at the text (a long query meets thousands of cues).
type stemSet struct {
	bits [16]uint64
}

func (ss *stemSet) reset(stems []string) {
	*ss = stemSet{}
	for _, st := range stems {
		ss.set(stemBit(st))
	}
}

func (ss *stemSet) set(b uint16) { ss.bits[b/64] |= 1 << (b % 64) }

func (ss *stemSet) isSet(b uint16) bool { return ss.bits[b/64]&(1<<(b%64)) != 0 }

// mayHave reports whether the bits of a cue's signature (sig) are set.
func (ss *stemSet) mayHave(sig uint32) bool {
	return ss.isSet(uint16(sig)) && ss.isSet(uint16(sig>>16))
}

// has reports whether every bit of the cue's stems is set, the first
// being that of the text's stem it was found by.
func (ss *stemSet) has(c *cue) bool {
	for _, b := range c.bits[1:] {
		if !ss.isSet(b) {
			return false
		}
	}
	return true
}

// sig is the signature of a cue's stems: the bits of its second and third
// stems (of a shorter cue, its last stem's, as often as it takes). The
// first is the text's stem it was found by, set in the stemSet; of the
// thousands of cues a long query meets, few have both others set.
func (c *cue) sig() uint32 {
	second, third := c.bits[min(1, len(c.bits)-1)], c.bits[min(2, len(c.bits)-1)]
	return uint32(second) | uint32(third)<<16
}

// stemBit is the bit of a stem in a stemSet.
func stemBit(st string) uint16 {
	h := uint32(2166136261) // FNV-1a
	for i := 0; i < len(st); i++ {
		h = (h ^ uint32(st[i])) * 16777619
	}
	return uint16(h % (64 * 16))
}

// cueSlack is how many other words may stand among the words of a phrase
// people ask with: "production errors" in "production crash errors" (after
// its first word: not in "errors in production", see matchCues).
const cueSlack = 2

// maxCueWords bounds the words of a cue.
const maxCueWords = 8

// matchCues calls found for every cue of cues (those whose first stem is
// stems[i], whose signatures are sigs) that the stems spell from position
// i, whose set is ss, with the number n of its words, whose positions it
// leaves in at[:n]. The words of entries' terms and glosses must follow
// each other; those people ask with (loose) follow the first in any order,
// with a few other words among them. (Before the first word too, tried: it
// read "errors in production" as error tracking, but cost the sets more
// than it gave, docs/BENCHMARKS.md.)
func matchCues(cues []cue, sigs []uint32, stems []string, ss *stemSet, i int, loose bool, at *[maxCueWords]int, found func(c *cue, n int)) {
	for k := range cues {
		if !ss.mayHave(sigs[k]) {
			continue
		}
		c := &cues[k]
		if len(c.stems) > maxCueWords || !ss.has(c) {
			continue
		}
		end := i + len(c.stems)
		if loose {
			end += cueSlack
		}
		end = min(end, len(stems))
		at[0] = i
		n := 1
		for _, st := range c.stems[1:] {
			j := i + n // the next word, for a term that must follow
			if loose {
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

// AddConcepts adds the concept blocks of text (concepts.txt's format) to
// the ones compiled in: for tools that try concepts out before they are
// written into concepts.txt. Not safe while anything parses or reads.
func AddConcepts(text string) {
	entry, ask := parseConcepts(text)
	addCues(cuesByStem, entry, ask, nil)
}
