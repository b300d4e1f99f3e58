package lexicon

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// A word the index has no form of and English does not know is most often
// a word mistyped ("emial my boss", "cheap flihts to lisbon", "do i need
// an umbrlela") or spelt the British way ("labelled examples", "fibre
// broadband"). A spelling checker puts the likeliest word in its place
// before the query is read, so that the word takes part in what its
// neighbours say with it ("email my boss" asks for mail, "flights to
// lisbon" has a place); correcting it only where the index is searched
// (addTypos) leaves the rest of the reading to a word nobody meant.

// spellDominance is how many times as many entries the likeliest
// correction must have as the next as near: where two are about as likely
// ("hotl": hot, hotel), neither is put in the word's place, and the word
// is left to addTypos, which searches for both.
const spellDominance = 2

// minSpellLen is the shortest word a spelling checker corrects by its
// edits: a shorter one is as likely an acronym or a name ("kras", "sqrt",
// "wget") as a word mistyped.
const minSpellLen = 5

// spellMinDF is how many entries a correction English does not know must
// have: a name many servers share ("rubrik"), not one entry's word.
const spellMinDF = 3

// correction is the word put in place of query word w, or "" for none.
// Only a word of letters a to z that the index has in no form is
// corrected: to its American spelling where it is a British one the
// index has the American way ("harbour", "fibre", "organise",
// "catalogue"); or, where English does not know it and it names no place
// nor concept, to the index's word one edit away, whole, that English has
// or that is in at least spellMinDF entries, and that far more entries
// have than any other as near; where no index word is near, to the common
// English word one edit away (commonNear). (A British spelling some
// entries use is left as it is: read as the American word, "defence" of
// "the British defence ministry" found the American defense servers, and
// "analyse" the 201 entries that "analyze", on the judged sets.)
//
// It reports false where it could not look for one: the query has spent
// its fuzzy lookups (Parser.near).
func (p *Parser) correction(w string, info *wordInfo) (string, bool) {
	if len(w) < 4 || len(w) > MaxTypoLen || p.v == nil {
		return "", true
	}
	for i := 0; i < len(w); i++ {
		if !isASCIILetter(w[i]) {
			return "", true
		}
	}
	if info.known {
		return "", true
	}
	// The index's words of w's stem: a word with a form of its own is
	// corrected only where that form is rare and the correction far more
	// frequent ("databae", whose stem one entry's word has, is database,
	// of 422 entries); an inflection no entry writes is no typo.
	ringDF := uint32(0)
	p.v.SameStem(info.stem, MaxStemRing, func(id uint32) { ringDF = max(ringDF, p.df(id)) })
	if ringDF > uint32(p.live/typoRareness) {
		return "", true
	}
	if a := american(w); ringDF == 0 && a != "" && (!isEnglish(w) || strings.HasSuffix(w, "ogue") || strings.HasSuffix(w, "ogues")) {
		if _, ok := p.v.Term(a); ok {
			return a, true
		}
	}
	if info.place || info.cues != nil || isEnglish(w) || placeWords()[w] || len(w) < minSpellLen {
		return "", true
	}
	best, second := uint32(0), uint32(0)
	var bestID uint32
	near, ok := p.near(w, 1, 0)
	if !ok {
		return "", false
	}
	for _, m := range near {
		if !m.Whole || m.Dist != 1 {
			continue
		}
		t := p.v.Text(m.ID)
		df := p.df(m.ID)
		if df < spellMinDF && !isEnglish(t) || factsOf(t).weak {
			continue
		}
		if df > best {
			best, second, bestID = df, best, m.ID
		} else if df > second {
			second = df
		}
	}
	if best == 0 {
		// No word of the index is near: a word one edit from a common
		// word of English is that word mistyped ("compraed", "routne"),
		// which the index lacks too, not a name no entry has, for which
		// a sentence is answered with nothing. Looking costs about two
		// walks of the index's words: it counts as one lookup more.
		if len(w) > maxCommonNearLen {
			return "", true
		}
		if !p.spend() {
			return "", false
		}
		return commonNear(w), true
	}
	if best < spellDominance*second || best < typoDominance*ringDF {
		return "", true
	}
	return p.v.Text(bestID), true
}

// maxCommonNearLen bounds the words commonNear looks at: the longer the
// word, the more candidates, and the rarer a typo of one common word.
const maxCommonNearLen = 12

