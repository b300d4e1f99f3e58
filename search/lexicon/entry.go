package lexicon

import (
	"iter"
	"slices"
)

// Reader reads the fields of an entry into the words an index keeps of it:
// folded words and the parts of compound names, stop words left out, the
// short forms of phrases ("text to speech" → tts), and, for an entry in
// another language, the words' stems in it and the English words of its
// glossed words. It also finds the concepts the entry is about. A Reader
// reuses its buffers: one goroutine at a time.
type Reader struct {
	stems    stemCache
	seq      []string    // the stems of the field being read
	words    []string    // and its words, as written
	toward   []direction // and the way said before each ("to" of "speech to text")
	apart    []bool      // and whether "and" or "or" comes before each
	concepts []string    // the entry's concepts, once for each cue found
	lang     *language   // the entry's language, nil for English
	// Lang is the language the entry is written in, by its words or its
	// script (see Begin).
	Lang Lang
	// foreign has the bit of each language the entry has a distinct stop
	// word or a glossed word of (see glossed).
	foreign uint8
	at      [maxCueWords]int // where a cue's words are
	set     stemSet          // the stems of the field being read
}

// maxConceptTF bounds how many of a concept's terms count for an entry.
const maxConceptTF = 3

// Begin starts an entry, whose language its title and brief tell: by their
// stop words, or their script.
func (r *Reader) Begin(title, brief string) {
	r.concepts = r.concepts[:0]
	var lc languageCount
	for _, text := range [2]string{title, brief} {
		Tokenize(text, func(w string, part bool) {
			if !part {
				lc.add(w)
			}
		})
	}
	r.lang = lc.language()
	if r.Lang = scriptLang(title, brief); r.Lang == 0 {
		r.Lang = langOf(r.lang)
	}
	r.foreign = lc.languages()
}

// Field calls add with the words of one field's text and returns how many
// words it has. Where cues is true the field's words also assign the entry
// to concepts and gloss its foreign words (names, titles, tags, briefs: not
// tool descriptions or package identifiers).
func (r *Reader) Field(text string, cues bool, add func(w string)) int {
	if text == "" {
		return 0
	}
	var pw phraseWindow
	n := 0
	r.seq, r.words, r.toward, r.apart = r.seq[:0], r.words[:0], r.toward[:0], r.apart[:0]
	toward, apart := towardNone, false
	emit := func(w string, part bool) {
		if stopWords[w] || r.lang != nil && r.lang.stop[w] {
			if !part {
				apart = apart || w == "and" || w == "or"
				pw.stop(w)
				if d := directionOf(w); d != towardNone && (toward == towardNone || toward == towardUnsaid) {
					toward = d
				} else if toward == towardNone {
					toward = towardUnsaid
				}
			}
			return
		}
		add(w)
		// Concepts and glosses are told by whole words: "SpriteCook" is
		// not about cooking.
		if cues && !part {
			r.seq = append(r.seq, r.stems.of(w))
			r.words = append(r.words, w)
			r.toward = append(r.toward, toward)
			r.apart = append(r.apart, apart)
		}
		if !part {
			toward, apart = towardNone, false
			n++
			pw.push(w, func(short string, _ int) { add(short) })
			if r.lang != nil {
				if s := r.lang.stemOf(w); s != "" {
					add(s)
				}
			}
		}
	}
	// The items of a list are apart, as "and" sets them: "web, image,
	// video and news search" says no "image to video".
	for i, item := range listItems(text) {
		apart = apart || i > 0
		Tokenize(item, emit)
	}
	if !cues {
		return n
	}
	// The field's concepts, and the English words of its foreign ones.
	r.set.reset(r.seq)
	for i := range r.seq {
		sc := cuesByStem[r.seq[i]]
		if sc == nil {
			continue
		}
		matchCues(sc.concept, sc.conceptSigs, r.seq, &r.set, i, false, &r.at, func(c *cue, n int) {
			if r.saidAs(c, n) && r.together(n) {
				r.concepts = append(r.concepts, c.to)
			}
		})
		matchCues(sc.gloss, sc.glossSigs, r.seq, &r.set, i, false, &r.at, func(c *cue, _ int) {
			if !r.glossed(c, r.words[i]) {
				return
			}
			for _, w := range c.words {
				add(w)
			}
		})
	}
	return n
}

// glossed reports whether the gloss cue c, found at the field's word w,
// stands for it. In an entry read as English (Lang 0), a word in letters a
// to z that a foreign word's stem spells is an English word or a name,
// unless it is the foreign word as written or the entry has other words of
// the gloss's language: "Sonos" is no Portuguese "sono", sleep, but
// "sócios" of a Brazilian company register's English brief is "sócio",
// partner.
func (r *Reader) glossed(c *cue, w string) bool {
	return c.glosses(w) && (r.Lang != 0 || w == c.word || r.foreign&c.lang != 0 || !asciiLetters(w))
}

// together reports whether the words a term matched, at r.at[:n], are
// not two things listed: "stock and pricing" says no "stock price".
func (r *Reader) together(n int) bool {
	for k := 1; k < n; k++ {
		if r.apart[r.at[k]] {
			return false
		}
	}
	return true
}

// saidAs reports whether the field's words a term matched, at r.at[:n],
// go the way the term says (see direction): "image to text" is not
// "images by text prompts", nor "text to speech" "speech from text". Words
// side by side go the way of their order ("md-pdf" is Markdown to PDF). A
// term that says no way matches as its words do.
func (r *Reader) saidAs(c *cue, n int) bool {
	if c.toward == towardNone {
		return true
	}
	for k := r.at[0] + 1; k <= r.at[n-1]; k++ {
		if d := r.toward[k]; d != towardNone {
			return d == c.toward
		}
	}
	return true
}

// Concepts calls add with the pseudo-word of each concept of the entry read
// since Begin, once for each of its cues found, at most maxConceptTF times:
// an entry belongs to a concept the more, the more of its terms it has (a
// recipe server says recipe, ingredients and meal plan; a "kitchen sink"
// test server says kitchen once).
func (r *Reader) Concepts(add func(concept string)) {
	slices.Sort(r.concepts)
	for i, c := range r.concepts {
		if i < maxConceptTF || r.concepts[i-maxConceptTF] != c {
			add(c)
		}
	}
}

// listItems cuts text at the commas and semicolons that separate the items
// of a list (not the comma of a number, "2,000").
func listItems(text string) iter.Seq2[int, string] {
	return func(yield func(int, string) bool) {
		from, n := 0, 0
		for i := 0; i < len(text); i++ {
			if c := text[i]; c != ',' && c != ';' || c == ',' && i > 0 && i+1 < len(text) && isDigit(text[i-1]) && isDigit(text[i+1]) {
				continue
			}
			if !yield(n, text[from:i]) {
				return
			}
			from, n = i+1, n+1
		}
		yield(n, text[from:])
	}
}
