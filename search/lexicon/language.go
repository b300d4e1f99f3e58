package lexicon

import (
	"slices"
	"unicode"

	"github.com/blevesearch/snowballstem"
	"github.com/blevesearch/snowballstem/dutch"
	"github.com/blevesearch/snowballstem/french"
	"github.com/blevesearch/snowballstem/german"
	"github.com/blevesearch/snowballstem/italian"
	"github.com/blevesearch/snowballstem/portuguese"
	"github.com/blevesearch/snowballstem/russian"
	"github.com/blevesearch/snowballstem/spanish"
)

// language is a language other than English that entries and queries are
// written in: its stop words (folded, as tokenize gives words) and its
// Snowball stemmer. A text found to be in it leaves its stop words out
// ("und", "die", "pour", "para"), and each of its words is also indexed or
// searched as its stem, so that "Aktienkurse" meets "Aktienkurs".
type language struct {
	name string
	code string // as words.txt and gloss.txt head its blocks
	stop map[string]bool
	// distinct are the stop words that are neither English ones nor words
	// an English text uses: what tells the language.
	distinct map[string]bool
	stemmer  func(*snowballstem.Env) bool
}

// languages are the languages other than English that the lexicon
// tells, by the code their stop words have in words.txt.
var languages = []*language{
	newLanguage("german", "de", german.Stem),
	newLanguage("french", "fr", french.Stem),
	newLanguage("spanish", "es", spanish.Stem),
	newLanguage("portuguese", "pt", portuguese.Stem),
	newLanguage("italian", "it", italian.Stem),
	newLanguage("dutch", "nl", dutch.Stem),
	newLanguage("russian", "ru", russian.Stem),
}

func newLanguage(name, code string, stemmer func(*snowballstem.Env) bool) *language {
	l := &language{name: name, code: code, stop: map[string]bool{}, distinct: map[string]bool{}, stemmer: stemmer}
	for _, w := range wordList("language-stop")[code] {
		l.stop[w] = true
	}
	for w := range l.stop {
		if !stopWords[w] && !englishLooking[w] {
			l.distinct[w] = true
		}
	}
	return l
}

// englishLooking are foreign stop words that English texts use as words.
var englishLooking = wordSet("english-looking")

// languageCount tells the language of a text from its words.
type languageCount struct {
	hits    [8]int // distinct stop words of each language
	english [8]int // English stop words that are not the language's
	n       int
}

func (lc *languageCount) add(w string) { lc.addFacts(factsOf(w)) }

// addFacts counts a word whose facts are f.
func (lc *languageCount) addFacts(f wordFacts) {
	lc.n++
	distinct := f.distinctIn | f.glossIn
	if distinct == 0 && !f.stop {
		return // most words: not a word of any language's
	}
	for i := range languages {
		if distinct&(1<<i) != 0 {
			lc.hits[i]++
		} else if f.stop && f.stopIn&(1<<i) == 0 {
			lc.english[i]++
		}
	}
}

// stopLanguages tells, of each stop word of the languages, which
// languages have it as a stop word and as a distinct one (bit i for
// languages[i]).
var stopLanguages = func() map[string]struct{ stop, distinct uint8 } {
	if len(languages) != int(LangChinese)-1 {
		panic("search: the languages and the Lang codes disagree")
	}
	m := map[string]struct{ stop, distinct uint8 }{}
	for i, l := range languages {
		for w := range l.stop {
			in := m[w]
			in.stop |= 1 << i
			if l.distinct[w] {
				in.distinct |= 1 << i
			}
			m[w] = in
		}
	}
	return m
}()

// languageBit is the bit of the language of code ("de") among languages, 0
// for a language not among them (told by its script, or none).
func languageBit(code string) uint8 {
	if i := languageIndex(code); i >= 0 {
		return 1 << i
	}
	return 0
}

// languageIndex is the index in languages of the language of code, or -1.
func languageIndex(code string) int {
	return slices.IndexFunc(languages, func(l *language) bool { return l.code == code })
}

// glossLanguages tells, of the words gloss.txt gives English words for,
// which of the languages they are words of (bit i for languages[i]): a
// query of everyday foreign words ("Kalender verwalten", "gestionar
// facturas") has no stop words to tell its language by. Words English
// uses too ("hotel", "data") tell nothing.
var glossLanguages = func() map[string]uint8 {
	m := map[string]uint8{}
	for r := range records(glossText) {
		bit := languageBit(r.heading)
		if bit == 0 {
			continue
		}
		// Keyed as a query has it, folded ("prüfen" is read "prufen").
		var words []string
		Tokenize(r.key, func(w string, _ bool) { words = append(words, w) })
		if len(words) == 1 && !commonEnglish[words[0]] && !stopWords[words[0]] && !englishLooking[words[0]] {
			m[words[0]] |= bit
		}
	}
	return m
}()

// languages has the bit of each language the text has a distinct stop
// word or a glossed word of.
func (lc *languageCount) languages() uint8 {
	var bits uint8
	for i, n := range lc.hits {
		if n > 0 {
			bits |= 1 << i
		}
	}
	return bits
}

// language is the language most of whose distinct stop words the text
// has, if it has two of them (one in a text of six words or fewer) and
// more than English stop words; nil for English or when it cannot tell.
func (lc *languageCount) language() *language {
	hits, english, n := &lc.hits, &lc.english, lc.n
	best := -1
	for i := range languages {
		if hits[i] > 0 && (best < 0 || hits[i] > hits[best]) {
			best = i
		}
	}
	if best < 0 || hits[best] < 2 && n > 6 || hits[best] <= english[best] {
		return nil
	}
	return languages[best]
}

// stemOf is the language's stem of folded word w, or "" when it is w or w
// is not a word of letters.
func (l *language) stemOf(w string) string {
	if !asciiLetters(w) {
		return ""
	}
	env := snowballstem.NewEnv(w)
	l.stemmer(env)
	if s := env.Current(); s != w && len(s) >= minPrefixLen {
		return s
	}
	return ""
}

// asciiLetters reports whether folded word w is written in letters a to z
// only: a word of a Latin alphabet.
func asciiLetters(w string) bool {
	for i := 0; i < len(w); i++ {
		if !isASCIILetter(w[i]) {
			return false
		}
	}
	return true
}

// Lang tells a text's language apart from the others the lexicon knows: 0
// for English or a language it cannot tell, then the languages of
// languages (1 for the first), then Chinese, Japanese and Korean, told by
// their scripts.
type Lang uint8

// The languages told by their scripts, after the seven of languages.
const (
	LangChinese Lang = 8 + iota
	LangJapanese
	LangKorean
)

// scriptLang tells Chinese, Japanese and Korean text by its letters: kana
// is Japanese, Hangul Korean, and Han alone Chinese; 0 for text with
// fewer than two of them.
func scriptLang(texts ...string) Lang {
	var han, kana, hangul int
	for _, t := range texts {
		for _, r := range t {
			switch {
			case r < 0x2E80:
			case unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r):
				kana++
			case unicode.Is(unicode.Hangul, r):
				hangul++
			case unicode.Is(unicode.Han, r):
				han++
			}
		}
	}
	switch {
	case hangul >= 2:
		return LangKorean
	case kana >= 2:
		return LangJapanese
	case han >= 2:
		return LangChinese
	}
	return 0
}

// langOf is the Lang of a language of languages, or of none.
func langOf(l *language) Lang {
	if i := slices.Index(languages, l); i >= 0 {
		return Lang(i + 1)
	}
	return 0
}