// commonNear is the common English word one edit from w (a letter
// dropped, added, changed, or two swapped), or "" if there is none; of
// several, one that asks for a concept if only one does, else the first
// found.
func commonNear(w string) string {
	var buf [MaxTypoLen + 1]byte
	found, cued, ncued := "", "", 0
	try := func(b []byte) {
		if !commonEnglish[string(b)] {
			return
		}
		if c := string(b); c != found && c != cued {
			if found == "" {
				found = c
			}
			if cuesByStem[Stem(c)] != nil {
				cued, ncued = c, ncued+1
			}
		}
	}
	for i := 0; i < len(w); i++ {
		try(append(append(buf[:0], w[:i]...), w[i+1:]...)) // dropped
		if i+1 < len(w) {
			b := append(buf[:0], w...)
			b[i], b[i+1] = b[i+1], b[i]
			try(b) // swapped
		}
		for c := byte('a'); c <= 'z'; c++ {
			if c != w[i] {
				b := append(buf[:0], w...)
				b[i] = c
				try(b) // changed
			}
		}
	}
	for i := 0; i <= len(w) && len(w) < MaxTypoLen; i++ {
		for c := byte('a'); c <= 'z'; c++ {
			try(append(append(append(buf[:0], w[:i]...), c), w[i:]...)) // added
		}
	}
	if ncued == 1 {
		return cued
	}
	return found
}

// britishEndings are British spellings' endings and their American ones,
// the longest first.
var britishEndings = [][2]string{
	{"isations", "izations"}, {"isation", "ization"}, {"ising", "izing"}, {"ised", "ized"}, {"ises", "izes"}, {"ise", "ize"},
	{"ysing", "yzing"}, {"ysed", "yzed"}, {"yse", "yze"},
	{"elled", "eled"}, {"elling", "eling"}, {"ences", "enses"}, {"ence", "ense"},
	{"ogues", "ogs"}, {"ogue", "og"}, {"tres", "ters"}, {"tre", "ter"}, {"bre", "ber"},
}

// american is w spelt the American way, or "" if it has no British
// spelling this knows: "our" as "or" ("neighbourhood"), and the endings
// of britishEndings.
func american(w string) string {
	a := w
	if i := strings.Index(a, "our"); i > 0 {
		a = a[:i] + "or" + a[i+3:]
	}
	for _, e := range britishEndings {
		if strings.HasSuffix(a, e[0]) {
			a = a[:len(a)-len(e[0])] + e[1]
			break
		}
	}
	if a == w {
		return ""
	}
	return a
}

// placeWords are the words of the names of places of several words
// ("kuala", "paulo"): a word of a place's name is not mistyped.
var placeWords = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, phrases := range placePhrases() {
		for _, phrase := range phrases {
			for _, w := range phrase {
				m[w] = true
			}
		}
	}
	return m
})

// correctSpelling puts each mistyped word's correction in its place; not a
// word the query writes with a capital letter but as its first, which is a
// name ("Dr. Mensah", "a 2017 Skoda", "PARP inhibitors"), unless the query
// capitalizes nearly every word ("EMIAL MY BOSS", "Send An Emial").
func (p *Parser) correctSpelling(q string) {
	if len(p.words) < 2 {
		return
	}
	for i := range p.words {
		w := &p.words[i]
		if w.stop || len(w.parts) > 0 {
			continue
		}
		if !w.fixed {
			fix, ok := p.correction(w.text, &w.wordInfo)
			if !ok {
				continue
			}
			w.fix, w.fixed = fix, true
			p.keepInfo(w.text, &w.wordInfo)
		}
		// (Fixes are rare: the query's capitals are read only for one.)
		if w.fix != "" && !(capitalsTellNames(q) && writtenAsName(q, w.text)) {
			w.reset(w.fix, p.info(w.fix))
		}
	}
}

// capitalsTellNames reports whether fewer than three in four words of q
// begin with a capital letter: where more do ("Cheap Flights To Rome"), a
// capital says nothing of a name.
func capitalsTellNames(q string) bool {
	upper, words := 0, 0
	for _, f := range strings.Fields(q) {
		r, _ := utf8.DecodeRuneInString(f)
		if unicode.IsLetter(r) {
			words++
			if unicode.IsUpper(r) {
				upper++
			}
		}
	}
	return 4*upper < 3*words
}

// writtenAsName reports whether q writes word w (lower case letters) with
// a capital letter anywhere but as the query's first letter.
func writtenAsName(q, w string) bool {
	for at := 0; at < len(q); {
		i := indexFold(q[at:], w)
		if i < 0 {
			return false
		}
		i += at
		end := i + len(w)
		before, _ := utf8.DecodeLastRuneInString(q[:i])
		after, _ := utf8.DecodeRuneInString(q[end:])
		whole := (i == 0 || !unicode.IsLetter(before)) && (end == len(q) || !unicode.IsLetter(after))
		if s := q[i:end]; whole && s != w && (i > 0 || strings.ToLower(s[1:]) != s[1:]) {
			return true
		}
		at = end
	}
	return false
}

// indexFold is the first index of w (lower case ASCII letters) in s, in
// any case.
func indexFold(s, w string) int {
	first := w[:1] + string(w[0]-'a'+'A')
	for i := 0; ; {
		j := strings.IndexAny(s[i:], first)
		if j < 0 || i+j+len(w) > len(s) {
			return -1
		}
		if i += j; strings.EqualFold(s[i:i+len(w)], w) {
			return i
		}
		i++
	}
}
